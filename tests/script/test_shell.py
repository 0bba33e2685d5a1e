"""Shell commands (`rat-tui run NAME`, `rat-tui query …`) and `rat-tui init`: a project found as git finds a
repository, output for people (or --json), exit codes 0 ok / 1 failed / 2 misuse."""
from __future__ import annotations

import io
import os
import json
import time
import subprocess
import sys
from pathlib import Path

import pytest

from rat_tui.cli import main
from rat_tui.script.human import HumanOutput
from tests.helpers import run_cli_here, run_script_here


def test_misuse_exits_2_with_the_parsers_sentence(tmp_path: Path, capsys: pytest.CaptureFixture):
    assert main(["init", str(tmp_path / "p")]) == 0
    capsys.readouterr()
    assert main(["run", "-p", str(tmp_path / "p")]) == 2
    assert capsys.readouterr().err == "rat-tui run: the following arguments are required: pipeline\n"
    assert main(["query", "-p", str(tmp_path / "p")]) == 2
    assert capsys.readouterr().err == "rat-tui query: query needs SQL after the command, as in: query SELECT 1\n"
    assert main(["frob"]) == 2  # not a command, and no folder of that name: neither, and no TUI on it
    assert capsys.readouterr().err == ("rat-tui: frob is neither a command nor a folder; rat-tui --help lists the "
                                       "commands, and rat-tui init frob makes a project there\n")
    assert main(["biuld"]) == 2
    assert "biuld is neither a command nor a folder; did you mean `build`?" in capsys.readouterr().err
    assert main(["ls", "-p", str(tmp_path)]) == 2  # no rat.yaml there or above
    assert capsys.readouterr().err == (f"rat-tui ls: no rat.yaml in {tmp_path} or any folder above it; run inside a "
                                       f"project, pass -p DIR, or make one with: rat-tui init DIR\n")


def test_the_project_is_found_from_a_folder_inside_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture):
    assert main(["init", str(tmp_path / "p")]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path / "p" / "shop" / "landing" / "orders")
    assert main(["ls", "--json", "--no-attach"]) == 0
    [result] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert result["namespaces"] == [{"name": "shop", "pipelines": ["shop.bronze.orders"], "zones": ["orders"]}]


def test_init_refuses_a_folder_that_holds_a_project(tmp_path: Path, capsys: pytest.CaptureFixture):
    (tmp_path / "rat.yaml").write_text("spark: {}\n")
    assert main(["init", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"rat-tui: {tmp_path} already holds a project (it has a rat.yaml); nothing was written\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rat.yaml"]


# a cut sentence leaves its file out (the error line gives it whole): a cut once kept only a pipeline's path
CUT = "query failed: '2024-13-45' in column day at s/l…"
WHY = ("a.sql: query failed: '2024-13-45' in column day at s/landing/d/b.csv line 3 cannot be cast to DATE; "
       "fix the file, or cast with try_cast to read such values as NULL")


def test_human_output_is_a_table_and_a_progress_line_per_pipeline():
    out, err = io.StringIO(), io.StringIO()
    human = HumanOutput(out, err)
    lines = [
        {"event": "RunStarted", "run_id": "a1", "pipeline": "shop.bronze.orders", "version": "draft", "at": 1.0},
        {"event": "PhaseFinished", "run_id": "a1", "phase": "build_result", "ms": 1234, "ok": True, "at": 2.0},
        {"event": "PhaseFinished", "run_id": "a1", "phase": "iceberg_write", "ms": 56, "ok": True, "at": 2.1},
        {"event": "RunFinished", "run_id": "a1", "pipeline": "shop.bronze.orders", "status": "success",
         "rows_written": 4, "error": None, "snapshot_id": 7, "at": 3.0},
        {"line": 1, "cmd": "run", "ok": True, "run": {"run_id": "a1", "pipeline": "shop.bronze.orders",
                                                      "status": "success", "rows_written": 4, "started_at": 1.0,
                                                      "finished_at": 3.5, "error": None, "notes": [
                                                          {"kind": "kept_as_text", "text": "zip kept as text"},
                                                          {"kind": "title", "text": "title line not loaded"}],
                                                      "note": "zip kept as text"}},
        {"line": 2, "cmd": "query", "ok": False, "error": "SQL error: no such table", "columns": ["n"], "rows": []},
        {"event": "RunStarted", "run_id": "b2", "pipeline": "shop.bronze.days", "version": "draft", "at": 4.0},
        {"event": "RunFinished", "run_id": "b2", "pipeline": "shop.bronze.days", "status": "failed",
         "rows_written": 0, "error": WHY, "snapshot_id": None, "at": 5.0},
        {"line": 3, "cmd": "run", "ok": False, "error": f"run b2 of shop.bronze.days failed: {WHY}",
         "run": {"run_id": "b2", "pipeline": "shop.bronze.days", "status": "failed", "rows_written": 0,
                 "started_at": 4.0, "finished_at": 5.0, "error": WHY}},
    ]
    human.write("".join(json.dumps(line) + "\n" for line in lines))
    # a failed run's sentence once whole (on the error line), cut on its progress line and in the table
    assert err.getvalue() == ("✓ shop.bronze.orders  success  4 rows  build 1.2 s · write 56 ms\n"
                              "error: SQL error: no such table\n"
                              f"✗ shop.bronze.days  failed  –  ({CUT})\n"
                              f"error: run b2 of shop.bronze.days failed: {WHY}\n")
    assert out.getvalue() == ("run  pipeline            status   rows  time   note\n"
                              "a1   shop.bronze.orders  success  4     2.5 s  zip kept as text; title line not loaded\n"
                              "n\n(no rows)\n"
                              "run  pipeline          status  rows  time   note\n"
                              f"b2   shop.bronze.days  failed  –     1.0 s  {CUT}\n")


@pytest.mark.spark
def test_init_writes_a_project_that_builds_and_tests_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = tmp_path / "new"
    made = run_cli_here("init", str(root))
    assert made.returncode == 0, made.stderr
    # the shell commands in this process, from the folders a user types them in (the session's JVM)
    monkeypatch.chdir(root)
    build = run_cli_here("build")
    assert build.returncode == 0, build.stderr
    assert build.stdout.splitlines()[0].split() == ["run", "pipeline", "status", "rows", "time", "note"]
    assert build.stdout.splitlines()[1].split()[1:4] == ["shop.bronze.orders", "success", "4"]
    assert build.stderr.startswith("✓ shop.bronze.orders  success  4 rows  branch ")
    monkeypatch.chdir(root / "shop")
    tested = run_cli_here("test")
    assert tested.returncode == 0, tested.stderr
    assert "shop.bronze.orders  types_the_rows  passed" in tested.stdout
    query = run_cli_here("query", "SELECT order_id, customer, amount, CAST(order_date AS STRING) AS d, _source_file "
                         "FROM shop.bronze.orders ORDER BY order_id", "-p", str(root), "--json")
    assert query.returncode == 0, query.stderr
    [result] = [json.loads(line) for line in query.stdout.splitlines()]
    assert result["rows"] == [[1, "Ada", "19.90", "2024-01-02", "orders_2024_01.csv"],
                              [2, "Grace", "5.00", "2024-01-03", "orders_2024_01.csv"],
                              [3, "Alan", "42.50", "2024-01-03", "orders_2024_01.csv"],
                              [4, "Ada", "7.25", "2024-01-05", "orders_2024_01.csv"]]
    monkeypatch.chdir(root)
    failed = run_cli_here("rollback", "shop.bronze.orders")  # a command that fails (a name it lacks is misuse)
    assert failed.returncode == 1
    assert failed.stderr == "error: shop.bronze.orders has no published version to roll back\n"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch):
    finished = {"event": "RunFinished", "run_id": "a1", "pipeline": "shop.bronze.orders", "status": "failed",
                "rows_written": 0, "error": "boom", "snapshot_id": None, "at": 3.0}
    started = {"event": "RunStarted", "run_id": "a1", "pipeline": "shop.bronze.orders", "version": "draft", "at": 1.0}
    text = "".join(json.dumps(e) + "\n" for e in (started, finished))
    out, err = _Terminal(), _Terminal()
    HumanOutput(out, err).write(text)
    assert err.getvalue() == "\r\x1b[K\x1b[31m✗\x1b[0m shop.bronze.orders  \x1b[31mfailed\x1b[0m  –  (boom)\n"
    # a cold start: a line while Spark starts (a command printed nothing for 6 s), cleared once it is ready
    out, err = _Terminal(), _Terminal()
    HumanOutput(out, err).write("".join(json.dumps({"event": "SessionStateChanged", "state": s, "at": 1.0}) + "\n"
                                        for s in ("starting", "ready")))
    assert err.getvalue() == "\r\x1b[K▸ starting Spark…\r\x1b[K"
    monkeypatch.setenv("NO_COLOR", "1")
    out, err = _Terminal(), _Terminal()
    HumanOutput(out, err).write(text)
    assert err.getvalue() == "✗ shop.bronze.orders  failed  –  (boom)\n"


def test_a_shell_command_imports_no_engine_library_before_it_knows_it_needs_one():
    """An attached `rat-tui query …` is a short process (0.3 s on a quiet machine): Spark, Textual, sqlglot,
    DuckDB and the cron libraries load only in the process that runs the command, never in the client."""
    probe = ("import sys, rat_tui.cli, rat_tui.script.attach; "
             "print(' '.join(sorted({m.split('.')[0] for m in sys.modules} & "
             "{'pyspark', 'textual', 'sqlglot', 'duckdb', 'cronsim', 'pyiceberg', 'pyarrow', 'pandas'})))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}).stdout.split()
    assert loaded == []


def test_a_bad_time_or_range_is_misuse_naming_the_option_and_value(tmp_path: Path, capsys: pytest.CaptureFixture):
    assert main(["init", str(tmp_path / "p")]) == 0
    capsys.readouterr()
    project = ["-p", str(tmp_path / "p")]
    cases = {
        ("freshness", "--at", "yesterday"): "freshness: argument --at: 'yesterday' is not an ISO 8601 time such as "
                                            "2025-10-26T06:00:00Z",
        ("tick", "--at", "2025-13-01"): "tick: argument --at: '2025-13-01' is not an ISO 8601 time such as "
                                        "2025-10-26T06:00:00Z",
        ("backfill", "shop.bronze.orders", "--start", "2024-02-01", "--end", "2024-01-01"):
            "backfill: --start 2024-02-01 is not before --end 2024-01-01 (the end is exclusive)",
        ("backfill", "shop.bronze.orders", "--start", "Jan 1", "--end", "2024-01-01"):
            "backfill: argument --start: 'Jan 1' is not a date or time like 2024-01-01 or 2024-01-01T06:00:00Z",
        ("intervals", "shop.bronze.orders", "--end", "2024-01-32"):
            "intervals: argument --end: '2024-01-32' is not a date or time like 2024-01-01 or 2024-01-01T06:00:00Z",
        # a new user's: `diff` without its two snapshots exited 1, as if the tables had failed it
        ("diff", "shop.bronze.orders"): "diff: needs two snapshot ids (diff NS.LAYER.NAME OLD NEW) or --run RUN_ID",
        ("diff", "shop.bronze.orders", "1", "--run", "abc"):
            "diff: takes either two snapshot ids or --run RUN_ID, not both",
    }
    for words, sentence in cases.items():
        assert main([*words, *project]) == 2, words
        # the shell names the command once (`rat-tui freshness: freshness: …` said it twice)
        assert capsys.readouterr().err == f"rat-tui {words[0]}: {sentence.removeprefix(words[0] + ': ')}\n"
    # in a script, the same sentence fails its line (exit 1), and the script stops there
    status, results, _ = run_script_here(tmp_path / "p", "freshness --at yesterday\nls\n")
    assert status == 1 and len(results) == 1
    assert (results[0]["ok"], results[0]["error"]) == (False, cases[("freshness", "--at", "yesterday")])


def test_human_tables_print_ages_for_people_and_sentences_last_and_whole():
    out, err = io.StringIO(), io.StringIO()
    reason = ("cooldown: the pipeline ran at 2025-10-26T06:00:00Z, less than the cooldown of 1h before this tick; "
              "it runs at the next tick after 2025-10-26T07:00:00Z")
    lines = [
        {"line": 1, "cmd": "freshness", "ok": True, "freshness": [
            {"pipeline": "shop.bronze.orders", "age_s": 25_920.5, "status": "warn"},
            {"pipeline": "shop.bronze.unbuilt", "age_s": None, "status": "never"}]},
        {"line": 2, "cmd": "ticks", "ok": True, "ticks": [
            {"pipeline": "shop.bronze.orders", "outcome": "skipped", "reason": reason, "run_id": None}]},
    ]
    HumanOutput(out, err).write("".join(json.dumps(line) + "\n" for line in lines))
    assert out.getvalue().splitlines() == [
        "freshness:",
        "pipeline             age     status",
        "shop.bronze.orders   7h 12m  warn",
        "shop.bronze.unbuilt          never",
        "ticks:",
        "pipeline            outcome  run_id  reason",
        f"shop.bronze.orders  skipped          {reason}",
    ]


def test_a_failed_unit_test_prints_its_rows_whole_and_the_column_that_differs():
    """The table cut `missing` at 48 characters, before the value that differed."""
    out = io.StringIO()
    want = {"order_id": 2, "customer": "Grace Hopper the Admiral of the Navy", "amount": "5.00"}
    got = {"order_id": 2, "customer": "Grace", "amount": "5.00"}
    HumanOutput(out, io.StringIO()).write(json.dumps(
        {"line": 1, "cmd": "test", "ok": False, "error": "1 of 1 unit test(s) did not pass", "tests": [
            {"pipeline": "s.bronze.o", "name": "types", "status": "failed", "missing": [want], "unexpected": [got],
             "error": "types.yaml: 1 expected row(s) missing, 1 unexpected row(s)"}]}) + "\n")
    assert out.getvalue().splitlines()[-4:] == [
        "s.bronze.o types:",
        '  expected, missing:  {"order_id": 2, "customer": "Grace Hopper the Admiral of the Navy", "amount": "5.00"}',
        '  got, unexpected:    {"order_id": 2, "customer": "Grace", "amount": "5.00"}',
        "  customer: expected 'Grace Hopper the Admiral of the Navy', got 'Grace'"]


def test_moments_print_as_local_time_not_seconds_since_1970():
    out = io.StringIO()
    HumanOutput(out, io.StringIO()).write(json.dumps({"line": 1, "cmd": "lineage", "ok": True, "nodes": [
        {"name": "s.bronze.o", "last_status": "success", "last_run_at": 1795750474.37}]}) + "\n")
    local = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(1795750474.37))
    assert f"s.bronze.o  success      {local}" in out.getvalue(), out.getvalue()


def test_a_querys_null_is_not_an_empty_string_and_sentences_and_diffs_print_whole():
    """Found by a new user: `query` printed NULL and '' alike, a `publish` or `rollback-table` sentence was cut at
    48 characters, and `version-diff` printed its diff on one line."""
    out = io.StringIO()
    sentence = "main of shop.silver.orders is snapshot 123456789 again (rolled back from 987654321); 3 tables read it"
    diff = "--- v1/pipeline.sql\n+++ working/pipeline.sql\n@@ -1 +1 @@\n-SELECT 1 AS id\n+SELECT 2 AS id\n"
    HumanOutput(out, io.StringIO()).write("".join(json.dumps(line) + "\n" for line in [
        {"line": 1, "cmd": "query", "ok": True, "columns": ["id", "name"], "rows": [[1, None], [2, ""]]},
        {"line": 2, "cmd": "rollback-table", "ok": True, "note": sentence},
        {"line": 3, "cmd": "version-diff", "ok": True, "files": [{"path": "pipeline.sql", "diff": diff}]},
    ]))
    terminal = _Terminal()
    HumanOutput(terminal, _Terminal()).write(json.dumps(
        {"line": 1, "cmd": "query", "ok": True, "columns": ["v"], "rows": [[None], ["NULL"]]}) + "\n")
    assert terminal.getvalue().splitlines()[1:] == ["\x1b[2;3mNULL\x1b[0m", "NULL"]  # on a terminal: NULL is dim
    assert out.getvalue().splitlines() == [
        "id  name", "1   NULL", "2",
        f"note: {sentence}",
        "files:", "pipeline.sql", *diff.splitlines()]


def test_a_commands_help_says_what_it_does_and_what_each_option_means(capsys: pytest.CaptureFixture):
    """`rat-tui run --help` printed its usage line alone."""
    from rat_tui.script.shell import shell_commands

    assert main(["run", "--help"]) == 0
    text = capsys.readouterr().out
    assert "Run a pipeline on its own branch; main moves only when its quality tests pass." in text
    assert "--full-refresh  rebuild the table from the query" in text
    assert "--published     run the current published version, not the working copy" in text
    assert main(["query", "--help"]) == 0
    assert "SQL…: the rest of the line, as in: rat-tui query SELECT 1" in capsys.readouterr().out
    for name in shell_commands():  # a command added later says what it does too
        assert main([name, "--help"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].startswith(f"usage: rat-tui {name}") and lines[2].strip(), (name, lines)


def test_a_pipeline_the_project_does_not_have_is_misuse(tmp_path: Path, capsys: pytest.CaptureFixture):
    """`rat-tui test nonexistent.x.y` exited 1, as if the tests had run and failed; a history stays readable."""
    assert main(["init", str(tmp_path / "p")]) == 0
    capsys.readouterr()
    project = ["-p", str(tmp_path / "p")]
    assert main(["test", "nonexistent.x.y", *project]) == 2
    assert capsys.readouterr().err == ("rat-tui test: no pipeline nonexistent.x.y: folder nonexistent/pipelines/x/y "
                                       "does not exist\n")
    assert main(["run", "shop.bronze.ordrs+", *project]) == 2
    assert "did you mean `shop.bronze.orders`?" in capsys.readouterr().err
    assert main(["runs", "shop.bronze.gone", *project]) == 0  # the runs of a pipeline since removed
    capsys.readouterr()
    assert main(["build", "shop.bronze.orders+", *project]) == 2  # build takes namespaces: it exited 1
    assert capsys.readouterr().err == ("rat-tui build: no pipelines in namespace shop.bronze.orders+ (namespaces: "
                                       "shop); build takes namespaces: run a selector with run 'shop.bronze.orders+'\n")


def test_a_diffs_rows_print_whole_with_each_value_that_changed():
    """Found by a new user: `diff --run` printed its sample as a table of cells cut at 48 characters, so the old
    row's value that changed was cut away; and a row's text as JSON escapes (`Zo\\u00eb`)."""
    out = io.StringIO()
    ada = {"order_id": 3, "customer": "Zoë Lovelace of the Analytical Engine", "amount": "7.00"}
    old = {"order_id": 2, "customer": "Grace Hopper the Admiral of the Navy", "amount": "5.00"}
    HumanOutput(out, io.StringIO()).write(json.dumps(
        {"line": 1, "cmd": "diff", "ok": True, "added": 1, "removed": 0, "changed": 1, "columns": {"amount": 1},
         "sample": [{"change": "added", "old": None, "new": ada},
                    {"change": "changed", "old": old, "new": {**old, "amount": "6.00"}}],
         "key": ["order_id"], "old_rows": 2}) + "\n")
    lines = out.getvalue().splitlines()
    at = lines.index("sample:")
    assert lines[at + 1:at + 4] == [
        '  added    {"order_id": 3, "customer": "Zoë Lovelace of the Analytical Engine", "amount": "7.00"}',
        '  changed  {"order_id": 2}',
        "    amount: '5.00' → '6.00'"], out.getvalue()


def test_purges_counts_print_a_line_each_and_empty_lists_not_at_all():
    """Found by a new user: `purge` printed its counts and items as JSON dicts on one line each."""
    out = io.StringIO()
    HumanOutput(out, io.StringIO()).write(json.dumps(
        {"line": 1, "cmd": "purge", "ok": True, "purged": {"processed_files": 2, "orphan_branches": 0},
         "items": {"processed_files": ["a.csv", "b.csv"], "orphan_branches": []}, "dry_run": True}) + "\n")
    assert out.getvalue().splitlines() == [
        "purged:", "  processed_files: 2", "  orphan_branches: 0", "items:", "  processed_files: a.csv, b.csv",
        "dry_run: True"], out.getvalue()


def test_publishing_a_query_that_does_not_parse_warns_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture):
    """Found by a new user: `publish` took `SELEC broken FROM` without a word; every run of that version then
    failed. Without Spark (publish starts none) the query is read as Spark SQL by sqlglot, which is no Spark: it
    warns, and never refuses by that alone."""
    assert main(["init", str(tmp_path / "p")]) == 0
    project = ["-p", str(tmp_path / "p")]
    assert main(["publish", "shop.bronze.orders", *project, "--json"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert first["ok"] and first["version"] == 1 and first["warning"] is None
    source = tmp_path / "p" / "shop" / "pipelines" / "bronze" / "orders" / "pipeline.sql"
    lines = source.read_text().splitlines()
    source.write_text("\n".join([*lines, "SELEC broken FROM"]) + "\n")
    assert main(["publish", "shop.bronze.orders", *project]) == 0
    said = capsys.readouterr().out
    assert "version: 2" in said
    assert (f"warning: shop/pipelines/bronze/orders/pipeline.sql:{len(lines) + 1}: the query does not parse as "
            "Spark SQL (") in said, said


def test_output_its_reader_stopped_taking_ends_quietly():
    """`rat-tui run --help | head -1` printed a BrokenPipeError traceback: the reader had closed the pipe."""
    read, write = os.pipe()
    os.close(read)  # the reader has gone before a byte is written, as `head` goes after its lines
    try:
        done = subprocess.run([sys.executable, "-m", "rat_tui.cli", "run", "--help"], stdout=write, stderr=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    finally:
        os.close(write)
    assert done.stderr == "" and done.returncode == 1, done.stderr


def test_a_warned_quality_test_shows_in_the_runs_note_and_init_quotes_a_folder_with_spaces(
        tmp_path: Path, capsys: pytest.CaptureFixture):
    """Found by a new user: a failed warn-severity test left the run `success 9` with an empty note (only --json
    said `warned`), and `init "My Project"` suggested `cd …/My Project`, which fails as pasted."""
    out = io.StringIO()
    HumanOutput(out, io.StringIO()).write(json.dumps({"line": 1, "cmd": "run", "ok": True, "run": {
        "run_id": "1a2b3c4d", "pipeline": "s.bronze.o", "status": "success", "rows_written": 9,
        "quality": [{"name": "no_big_orders", "severity": "warn", "status": "warned", "violations": 1},
                    {"name": "ids", "severity": "error", "status": "passed", "violations": 0}]}}) + "\n")
    assert out.getvalue().splitlines()[1].endswith("quality test no_big_orders warned (1 violation)"), out.getvalue()
    assert main(["init", str(tmp_path / "My Project")]) == 0
    assert f"try: cd '{tmp_path / 'My Project'}' && rat-tui build" in capsys.readouterr().err


def test_a_runs_notes_print_a_line_each_under_the_table_with_their_file_and_line():
    """Found by a new user: `rat-tui run` printed a run's notes joined by `; `, one line of over 1,000 characters."""
    out = io.StringIO()
    long = "sales.csv: amount read with a decimal comma (12,05 as 12.05); " + "x" * 120
    HumanOutput(out, io.StringIO()).write(json.dumps({"line": 1, "cmd": "run", "ok": True, "run": {
        "run_id": "1a2b3c4d", "pipeline": "s.bronze.o", "status": "success", "rows_written": 9, "notes": [
            {"kind": "decimal_comma", "text": long, "file": "s/landing/sales/a.csv", "line": 2},
            {"kind": "duplicate_keys", "text": "1 row(s) of the batch repeat the id of a later row", "file": None}],
        "note": long},
        "runs": [{"run_id": "9f9f9f9f", "pipeline": "s.silver.p", "status": "success", "rows_written": 3,
                  "notes": [{"kind": "x", "text": "one short note"}]}]}) + "\n")
    lines = out.getvalue().splitlines()
    assert lines[1].endswith("(+1 more below)") and len(lines[1]) < 160, out.getvalue()
    assert lines[2].endswith("  one short note")  # a run of one short note keeps it in the table, whole
    assert lines[3:] == ["notes of run 1a2b3c4d (s.bronze.o):", f"  - s/landing/sales/a.csv:2: {long}",
                         "  - 1 row(s) of the batch repeat the id of a later row"]
