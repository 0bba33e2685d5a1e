"""The shell commands' output for people, made from the script contract's JSON lines (one path: a shell
command runs as a one-line script, and this reads what it prints): results as tables on stdout, a
progress line per pipeline with its phases on stderr, failures as sentences on stderr; colour only on
a terminal (and never with NO_COLOR set)."""
from __future__ import annotations

import io
import json
import os
import re
import time
from typing import Any, TextIO

from ..core.text import age_label

PHASE_NAMES = {"branch_creation": "branch", "config_loading": "config", "build_result": "build",
               "iceberg_write": "write", "quality_tests": "quality", "branch_resolution": "merge"}
STATUS_COLOURS = {"success": "32", "passed": "32", "failed": "31", "error": "31", "cancelled": "33",
                  "skipped": "33", "awaiting_review": "36", "rejected": "33", "warned": "33",
                  "fresh": "32", "warn": "33"}
SYMBOLS = {"success": "✓", "passed": "✓", "failed": "✗", "error": "✗"}
CELL_WIDTH = 48
NOTE_CELL = 100  # a run's notes' cell in a table of runs; the notes follow whole
SENTENCES = ("reason", "error", "note", "message")  # columns that hold a sentence: printed last, uncut
AGES = {"age_s": "age"}  # columns of seconds printed as `7h 12m`, under a name for people
RESULT_KEYS = ("line", "cmd", "ok", "error")


def use_colour(stream: TextIO) -> bool:
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


class HumanOutput(io.TextIOBase):
    """A text stream that takes the contract's JSON lines and writes them for people."""

    def __init__(self, out: TextIO, err: TextIO):
        self.out, self.err = out, err
        self.colour, self.live = use_colour(out), use_colour(err)
        self._pending = ""
        self._runs: dict[str, dict[str, Any]] = {}  # run_id -> pipeline and phases so far

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            if line.strip():
                fields = json.loads(line)
                self._event(fields) if "event" in fields else self._result(fields)
        return len(text)

    def flush(self) -> None:
        self.out.flush()
        self.err.flush()

    # -- progress on stderr ------------------------------------------------------------------
    def _event(self, event: dict[str, Any]) -> None:
        kind, run_id = event["event"], event.get("run_id")
        if kind == "SessionStateChanged" and self.live and event["state"] in ("starting", "ready", "failed"):
            # a cold start takes seconds before any run or result shows: say so, and clear it once ready
            self._progress("▸ starting Spark…" if event["state"] == "starting" else "", final=False)
            return
        if kind == "RunStarted":
            self._runs[run_id] = {"pipeline": event["pipeline"], "phases": []}
        run = self._runs.get(run_id)
        if run is None:
            return
        if kind == "PhaseFinished":
            run["phases"].append(f"{PHASE_NAMES.get(event['phase'], event['phase'])} {_ms(event['ms'])}")
        if kind == "IntervalsPlanned" and event.get("warning"):
            self._progress(f"  {run['pipeline']}  {self._paint('warning', '33', self.live)}: {event['warning']}",
                           final=True)
        if kind == "IntervalBuilt":  # a backfill's progress, a line an interval
            self._progress(f"  {run['pipeline']}  interval {event['number']}/{event['total']} "
                           f"[{event['start']}, {event['end']})", final=True)
        if kind == "RunFinished":
            self._runs.pop(run_id)
            status = event["status"]
            note = event.get("error") or event.get("note")
            parts = [f"{self._paint(SYMBOLS.get(status, '·'), STATUS_COLOURS.get(status), self.live)} {event['pipeline']}",
                     self._paint(status, STATUS_COLOURS.get(status), self.live), _rows(status, event["rows_written"]),
                     " · ".join(run["phases"]), f"({_gist(note)})" if note else ""]  # whole in the table
            self._progress("  ".join(part for part in parts if part), final=True)
        elif kind in ("PhaseStarted", "PhaseFinished") and self.live:
            current = f"{PHASE_NAMES.get(event['phase'], event['phase'])}…" if kind == "PhaseStarted" else ""
            self._progress(f"▸ {run['pipeline']}  {' · '.join([*run['phases'], current]).strip(' ·')}", final=False)

    def _progress(self, line: str, final: bool) -> None:
        if self.live:  # one line a pipeline, redrawn in place while it runs
            self.err.write("\r\x1b[K" + line + ("\n" if final else ""))
        elif final:
            self.err.write(line + "\n")
        self.err.flush()

    # -- results on stdout -------------------------------------------------------------------
    def _result(self, result: dict[str, Any]) -> None:
        if not result.get("ok"):
            self.err.write(f"{self._paint('error', '31', self.live)}: {result.get('error')}\n")
        if result.get("cmd") is None:
            return
        fields = {key: value for key, value in result.items() if key not in RESULT_KEYS}
        if result.get("ok") and not any(value not in (None, [], {}) for value in fields.values()):
            self.out.write(f"{self._paint('ok', '32')}: {result['cmd']}\n")
        if "run" in fields:
            fields["runs"] = [fields.pop("run")] + fields.pop("runs", [])
        if "columns" in fields and "rows" in fields:  # a query's rows: NULL is not an empty string
            self._table(fields.pop("columns"), fields.pop("rows"), null="NULL")
        for key, value in fields.items():
            if key == "runs" and value:
                self._runs_table(value, str(result.get("error") or ""))
            elif key == "tests" and any("missing" in item for item in value):
                self._unit_tests(value)
            elif key == "sample" and value and all(isinstance(item, dict) and "change" in item for item in value):
                self._row_changes(value, fields.get("key") or [])
            elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
                self._records(key, value)
            elif isinstance(value, str) and "\n" in value:
                self.out.write(f"{key}:\n{_block(value)}")
            elif isinstance(value, dict) and value and all(not isinstance(v, dict) for v in value.values()):
                self._mapping(key, value)
            elif value not in (None, [], {}):
                self.out.write(f"{key}: {_cell(value, None)}\n")
        self.out.flush()

    def _mapping(self, key: str, value: dict[str, Any]) -> None:
        """A flat mapping (what `purge` counted, and the items behind each count) a line an entry; empty
        lists left out, and the whole left out when every entry is one."""
        entries = {name: item for name, item in value.items() if item != []}
        if entries:
            self.out.write(f"{key}:\n")
            self.out.writelines(f"  {name}: {_cell(item, None)}\n" for name, item in entries.items())

    def _runs_table(self, runs: list[dict[str, Any]], said: str = "") -> None:
        """A run's error is cut where the command's error line above said it whole (once on a terminal). Its notes
        (what reading its files said, often several of a few hundred characters each: joined on one line they
        ran past 1,000) show as the first note's start in the table, then whole under it, a line each."""
        rows = [[r.get("run_id"), r.get("pipeline"), r.get("status"), _rows(r.get("status"), r.get("rows_written"), ""),
                 _seconds(r),
                 (_gist(r["error"]) if r["error"] in said else r["error"]) if r.get("error") else _notes_cell(_said(r))]
                for r in runs]
        self._table(["run", "pipeline", "status", "rows", "time", "note"], rows, status_column=2)
        for run in runs:
            notes = [] if run.get("error") else _said(run)
            if _notes_cell(notes) != "; ".join(notes):
                self.out.write(f"notes of run {run.get('run_id')} ({run.get('pipeline')}):\n")
                self.out.writelines(f"  - {note}\n" for note in notes)

    def _unit_tests(self, tests: list[dict[str, Any]]) -> None:
        """Unit tests as a table, then each failed one's rows whole (a cell cut the value that differed)
        and, per expected row, the columns in which the closest row it got differs."""
        self._records("tests", [{k: v for k, v in t.items() if k not in ("missing", "unexpected")} for t in tests])
        for test in tests:
            missing, unexpected = test.get("missing") or [], test.get("unexpected") or []
            if not (missing or unexpected):
                continue
            self.out.write(f"{test['pipeline']} {test['name']}:\n")
            self.out.writelines(f"  expected, missing:  {_cell(row, None)}\n" for row in missing)
            self.out.writelines(f"  got, unexpected:    {_cell(row, None)}\n" for row in unexpected)
            for want in missing:
                got = max(unexpected, key=lambda row: _same_values(want, row), default=None)
                if got is not None and _same_values(want, got):
                    self.out.writelines(f"  {name}: expected {want.get(name)!r}, got {got.get(name)!r}\n"
                                        for name in dict.fromkeys([*want, *got]) if want.get(name) != got.get(name))

    def _row_changes(self, sample: list[dict[str, Any]], key: list[str]) -> None:
        """A diff's rows whole (a table's cells cut them, and the value that changed with them): an added or
        removed row on its line, a changed one by its key (else its unchanged values), then each value it changed."""
        self.out.write("sample:\n")
        for item in sample:
            old, new = item.get("old") or {}, item.get("new") or {}
            if not (old and new):
                self.out.write(f"  {item['change']:<8} {_cell(new or old, None)}\n")
                continue
            names = list(dict.fromkeys([*old, *new]))
            kept = {n: new[n] for n in names if (n in key if key else old.get(n) == new.get(n)) and n in new}
            self.out.write(f"  {item['change']:<8} {_cell(kept, None)}\n")
            self.out.writelines(f"    {n}: {old.get(n)!r} → {new.get(n)!r}\n" for n in names if old.get(n) != new.get(n))

    def _records(self, key: str, items: list[dict[str, Any]]) -> None:
        names = list(dict.fromkeys(name for item in items for name in item))
        blocks = [n for n in names if any(isinstance(item.get(n), str) and "\n" in item[n] for item in items)]
        if blocks:  # a diff, say: each record's other values on a line, then its text as it is
            self.out.write(f"{key}:\n")
            for item in items:
                self.out.write(self._paint("  ".join(_cell(item.get(n), None) for n in names if n not in blocks), "1")
                               + "\n")
                self.out.writelines(_block(item.get(n) or "") for n in blocks)
            return
        # a sentence (a tick's reason, a run's error) last, where it is printed whole
        names = [n for n in names if n not in SENTENCES] + [n for n in names if n in SENTENCES]
        status = names.index("status") if "status" in names else None
        self.out.write(f"{key}:\n")
        rows = [[_for_people(name, item.get(name)) for name in names] for item in items]
        self._table([AGES.get(name, name) for name in names], rows, status_column=status)

    def _table(self, columns: list[str], rows: list[list[Any]], status_column: int | None = None,
               null: str = "") -> None:
        """The last column is printed whole (it is where a sentence goes); the others are cut at CELL_WIDTH.
        `null`: what a missing value shows as."""
        last = len(columns) - 1
        cells = [[null if value is None else _cell(value, None if i == last else CELL_WIDTH)
                  for i, value in enumerate(row)] for row in rows]
        nulls = {(r, i) for r, row in enumerate(rows) for i, value in enumerate(row) if value is None and null}
        widths = [max([len(name), *(len(row[i]) for row in cells)]) for i, name in enumerate(columns)]
        self.out.write(self._paint("  ".join(n.ljust(w) for n, w in zip(columns, widths)).rstrip(), "1") + "\n")
        for r, row in enumerate(cells):
            line = []
            for i, (value, width) in enumerate(zip(row, widths)):
                padded = value.ljust(width)
                code = STATUS_COLOURS.get(value) if i == status_column else "2;3" if (r, i) in nulls else None
                line.append(self._paint(padded, code) if code else padded)
            self.out.write("  ".join(line).rstrip() + "\n")
        if not rows:
            self.out.write("(no rows)\n")

    def _paint(self, text: str, code: str | None, on: bool | None = None) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if code and (self.colour if on is None else on) else text


def _cell(value: Any, width: int | None = CELL_WIDTH) -> str:
    if value is None:
        return ""
    if isinstance(value, list) and all(not isinstance(item, (dict, list)) for item in value):
        text = ", ".join(_cell(item) for item in value)
    elif isinstance(value, (dict, list)):
        text = json.dumps(value, default=str, ensure_ascii=False)  # Zoë, not Zo\u00eb
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if width is None or len(text) <= width else text[:width - 1] + "…"


# Where an error sentence says it happened: `ns/pipelines/gold/x/pipeline.sql: ` or `….sql:3: `.
_WHERE = re.compile(r"^\S+\.(?:sql|py|yaml|yml|csv|json)(?::\d+)?: ")


def _rows(status: str | None, written: Any, unit: str = " rows") -> str:
    """The rows a run wrote, where they count: a failed or cancelled run's went to its branch, which is gone
    (a failed run once listed 4 rows, though nothing reached main)."""
    return f"{written}{unit}" if status in ("success", "awaiting_review") and written is not None else "–"


def _gist(sentence: str) -> str:
    """A sentence cut to a cell after its file is left out (it is printed whole elsewhere): a cut of a whole
    sentence kept only its path (`shop/pipelines/gold/revenue_by_region/pipeline.…`)."""
    return _cell(_WHERE.sub("", sentence))


def _block(text: str) -> str:
    """A text of several lines (a diff) as it is, ending its last line."""
    return text if text.endswith("\n") else text + "\n"


def _for_people(name: str, value: Any) -> Any:
    """Seconds as an age (`7h 12m`), a moment (`…_at`, seconds since 1970) as local time."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if name in AGES:
        return age_label(value)
    if name.endswith("_at"):
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(value))
    return value


def _same_values(a: dict[str, Any], b: dict[str, Any]) -> int:
    return sum(1 for name, value in a.items() if name in b and b[name] == value)


def _ms(ms: int) -> str:
    return f"{ms} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def _seconds(run: dict[str, Any]) -> str:
    started, finished = run.get("started_at"), run.get("finished_at")
    return f"{finished - started:.1f} s" if started and finished else ""


def _said(run: dict[str, Any]) -> list[str]:
    """A run's note and what its reading said (`zip kept as text…`, `1.500,25 read as 1500.25`), each after the file
    and line it is about: a green run that changed how a file was read says so in the shell too, not only in --json
    and the TUI."""
    notes = [n if isinstance(n, dict) else {"text": n} for n in run.get("notes") or []]
    # a warn-severity test that failed lets the run succeed: said here, or only --json showed it
    warned = [f"quality test {q.get('name')} warned ({q.get('violations')} violation"
              f"{'' if q.get('violations') == 1 else 's'})" for q in run.get("quality") or [] if q.get("status") == "warned"]
    note = run.get("note")  # often a note's text too: said once, with its file
    if any(n.get("text") == note for n in notes):
        note = None
    return list(dict.fromkeys(str(n) for n in (*warned, note, *(_where(n) + str(n.get("text")) for n in notes)) if n))


def _where(note: dict[str, Any]) -> str:
    """`shop/landing/sales/a.csv:3: `, for a note about one file (and line): RunNote.as_dict's `file`."""
    file, line = note.get("file"), note.get("line")
    return f"{file}{f':{line}' if line else ''}: " if file else ""


def _notes_cell(notes: list[str]) -> str:
    """The table's cell for a run's notes: all of them when they are short, else the first's start and how many."""
    joined = "; ".join(notes)
    if len(joined) <= NOTE_CELL:
        return joined
    more = f" (+{len(notes) - 1} more below)" if len(notes) > 1 else " (whole below)"
    return _cell(notes[0], NOTE_CELL - len(more)) + more
