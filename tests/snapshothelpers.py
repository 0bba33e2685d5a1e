"""The fixed size, the settling and the recorded runs the SVG snapshot tests share, so a screen
shows nothing that changes from run to run."""
from __future__ import annotations

from pathlib import Path

from rat_tui.core.compose import Workbench, open_project
from rat_tui.core.store.state import QualityOutcome, RunRecord
from rat_tui.tui.app import RatApp

SIZE = (120, 36)
T0 = 1_717_200_000.0  # 2024-06-01, for anything the screen prints as a date
PHASES = {"branch_creation": 48, "config_loading": 1, "build_result": 264, "iceberg_write": 588, "quality_tests": 97,
          "branch_resolution": 125}


def make_app(project: Path) -> RatApp:
    return RatApp(open_project(project), watch=False, warm_spark=False)


async def settle(pilot) -> None:
    await pilot.app.wait_for_idle_screen()
    await pilot.pause()
    for field in pilot.app.screen.query("Input"):
        field.cursor_blink = False
    await pilot.pause()


def compare(snap_compare, app: RatApp, run_before) -> bool:
    return snap_compare(app, terminal_size=SIZE, run_before=run_before)


def record_run(wb: Workbench, run_id: str, fqn: str, started: float, phases: dict[str, int], rows: int,
               quality: list[QualityOutcome] = ()) -> None:
    wb.state.insert_run(RunRecord(run_id, fqn, "queued", queued_at=started))
    wb.state.update_run(run_id, status="success", started_at=started, finished_at=started + sum(phases.values()) / 1000,
                        phases=phases, phase_rows={"iceberg_write": rows}, rows_written=rows, snapshot_id=4821576867)
    for outcome in quality:
        wb.state.save_quality(run_id, outcome)


# Spark's refusal of a date spine stepped by 1 instead of INTERVAL 1 DAY, as the run reports it: its
# rules come on the lines after its first, and all of them must show
QUERY_REFUSED = ("ecommerce/pipelines/silver/clean_orders/pipeline.sql:13: SQL error: Cannot resolve \"sequence(DATE "
                 "'2024-01-01', DATE '2024-01-31', 1)\" due to data type mismatch: `sequence` uses the wrong parameter "
                 "type. The parameter type must conform to: 1. The start and stop expressions must resolve to the same "
                 "type. 2. If start and stop expressions resolve to the (\"TIMESTAMP\" or \"TIMESTAMP_NTZ\" or \"DATE\") "
                 "type, then the step expression must resolve to the (\"INTERVAL\" or \"INTERVAL YEAR TO MONTH\" or "
                 "\"INTERVAL DAY TO SECOND\") type. 3. Otherwise, if start and stop expressions resolve to the "
                 "\"INTEGRAL\" type, then the step expression must resolve to the same type")


def record_failed_run(wb: Workbench, run_id: str, fqn: str, started: float, error: str) -> None:
    wb.state.insert_run(RunRecord(run_id, fqn, "queued", queued_at=started))
    wb.state.update_run(run_id, status="failed", started_at=started, finished_at=started + 0.4,
                        phases={"branch_creation": 40, "config_loading": 1, "build_result": 300},
                        phase_rows={}, rows_written=0, error=error)
