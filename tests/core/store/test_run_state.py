"""A run's row in state.db holds what its own record says."""
from __future__ import annotations

from pathlib import Path

from rat_tui.core.store.state import RunRecord, StateDB


def test_a_runs_wait_for_spark_is_kept_and_an_older_state_db_gets_the_column(tmp_path: Path):
    """Found through a flaky test under load: a run's own result said `waited_for_spark_ms: 1`, the same run read
    back (`runs`, a held run's review) said 0: the wait was never written (a cold start's 7 s went unsaid)."""
    state = StateDB(tmp_path / "state.db")
    state.insert_run(RunRecord("waited", "ns.silver.t", "queued"))
    state.update_run("waited", status="running", waited_for_spark_ms=7251)
    assert state.get_run("waited").waited_for_spark_ms == 7251
    assert state.get_run("waited").as_dict()["waited_for_spark_ms"] == 7251

    state.script("ALTER TABLE runs DROP COLUMN waited_for_spark_ms")  # as a state.db of an earlier release
    migrated = StateDB(tmp_path / "state.db")
    assert migrated.get_run("waited").waited_for_spark_ms == 0
    migrated.update_run("waited", waited_for_spark_ms=12)
    assert migrated.get_run("waited").waited_for_spark_ms == 12


def test_a_quality_samples_column_names_are_kept_and_an_older_state_db_gets_the_column(tmp_path: Path):
    from rat_tui.core.run_record import QualityOutcome

    state = StateDB(tmp_path / "state.db")
    state.insert_run(RunRecord("checked", "ns.silver.t", "queued"))
    state.save_quality("checked", QualityOutcome("small", "warn", "warned", 1, 3, [[3, 30]], None, ["id", "tens"]))
    assert state.get_run("checked").quality[0].sample_columns == ["id", "tens"]

    state.script("ALTER TABLE quality_results DROP COLUMN sample_columns")  # as a state.db of an earlier release
    migrated = StateDB(tmp_path / "state.db")
    assert migrated.get_run("checked").quality[0].as_dict()["sample"] == [[3, 30]]
    assert migrated.get_run("checked").quality[0].sample_columns == []
    migrated.save_quality("checked", QualityOutcome("big", "error", "failed", 1, 2, [[9]], None, ["id"]))
    assert [q.sample_columns for q in migrated.get_run("checked").quality] == [["id"], []]
