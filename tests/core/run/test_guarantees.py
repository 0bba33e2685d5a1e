"""The guarantees of docs/runs.md attacked from outside: a second process, a kill the moment main moves,
upkeep and rollbacks while a run is in flight. Each test failed on the code before its fix."""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from rat_tui.core.events import PhaseStarted
from rat_tui.core.run.recovery import mark_orphans
from tests.killhelpers import ARCHIVING, PausedRun, kill_at, landing_state, runs_may_overlap, setup
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


def test_a_kill_right_after_main_moved_keeps_the_batch_consumed(scratch: Scratch, tmp_path: Path):
    """Item 1: recovery asks the table whether the run reached main; it did, so no file comes back."""
    fqn, _, _ = setup(scratch)
    wb = scratch.wb
    assert kill_at(wb.project.root, fqn, "after:fast_forward", tmp_path) == "after:fast_forward"
    orphans = [r for r in mark_orphans(wb.state, wb.project) if r.pipeline == fqn]
    wb.runs.cleanup_leftovers()
    record = wb.state.get_run(orphans[0].run_id)
    assert record.status == "success" and "published to main" in record.error
    assert record.snapshot_id == scratch.refs(fqn)["main"]
    assert list(scratch.refs(fqn)) == ["main"]
    landing = landing_state(scratch)
    assert landing["active"] == [] and len(landing["processed"]) == 3  # a.csv before, b and c now
    scratch.landing("drops", "d.csv", "id\n4\n")
    assert scratch.run(fqn)["status"] == "success"
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [2], [3], [4]]  # b and c read once


def test_a_run_never_publishes_over_a_moved_main(scratch: Scratch, tmp_path: Path):
    """Item 5: main rolled back to an ancestor while a run is in flight; a fast-forward would
    bring the rolled-back rows back. The run publishes nothing and says why."""
    fqn = scratch.pipeline("silver", "grows", "-- @merge_strategy: append_only\nSELECT 1 AS id")
    assert scratch.run(fqn)["status"] == "success"
    first = scratch.refs(fqn)["main"]
    assert scratch.run(fqn)["status"] == "success"
    run = PausedRun(scratch.wb.project.root, fqn, "after:quality_tests", tmp_path)
    try:
        # a rollback through the product is refused while the run is in flight ...
        with pytest.raises(Exception, match="has a run in progress"):
            scratch.wb.tables.rollback_table(fqn, first)
        # ... and one made behind its back (any Iceberg client) is never undone by the run
        with scratch.wb.spark.using() as spark:
            spark.sql(f"CALL `{scratch.ns}`.system.set_current_snapshot(table => 'silver.grows', snapshot_id => {first})")
        result = run.finish()
    finally:
        run.kill()
    assert result["ok"] is False and "moved while this run was running" in result["error"]
    assert scratch.refs(fqn)["main"] == first
    assert scratch.rows(f"SELECT COUNT(*) FROM {fqn}") == [[1]]


def test_the_loser_of_a_race_to_create_a_table_never_drops_it(scratch: Scratch, tmp_path: Path):
    """Item 6: two processes create the same new table; the loser fails clearly, the winner's table stands.
    (Runs of one pipeline overlap only with runs.serialise_same_pipeline off: else the second waits.)"""
    fqn = scratch.pipeline("bronze", "raced", "-- @merge_strategy: append_only\nSELECT 7 AS id")
    with runs_may_overlap(scratch.wb.project.root, scratch.wb):
        loser = PausedRun(scratch.wb.project.root, fqn, "before:create_table", tmp_path)
        try:
            assert scratch.run(fqn)["status"] == "success"  # the winner, in this process
            result = loser.finish()
        finally:
            loser.kill()
    assert result["ok"] is False and "was created by another run at the same time" in result["error"]
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[7]]
    assert list(scratch.refs(fqn)) == ["main"]


def test_a_slow_live_run_is_never_reaped_as_stuck(scratch: Scratch, tmp_path: Path):
    """Item 7: purge and doctor mark a long run failed only when its process is gone."""
    fqn = scratch.pipeline("bronze", "slow", "SELECT 1 AS id")
    wb = scratch.wb
    run = PausedRun(wb.project.root, fqn, "after:build_result", tmp_path)
    try:
        run_id = next(iter(wb.state.live_run_ids(fqn)))
        wb.state.update_run(run_id, started_at=time.time() - 7200)  # "running" for two hours
        assert [r["run_id"] for r in wb.upkeep.purge(dry_run=True).items.stuck_runs] == []
        findings = _doctor_findings(scratch)
        assert [f for f in findings if f["kind"] == "stuck_run"] == []
        assert wb.state.get_run(run_id).status == "running"
    finally:
        run.kill()
    assert [r["run_id"] for r in wb.upkeep.purge(dry_run=True).items.stuck_runs] == [run_id]


def _doctor_findings(scratch: Scratch) -> list[dict]:
    from rat_tui.core.errors import RatError

    try:
        return [f.as_dict() for f in scratch.wb.upkeep.doctor(namespace=scratch.ns).findings]
    except RatError as exc:
        return [f.as_dict() for f in exc.result.findings]


def test_upkeep_never_deletes_a_live_runs_files_or_young_ones(scratch: Scratch, tmp_path: Path):
    """Item 3: doctor --fix and purge use one rule: no file of a table with a live run, none younger
    than orphan_file_min_age_hours (a writer's files are unreferenced until its commit)."""
    fqn = scratch.pipeline("silver", "busy", "-- @merge_strategy: append_only\nSELECT 1 AS id")
    assert scratch.run(fqn)["status"] == "success"
    data = scratch.root / "warehouse" / "silver" / "busy" / "data"
    young = data / "being-written.parquet"
    young.write_bytes(b"a writer's file, not committed yet")
    old = data / "left-by-a-crash.parquet"
    old.write_bytes(b"nobody's")
    two_days_ago = time.time() - 48 * 3600
    os.utime(old, (two_days_ago, two_days_ago))
    wb = scratch.wb
    run = PausedRun(wb.project.root, fqn, "after:build_result", tmp_path)
    try:
        assert [f for f in _doctor_findings(scratch) if f["kind"] == "unreferenced_file"] == []
        _fix(scratch)
        assert wb.upkeep.purge(dry_run=True).items.orphan_files == []
        assert young.exists() and old.exists()
        result = run.finish()
    finally:
        run.kill()
    assert result["ok"] is True
    assert scratch.rows(f"SELECT COUNT(*) FROM {fqn}") == [[2]]
    # no live run now: the old file goes, the young one stays
    unreferenced = [f["object"] for f in _doctor_findings(scratch) if f["kind"] == "unreferenced_file"]
    assert unreferenced == [f"{scratch.ns}/warehouse/silver/busy/data/left-by-a-crash.parquet"]
    _fix(scratch)
    assert not old.exists() and young.exists()


def test_doctor_keeps_the_copies_the_product_promised_to_keep(scratch: Scratch):
    """Item 4: `_processed/replaced-…` and `_processed/local-…` are kept copies, not leftovers of a
    run; only their zone's processed_max_age_days removes them (purge)."""
    zone = scratch.root / "landing" / "orders"
    for folder in ("replaced-20240105T101010", "local-20240105T101010"):
        (zone / "_processed" / folder).mkdir(parents=True)
        (zone / "_processed" / folder / "orders.csv").write_text("id\n1\n")
    assert [f for f in _doctor_findings(scratch) if f["kind"] == "processed_without_run"] == []
    _fix(scratch)
    assert (zone / "_processed" / "replaced-20240105T101010" / "orders.csv").exists()
    assert (zone / "_processed" / "local-20240105T101010" / "orders.csv").exists()
    later = time.time() + 31 * 86400  # past the default processed_max_age_days (30)
    purged = scratch.wb.upkeep.purge(now=later, namespace=scratch.ns).items.processed_files
    assert sorted(item["path"] for item in purged) == [
        f"{scratch.ns}/landing/orders/_processed/local-20240105T101010/orders.csv",
        f"{scratch.ns}/landing/orders/_processed/replaced-20240105T101010/orders.csv"]
    assert not (zone / "_processed").exists() or not any((zone / "_processed").rglob("*.csv"))


def _fix(scratch: Scratch) -> None:
    from rat_tui.core.errors import RatError

    try:
        scratch.wb.upkeep.doctor(fix=True, namespace=scratch.ns)
    except RatError:
        pass


def test_archival_moves_exactly_the_files_the_build_read(scratch: Scratch, tmp_path: Path):
    """Item 8: a file replaced between read and archive stays for the next run; a quality test that
    calls landing_zone() does not widen what is archived."""
    scratch.landing("drops", "a.csv", "id\n1\n")
    scratch.landing("drops", "b.csv", "id\n2\n")
    scratch.landing("audit", "x.csv", "id\n1\n")
    fqn = scratch.pipeline("bronze", "exact", ARCHIVING, tests={
        "audited": "SELECT * FROM {{ this }} WHERE id NOT IN (SELECT id FROM {{ landing_zone('audit') }}) AND id > 100"})
    run = PausedRun(scratch.wb.project.root, fqn, "after:quality_tests", tmp_path)
    try:
        (scratch.root / "landing" / "drops" / "b.csv").write_text("id\n20\n21\n")  # replaced after the read
        result = run.finish()
    finally:
        run.kill()
    assert result["ok"] is True
    zone = scratch.root / "landing"
    assert sorted(p.name for p in (zone / "drops").glob("*.csv")) == ["b.csv"]
    assert [p.name for p in (zone / "audit").glob("*.csv")] == ["x.csv"]  # only read by the test
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [2]]
    again = scratch.run(fqn)
    assert again["status"] == "success", again["error"]
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [2], [20], [21]]


def test_a_first_run_that_wrote_nothing_leaves_the_watermark_unset(scratch: Scratch):
    """Item 9: with an empty table, is_incremental() is false, so `watermark_value` never renders as None."""
    rows = "SELECT id, TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) AS at FROM range(3)"
    source = scratch.pipeline("bronze", "src", rows + " WHERE id > 99")  # nothing yet
    fqn = scratch.pipeline("silver", "wm", """
        -- @merge_strategy: incremental
        -- @unique_key: id
        -- @watermark_column: at
        SELECT id, at FROM {{ ref('bronze.src') }}
        {% if is_incremental() %} WHERE at >= TIMESTAMP '{{ watermark_value }}' {% endif %}
        """)
    assert scratch.run(source)["status"] == "success"
    first = scratch.run(fqn)
    assert first["status"] == "success" and first["rows_written"] == 0
    scratch.pipeline("bronze", "src", rows)
    assert scratch.run(source)["status"] == "success"
    second = scratch.run(fqn)
    assert second["status"] == "success", second["error"]
    assert scratch.rows(f"SELECT COUNT(*) FROM {fqn}") == [[3]]


def test_cancel_reaches_a_running_quality_test_within_seconds(scratch: Scratch):
    """Item 11: quality tests run in the run's job group, so cancel stops them (not the time-out)."""
    fqn = scratch.pipeline("silver", "slowq", "SELECT 1 AS id", tests={
        "slow": "SELECT * FROM {{ this }} CROSS JOIN range(400000) a CROSS JOIN range(40000) b WHERE hash(a.id, b.id) = 7"})
    started = threading.Event()

    def on_event(event) -> None:
        if isinstance(event, PhaseStarted) and event.phase == "quality_tests":
            started.set()

    unsubscribe = scratch.wb.events.subscribe(on_event)
    try:
        handle = scratch.wb.runner.submit(scratch.wb.browse.resolve(fqn))
        assert started.wait(180)
        time.sleep(1.5)  # the test's Spark job is running
        asked = time.monotonic()
        scratch.wb.runs.cancel(handle.run_id)
        record = handle.wait(120)
        took = time.monotonic() - asked
    finally:
        unsubscribe()
    assert record.status == "cancelled"
    assert took < 10, f"cancel took {took:.1f} s (the quality time-out is {scratch.wb.project.settings.quality_timeout_seconds} s)"
    assert not scratch.table_exists("silver", "slowq")


def test_merges_leave_no_temp_views_in_the_long_lived_session(scratch: Scratch):
    """Item 12: the views an upsert or scd2 makes are dropped with the run."""
    up = scratch.pipeline("silver", "up", "-- @merge_strategy: incremental\n-- @unique_key: id\nSELECT id, 'x' AS v FROM range(3)")
    hist = scratch.pipeline("silver", "hist", "-- @merge_strategy: scd2\n-- @unique_key: id\nSELECT id, 'x' AS v FROM range(3)")
    for fqn in (up, hist, up, hist):
        assert scratch.run(fqn)["status"] == "success"
    with scratch.wb.spark.using() as spark:
        views = [t.name for t in spark.catalog.listTables() if t.isTemporary]
    assert [v for v in views if v.startswith("rat_")] == []


def _table_facts(scratch: Scratch, fqn: str) -> tuple[list[list], str, str | None]:
    """(rows, schema, unique-key property) of main, read through Spark."""
    ns, layer, name = fqn.split(".")
    ident = f"`{ns}`.`{layer}`.`{name}`"
    with scratch.wb.spark.using() as spark:
        rows = [list(r) for r in spark.sql(f"SELECT * FROM {ident} ORDER BY id").collect()]
        schema = spark.table(ident).schema.simpleString()
        props = {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES {ident}").collect()}
    return rows, schema, props.get("rat.unique-key")


def test_a_failed_full_refresh_changes_nothing_on_main(scratch: Scratch):
    """Item 2: a full refresh that retypes a column and changes the unique key is rebuilt beside
    main; a failed gate leaves main's rows, schema and properties exactly as they were."""
    header = "-- @merge_strategy: incremental\n-- @unique_key: {key}\n"
    fqn = scratch.pipeline("silver", "retype", header.format(key="id") + "SELECT id, id * 10 AS amount FROM range(3)")
    assert scratch.run(fqn)["status"] == "success"
    before, refs = _table_facts(scratch, fqn), scratch.refs(fqn)
    retyped = header.format(key="id, amount") + "SELECT id, CAST(id * 10 AS STRING) AS amount FROM range(3)"
    scratch.pipeline("silver", "retype", retyped, tests={"never": "SELECT * FROM {{ this }} WHERE amount = '10'"})
    run = scratch.run(fqn, full_refresh=True)
    assert run["status"] == "failed" and "quality test never failed" in run["error"]
    assert _table_facts(scratch, fqn) == before == ([[0, 0], [1, 10], [2, 20]], "struct<id:bigint,amount:bigint>", "id")
    assert scratch.refs(fqn) == refs
    assert not any((scratch.root / "warehouse" / "_rat_staging").glob("*/metadata"))
    # the same rebuild with a passing gate lands in one commit, history kept
    (scratch.root / "pipelines" / "silver" / "retype" / "tests" / "quality" / "never.sql").unlink()
    run = scratch.run(fqn, full_refresh=True)
    assert run["status"] == "success", run["error"]
    assert _table_facts(scratch, fqn) == ([[0, "0"], [1, "10"], [2, "20"]], "struct<id:bigint,amount:string>", "id,amount")
    history = scratch.wb.tables.snapshots(fqn).as_dict()["snapshots"]
    assert refs["main"] in [s["snapshot_id"] for s in history]
    assert [s["run_id"] for s in history if s["is_current"]] == [run["run_id"]]
    assert list(scratch.refs(fqn)) == ["main"]
    assert fqn in [t.name for t in scratch.wb.tables.tables().tables]
    assert not any("_rat_staging" in t.name for t in scratch.wb.tables.tables().tables)


def test_a_kill_during_a_rebuild_leaves_main_and_no_staging_table(scratch: Scratch, tmp_path: Path):
    header = "-- @merge_strategy: full_refresh\n"
    fqn = scratch.pipeline("silver", "rekill", header + "SELECT id, id * 10 AS amount FROM range(3)")
    assert scratch.run(fqn)["status"] == "success"
    before, refs = _table_facts(scratch, fqn), scratch.refs(fqn)
    scratch.pipeline("silver", "rekill", header + "SELECT id, CAST(id AS STRING) AS amount FROM range(3)")
    kill = PausedRun(scratch.wb.project.root, f"{fqn} --full-refresh", "after:quality_tests", tmp_path)
    kill.kill()
    staging = scratch.root / "warehouse" / "_rat_staging"
    assert any(staging.glob("*/metadata"))  # the rebuild was under way
    mark_orphans(scratch.wb.state, scratch.wb.project)
    scratch.wb.runs.cleanup_leftovers()
    assert not any(staging.glob("*/metadata"))
    assert _table_facts(scratch, fqn) == before and scratch.refs(fqn) == refs


def test_a_namespace_made_by_another_process_is_queryable(scratch: Scratch):
    """`query` registers the catalogs of namespaces that appeared after the session started."""
    from tests.helpers import run_script

    fqn = scratch.pipeline("bronze", "elsewhere", "SELECT 5 AS id")
    status, _, _ = run_script(scratch.wb.project.root, f"run {fqn}\n")
    assert status == 0
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[5]]


def test_the_failed_gate_is_marked_on_the_quality_phase_and_zero_rows_say_why(scratch: Scratch):
    """Issue 'What a newcomer trips over', items 7 and 8."""
    fqn = scratch.pipeline("silver", "gated", "SELECT 1 AS id", tests={"never": "SELECT * FROM {{ this }}"})
    run = scratch.run(fqn)
    assert run["status"] == "failed" and list(run["phases"])[-1] == "quality_tests"
    entries = scratch.wb.run_log.read(run["run_id"])
    failed = [e["phase"] for e in entries if e["event"] == "PhaseFinished" and not e["ok"]]
    assert failed == ["quality_tests"]
    wm = scratch.pipeline("silver", "wm0", """
        -- @merge_strategy: incremental
        -- @unique_key: id
        -- @watermark_column: at
        SELECT 1 AS id, TIMESTAMP '2024-01-01 00:00:00' AS at
        {% if is_incremental() %} WHERE TIMESTAMP '2024-01-01 00:00:00' > TIMESTAMP '{{ watermark_value }}' {% endif %}
        """)
    assert scratch.run(wm)["rows_written"] == 1
    second = scratch.run(wm)
    assert second["status"] == "success" and second["rows_written"] == 0
    write = next(e for e in scratch.wb.run_log.read(second["run_id"])
                 if e["event"] == "PhaseFinished" and e["phase"] == "iceberg_write")
    assert write["message"] == (f"the watermark (at after 2024-01-01 00:00:00) filtered every row; "
                                f"run {wm} with full refresh to rebuild it")


def test_a_typo_in_a_ref_or_a_zone_gets_a_suggestion(scratch: Scratch):
    """Issue 'What a newcomer trips over', item 9."""
    scratch.pipeline("silver", "clean_orders", "SELECT 1 AS id")
    scratch.landing("orders", "a.csv", "id\n1\n")
    typo = scratch.pipeline("gold", "typo", "SELECT * FROM {{ ref('silver.clean_order') }}")
    zone = scratch.pipeline("bronze", "zone", "SELECT * FROM {{ landing_zone('order') }}")
    assert "did you mean `silver.clean_orders`?" in scratch.run(typo)["error"]
    assert "did you mean `orders`?" in scratch.run(zone)["error"]
    from rat_tui.core.errors import RatError

    with pytest.raises(RatError) as invalid:
        scratch.wb.browse.validate(typo)
    assert "did you mean `silver.clean_orders`?" in invalid.value.sentence()


def test_a_run_refused_or_failed_before_writing_leaves_the_metadata_untouched(scratch: Scratch):
    """The run's branch is made just before its first write: a refused statement or a broken query
    on an existing table adds no metadata file at all (not even a branch made and dropped)."""
    fqn = scratch.pipeline("silver", "untouched", "SELECT 1 AS id")
    assert scratch.run(fqn)["status"] == "success"
    metadata = scratch.root / "warehouse" / "silver" / "untouched" / "metadata"
    before = sorted(p.name for p in metadata.iterdir())
    for sql in (f"DROP TABLE {fqn}", "SELECT nope FROM range(1)"):  # refused; fails to analyse
        scratch.pipeline("silver", "untouched", sql)
        assert scratch.run(fqn)["status"] == "failed", sql
        assert sorted(p.name for p in metadata.iterdir()) == before, sql
    assert scratch.rows(f"SELECT id FROM {fqn}") == [[1]]
