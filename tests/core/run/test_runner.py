"""The five-phase runner on a real Spark session with real Iceberg tables on disk."""
from __future__ import annotations

import pytest

from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark

PHASES = ["branch_creation", "config_loading", "build_result", "iceberg_write", "quality_tests", "branch_resolution"]


def test_sample_bronze_and_gold_full_refresh_and_append_run_end_to_end(lake):
    raw = lake.runs.run("ecommerce.bronze.raw_orders").as_dict()["run"]
    assert raw["status"] == "success" and raw["rows_written"] == 300
    assert list(raw["phases"]) == PHASES
    products = lake.runs.run("ecommerce.bronze.raw_products").as_dict()["run"]
    assert products["rows_written"] == 40
    lake.runs.run("ecommerce.silver.clean_orders")
    gold = lake.runs.run("ecommerce.gold.daily_revenue").as_dict()["run"]
    assert [q["status"] for q in gold["quality"]] == ["passed"]
    total = lake.console.query("SELECT SUM(orders) AS n, COUNT(*) AS days FROM ecommerce.gold.daily_revenue").as_dict()["rows"][0]
    assert total[0] == 299  # the one order with a negative amount is left out
    assert lake.console.query("SELECT COUNT(*) FROM ecommerce.bronze.raw_products WHERE price > 0").as_dict()["rows"] == [[40]]
    # the samples file is never read: every row comes from a monthly file
    files = lake.console.query("SELECT DISTINCT _source_file FROM ecommerce.bronze.raw_orders ORDER BY 1").as_dict()["rows"]
    assert files == [["orders_2024_01.csv"], ["orders_2024_02.csv"], ["orders_2024_03.csv"]]


def test_error_quality_failure_leaves_main_untouched_and_drops_the_branch(scratch: Scratch):
    fqn = scratch.pipeline("silver", "numbers", "SELECT id FROM VALUES (1), (2) AS v(id)")
    first = scratch.run(fqn)
    assert first["status"] == "success"
    before = scratch.refs(fqn)
    scratch.pipeline("silver", "numbers", "SELECT id FROM VALUES (-1), (3) AS v(id)",
                     tests={"no_negative": "-- @severity: error\nSELECT * FROM {{ this }} WHERE id < 0"})
    failed = scratch.run(fqn)
    assert failed["status"] == "failed"
    assert (f"quality test no_negative failed with 1 violating row(s) ({scratch.ns}/pipelines/silver/numbers/tests/"
            "quality/no_negative.sql)") in failed["error"]
    assert failed["quality"][0] | {"ms": 0} == {
        "name": "no_negative", "severity": "error", "status": "failed", "violations": 1, "ms": 0,
        "sample": [[-1]], "error": None, "sample_columns": ["id"]}
    assert scratch.refs(fqn) == before == {"main": first["snapshot_id"]}
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [2]]


def test_warn_quality_failure_merges_and_reports_warned(scratch: Scratch):
    fqn = scratch.pipeline("silver", "numbers", "SELECT id FROM VALUES (-1), (3) AS v(id)",
                           tests={"no_negative": "-- @severity: warn\nSELECT * FROM {{ this }} WHERE id < 0"})
    run = scratch.run(fqn)
    assert run["status"] == "success"
    assert [(q["status"], q["violations"]) for q in run["quality"]] == [("warned", 1)]
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[-1], [3]]
    assert list(scratch.refs(fqn)) == ["main"]


def test_quality_tests_read_the_branch_not_main(scratch: Scratch):
    fqn = scratch.pipeline("silver", "n", "SELECT 1 AS id")
    scratch.run(fqn)
    scratch.pipeline("silver", "n", "SELECT 2 AS id", tests={"sees_new": "SELECT * FROM {{ this }} WHERE id = 1"})
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]  # main still holds id=1, the branch id=2


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("SELECT nope FROM VALUES (1) AS v(id)", "pipeline.sql:1: SQL error: A column or function parameter with name `nope` cannot be resolved"),
        ("SELECT 1 AS id\n{% if %}", "pipeline.sql:2: Jinja syntax error"),
        ("SELECT {{ missing_var }} AS id", "pipeline.sql:1: undefined template variable: 'missing_var' is undefined"),
        ("SELECT 1 AS id FROM\nWHERE", "pipeline.sql:2: SQL error"),
    ],
    ids=["sql", "jinja", "undefined", "syntax-line"],
)
def test_bad_sql_and_templates_fail_naming_the_file_and_write_nothing(scratch: Scratch, sql: str, expected: str):
    fqn = scratch.pipeline("bronze", "broken", sql)
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert f"{scratch.ns}/pipelines/bronze/broken/{expected}" in run["error"]
    assert not scratch.table_exists("bronze", "broken")


def test_a_failed_run_on_an_existing_table_writes_nothing(scratch: Scratch):
    fqn = scratch.pipeline("bronze", "t", "SELECT 1 AS id")
    ok = scratch.run(fqn)
    scratch.pipeline("bronze", "t", "SELECT id, CAST(raise_error('boom') AS STRING) AS e FROM VALUES (1) AS v(id)")
    bad = scratch.run(fqn)
    assert bad["status"] == "failed" and "boom" in bad["error"]
    assert scratch.refs(fqn) == {"main": ok["snapshot_id"]}


def test_landing_zone_reads_only_active_files(scratch: Scratch):
    header = "id,label\n"
    scratch.landing("drops", "a.csv", header + "1,active\n")
    scratch.landing("drops", "nested/b.csv", header + "2,nested\n")
    scratch.landing("drops", "_samples/s.csv", header + "90,sample\n")
    scratch.landing("drops", "_processed/run1/old.csv", header + "91,processed\n")
    scratch.landing("drops", ".hidden.csv", header + "92,hidden\n")
    scratch.landing("drops", "notes.md", "not data\n")  # (.txt is delimited text since issue 26)
    fqn = scratch.pipeline("bronze", "drops", "SELECT id, label, _source_file FROM {{ landing_zone('drops') }}")
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT id, label, _source_file FROM {fqn} ORDER BY id") == [
        [1, "active", "a.csv"], [2, "nested", "b.csv"]]


def test_empty_landing_zone_is_a_clear_error(scratch: Scratch):
    scratch.landing("empty", "_samples/s.csv", "id\n1\n")
    fqn = scratch.pipeline("bronze", "e", "SELECT * FROM {{ landing_zone('empty') }}")
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    assert f"{scratch.ns}/landing/empty has no files yet" in run["error"]  # issue 26's sentence


def test_preview_executes_without_writing(scratch: Scratch):
    fqn = scratch.pipeline("gold", "p", "SELECT id, id * 2 AS twice FROM VALUES (1), (2), (3) AS v(id)")
    result = scratch.wb.console.preview(fqn, limit=2).as_dict()
    assert result == {"columns": ["id", "twice"], "rows": [[1, 2], [2, 4]]}
    assert not scratch.table_exists("gold", "p")


def test_query_is_read_only_and_truncates(scratch: Scratch):
    from rat_tui.core.errors import RatError

    with pytest.raises(RatError, match="read-only"):
        scratch.wb.console.query("DROP TABLE ecommerce.bronze.raw_orders")
    result = scratch.wb.console.query("SELECT id FROM range(1005)").as_dict()
    assert len(result["rows"]) == 1000 and result["truncated"] is True


def test_runs_are_recorded_with_phases_and_quality(scratch: Scratch):
    fqn = scratch.pipeline("silver", "r", "SELECT 1 AS id", tests={"t": "SELECT * FROM {{ this }} WHERE id IS NULL"})
    run = scratch.run(fqn)
    history = scratch.wb.browse.runs(fqn).as_dict()["runs"]
    assert [h["run_id"] for h in history] == [run["run_id"]]
    assert history[0]["quality"][0]["status"] == "passed"
    assert set(history[0]["phases"]) == set(PHASES)


def test_same_pipeline_runs_are_serialised_and_different_ones_concurrent(scratch: Scratch):
    a = scratch.pipeline("bronze", "a", "-- @merge_strategy: append_only\nSELECT 1 AS id")
    b = scratch.pipeline("bronze", "b", "SELECT 2 AS id")
    handles = [scratch.wb.runs.submit(a), scratch.wb.runs.submit(a), scratch.wb.runs.submit(b)]
    records = [h.wait(120) for h in handles]
    assert [r.status for r in records] == ["success"] * 3
    first, second = records[0], records[1]
    assert first.finished_at <= second.started_at or second.finished_at <= first.started_at
    assert scratch.rows(f"SELECT COUNT(*) FROM {a}") == [[2]]


def test_cancel_mid_query_drops_the_branch(scratch: Scratch):
    import threading

    from rat_tui.core.events import PhaseStarted

    fqn = scratch.pipeline("bronze", "slow", "SELECT 1 AS id")
    scratch.run(fqn)
    before = scratch.refs(fqn)
    scratch.pipeline("bronze", "slow", "SELECT SUM(hash(a.id, b.id)) AS id FROM range(400000) a CROSS JOIN range(40000) b")
    building = threading.Event()
    unsubscribe = scratch.wb.events.subscribe(
        lambda e: building.set() if isinstance(e, PhaseStarted) and e.phase == "build_result" else None)
    try:
        handle = scratch.wb.runs.submit(fqn)
        assert building.wait(60)
        threading.Event().wait(1.0)  # let the Spark job start
        assert scratch.wb.runs.cancel(handle.run_id)
        record = handle.wait(60)
    finally:
        unsubscribe()
    assert record.status == "cancelled"
    assert record.finished_at - record.started_at < 30
    assert scratch.refs(fqn) == before


def test_a_quality_test_past_its_timeout_is_an_error_and_blocks_the_merge(scratch: Scratch, monkeypatch):
    import dataclasses

    project = scratch.wb.project
    monkeypatch.setattr(project, "settings", dataclasses.replace(project.settings, quality_timeout_seconds=2))
    fqn = scratch.pipeline("silver", "slowtest", "SELECT 1 AS id", tests={
        "slow": "SELECT * FROM {{ this }} CROSS JOIN range(400000) a CROSS JOIN range(40000) b WHERE hash(a.id, b.id) = 7"})
    run = scratch.run(fqn)
    assert run["status"] == "failed"
    outcome = run["quality"][0]
    assert outcome["status"] == "error" and "timed out after 2 s" in outcome["error"]
    assert outcome["ms"] < 20_000
    assert not scratch.table_exists("silver", "slowtest")


def test_write_creates_files_atomically_inside_the_project_only(scratch: Scratch):
    from rat_tui.core.errors import RatError

    result = scratch.wb.files.write(f"{scratch.ns}/pipelines/gold/w/pipeline.sql", "SELECT 1 AS id\n")
    assert result.path == f"{scratch.ns}/pipelines/gold/w/pipeline.sql"
    folder = scratch.root / "pipelines" / "gold" / "w"
    assert (folder / "pipeline.sql").read_text() == "SELECT 1 AS id\n"
    assert [p.name for p in folder.iterdir()] == ["pipeline.sql"]  # no temp file left behind
    with pytest.raises(RatError, match="outside the project folder"):
        scratch.wb.files.write("../escape.sql", "x")


def test_each_phase_keeps_its_rows_and_an_older_state_db_gets_the_writes(scratch: Scratch, tmp_path):
    """What the run view shows per phase live is what `runs` keeps; runs recorded before that keep
    their written rows on iceberg_write."""
    from rat_tui.core.store.state import RunRecord, StateDB

    fqn = scratch.pipeline("silver", "keyed", """
        -- @merge_strategy: incremental
        -- @unique_key: id
        SELECT id FROM VALUES (1), (2), (3) AS v(id)
        """)
    assert scratch.run(fqn)["phase_rows"] == {"iceberg_write": 3}  # a first load writes straight from the query
    run = scratch.run(fqn)  # a merge counts the batch it built, then writes it
    assert run["phase_rows"] == {"build_result": 3, "iceberg_write": 3}
    assert scratch.wb.browse.runs(fqn).as_dict()["runs"][0]["phase_rows"] == run["phase_rows"]
    old = StateDB(tmp_path / "state.db")
    for run_id, phases in (("written", PHASES), ("refused", PHASES[:2])):
        old.insert_run(RunRecord(run_id, fqn, "queued"))
        old.update_run(run_id, status="success", phases={p: 1 for p in phases}, rows_written=7)
    old.script("ALTER TABLE runs DROP COLUMN phase_rows")  # as a state.db of an earlier release
    migrated = StateDB(tmp_path / "state.db")
    assert migrated.get_run("written").phase_rows == {"iceberg_write": 7}
    assert migrated.get_run("refused").phase_rows == {}


def test_progress_counts_only_the_runs_own_job_group(lake):
    """Two jobs at once on the shared context (a run and, say, the console): each group's figure
    is its own stage's tasks, never the sum."""
    import threading
    import time

    from rat_tui.core.run.progress import group_tasks

    spark = lake.spark.session()
    sc = spark.sparkContext

    def busy(group: str, partitions: int) -> None:
        sc.setJobGroup(group, group, interruptOnCancel=True)
        try:
            spark.range(0, 400_000_000, 1, partitions).selectExpr("sum(hash(id))").collect()
        except Exception:  # cancelled below, once measured
            pass

    threads = [threading.Thread(target=busy, args=args) for args in (("progress-a", 37), ("progress-b", 48))]
    for thread in threads:
        thread.start()
    try:
        tracker, seen = sc.statusTracker(), {"progress-a": set(), "progress-b": set()}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (37 in seen["progress-a"] and 48 in seen["progress-b"]):
            for group in seen:
                done, total = group_tasks(tracker, group)
                assert done <= total
                seen[group].add(total)
            time.sleep(0.05)
        assert 37 in seen["progress-a"] and 48 in seen["progress-b"], seen
        assert 85 not in seen["progress-a"] | seen["progress-b"]
        assert group_tasks(tracker, "no-such-group") == (0, 0)
    finally:
        for group in ("progress-a", "progress-b"):
            sc.cancelJobGroup(group)
        for thread in threads:
            thread.join(30)


def test_a_saves_run_counts_as_started_and_reads_its_files_once_they_count_as_changed(scratch: Scratch, monkeypatch):
    """A rename onto a pipeline file is reported at once, before the file's time plus the coarse clock's lag
    has passed. A run that started, or read the file, before that moment would not count as having read the
    save, and a second request for it (another app's, the editor touching the file) would run it again."""
    import time

    from rat_tui.core.run import runner

    monkeypatch.setattr(runner, "MAX_WAIT_FOR_CHANGE", 30.0)
    fqn = scratch.pipeline("silver", "saved", "-- @merge_strategy: append_only\nSELECT 1 AS id")
    ref = scratch.wb.project.find_pipeline(fqn)
    changed = time.time() + 2.0
    handle = scratch.wb.runner.submit(ref, trigger="watch", join_since=changed)
    time.sleep(0.3)  # the run is under way; what it reads is what the file holds at `changed`
    scratch.pipeline("silver", "saved", "-- @merge_strategy: append_only\nSELECT 2 AS id")
    first = handle.wait()
    assert first.status == "success" and first.started_at >= changed
    second = scratch.wb.runner.submit(ref, trigger="watch", join_since=changed).wait()
    assert second.status == "success" and second.landing["joined"] == first.run_id
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[2]]  # one save, one append, of the file as saved


def test_a_run_writes_its_table_without_checksum_sidecar_files(scratch: Scratch):
    """Hadoop's default local file system wrote a `.crc` file beside every data, manifest and metadata file,
    checksumming every byte on the way."""
    fqn = scratch.pipeline("silver", "plain", "SELECT id, id * 2 AS twice FROM range(100)")
    assert scratch.run(fqn)["status"] == "success"
    scratch.run(fqn)
    written = [p.name for p in scratch.root.rglob("*") if p.is_file()]
    assert any(name.endswith(".parquet") for name in written) and any(name.endswith(".metadata.json") for name in written)
    assert [name for name in written if name.endswith(".crc")] == []


def test_a_run_asked_for_again_before_it_starts_is_that_run_not_one_more(scratch: Scratch):
    """Found by a new user: `r` pressed three times while a run of the pipeline went gave three runs, one after the
    other. A run by hand asked for while one of the working copy waits to start is that run (and it runs even
    where a save's run would have joined another)."""
    fqn = scratch.pipeline("silver", "pressed", "-- @merge_strategy: append_only\nSELECT 1 AS id")
    ref = scratch.wb.project.find_pipeline(fqn)
    runs = scratch.wb.runs
    with scratch.wb.runner._pipeline_locks[ref]:  # a run of it under way: what is asked now waits
        first, new = runs.run_unless_queued(fqn)
        assert new and first.record.status == "queued"
        again, new_again = runs.run_unless_queued(fqn)
        third, new_third = runs.run_unless_queued(fqn)
        assert (again, new_again, third, new_third) == (first, False, first, False)
    assert first.wait().status == "success"
    assert scratch.rows(f"SELECT count(*) FROM {fqn}") == [[1]]  # one append, not three
    assert [r["run_id"] for r in scratch.wb.browse.runs(fqn).as_dict()["runs"]] == [first.run_id]


def test_a_preview_fails_on_a_value_its_cast_cannot_read_as_a_run_does(scratch: Scratch):
    """Spark's parser takes ANSI from the thread's active session: a thread without one (a fresh preview
    worker) read `CAST('12 EUR' AS DECIMAL)` as NULL where the run failed, and test-fixture locked the NULL in.
    The preview's sentence names the file and line, as the run's does."""
    from concurrent.futures import ThreadPoolExecutor

    from rat_tui.core.errors import RatError

    scratch.landing("prices", "may.csv", "id,amount\n1,1.05\n2,12 EUR\n")
    fqn = scratch.pipeline("bronze", "cast", "SELECT id, CAST(amount AS DECIMAL(10, 2)) AS amount "
                                             "FROM {{ landing_zone('prices') }}")
    where = f"'12 EUR' in column amount at {scratch.ns}/landing/prices/may.csv line 3 cannot be cast"
    with ThreadPoolExecutor(1) as fresh_thread:
        with pytest.raises(RatError) as raised:
            fresh_thread.submit(scratch.wb.console.preview, fqn).result()
    assert where in raised.value.sentence()
    run = scratch.run(fqn)
    assert run["status"] == "failed" and where in run["error"]


def test_a_run_refuses_a_name_validate_refuses(scratch: Scratch):
    """Found by a new user: `validate` called a BadName pipeline and a platinum layer errors, and `run` built them
    anyway (BadName and badname as two tables)."""
    for layer, name, sentence in (("silver", "BadName", "pipeline name 'BadName' breaks the naming rule"),
                                  ("platinum", "p", "layer 'platinum' is not one of bronze, silver, gold")):
        fqn = scratch.pipeline(layer, name, "SELECT 1 AS id")
        problems = [p.message for p in scratch.wb.project.scan().problems]
        assert any(m.startswith(sentence) for m in problems), problems
        run = scratch.run(fqn)
        assert run["status"] == "failed"
        assert run["error"].startswith(f"{scratch.ns}/pipelines/{layer}/{name}: {sentence}"), run["error"]
        assert not scratch.table_exists(layer, name)
