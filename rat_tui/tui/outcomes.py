"""What an action did, as one sentence for the toast and the log panel (never a raw dict)."""
from __future__ import annotations

from ..core.commands.browse_results import FileSample, QueryResult
from ..core.commands.landing_results import UploadResult
from ..core.commands.unit_results import FixtureWritten, UnitTestReport
from ..core.events import RunFinished
from ..core.lake.diff import TableDiff
from ..core.store.state import RunRecord
from ..core.text import count
from ..core.upkeep.doctor import Finding

PURGE_LABELS = {  # singular, plural
    "processed_files": ("processed landing file", "processed landing files"),
    "bucket_processed_files": ("processed landing file in the bucket", "processed landing files in the bucket"),
    "snapshots_expired": ("expired snapshot", "expired snapshots"),
    "orphan_files": ("orphan file", "orphan files"),
    "orphan_branches": ("orphan run branch", "orphan run branches"),
    "stuck_runs": ("stuck run", "stuck runs"),
    "file_versions": ("old file version", "old file versions"),
}


TOAST_CHARS = 160  # a toast of more covers the screen; the panels show the whole


def glimpse(sentence: str, width: int = 48) -> str:
    """The start of a sentence for a one-line cell, ending in … when there is more."""
    return sentence if len(sentence) <= width else sentence[:width - 1].rstrip() + "…"


def toast(sentence: str, where: str) -> str:
    """A sentence short enough for a toast; a longer one is cut and says `where` the whole is."""
    return sentence if len(sentence) <= TOAST_CHARS else f"{glimpse(sentence, TOAST_CHARS)} (the whole in {where})"


def run_outcome(event: RunFinished, log_key: str) -> tuple[str, str]:
    """A finished run's toast and its severity: its error, else its note (nothing new), else the rows it wrote."""
    severity = {"success": "information", "cancelled": "warning", "awaiting_review": "warning"}.get(event.status, "error")
    if event.error:
        return toast(event.error, f"the Run tab and the log ({log_key})"), severity
    if event.status == "awaiting_review":  # on its branch: nothing reached main yet
        return f"{count(event.rows_written, 'row')} held for review", severity
    return event.note or f"{count(event.rows_written, 'row')} written", severity


def join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def purge_total(counts: dict[str, int]) -> int:
    return sum(counts.values())


def purged(counts: dict[str, int]) -> str:
    parts = [count(n, *PURGE_LABELS.get(key, (key, key))) for key, n in counts.items() if n]
    return f"Purged {join(parts)}." if parts else "Purge: nothing to purge."


def uploaded(result: UploadResult, namespace: str, zone: str) -> str:
    files = result.files
    names = join([f"{f.name} ({count(f.bytes, 'byte', 'bytes')})" for f in files]) if files else "nothing"
    typed = f" Typed {count(len(result.typed), 'CSV file', 'CSV files')} as Parquet for faster runs." \
        if result.typed else ""
    untyped = "".join(f" {f.reason}; runs read it as CSV." for f in result.not_typed)
    return f"Uploaded {names} into {namespace}/{zone}.{typed}{untyped}"


def doctor(findings: list[Finding]) -> str:
    if not findings:
        return "Doctor: no inconsistencies found."
    return f"Doctor: {count(len(findings), 'finding', 'findings')}; first: {findings[0].kind} {findings[0].object}."


def diffed(fqn: str, diff: TableDiff, what: str, old: int | None, new: int) -> str:
    return (f"{fqn}: {what}, snapshot {old or '(none)'} → {new}: "
            f"+{count(diff.added, 'row')}, -{count(diff.removed, 'row')}, ~{count(diff.changed, 'row')} changed.")


def rows_shown(what: str, result: QueryResult | FileSample) -> str:
    shown = f"{what}: {count(len(result.rows), 'row', 'rows')} of {count(len(result.columns), 'column', 'columns')}"
    note = result.note if isinstance(result, QueryResult) else None
    return f"{shown}; {note}." if note else f"{shown}."


def ran(title: str, runs: list[RunRecord]) -> str:
    """One sentence for a selection's outcome."""
    states: dict[str, int] = {}
    for run in runs:
        states[run.status] = states.get(run.status, 0) + 1
    sentence = f"{title}: " + ", ".join(f"{n} {status}" for status, n in states.items()) + "."
    first = next((r for r in runs if r.status not in ("success", "awaiting_review", "skipped")), None)
    return sentence + (f" First problem: {first.pipeline} {first.status}: {first.error}" if first else "")


def unit_tested(fqn: str, result: UnitTestReport) -> str:
    """All passed (a failure arrives as the command's error sentence instead)."""
    tests = result.tests
    if not tests:
        return f"{fqn} has no unit tests (tests/unit/*.yaml in its folder)."
    return f"{fqn}: {count(len(tests), 'unit test')} passed."


def fixture_written(fqn: str, result: FixtureWritten) -> str:
    test = result.test
    inputs = join([f"{label} ({count(n, 'row')})" for label, n in result.inputs.items()]) \
        if result.inputs else "no inputs"
    outcome = "passes" if test.status == "passed" else f"{test.status}: {test.error}"
    return (f"{fqn}: wrote {result.path} from {inputs} and {count(result.output_rows, 'output row')}; "
            f"it {outcome}.")
