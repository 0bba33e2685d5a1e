"""The file watcher on a real folder: pipeline saves and zone changes, debounced; editor litter ignored."""
from __future__ import annotations

import threading
import time
from pathlib import Path

from rat_tui.core.project.model import PipelineRef, Project
from rat_tui.core.project.watch import (
    PipelineChanged,
    ProjectWatcher,
    SettingsChanged,
    ZoneChanged,
    classify,
)


def test_classify_pipeline_files_zones_and_litter(sample_copy: Path):
    project = Project(sample_copy)
    base = sample_copy / "ecommerce" / "pipelines" / "silver" / "clean_orders"
    ref = PipelineRef("ecommerce", "silver", "clean_orders")
    for name in ("pipeline.sql", "config.yaml", "tests/quality/new.sql"):
        change = classify(project, base / name)
        assert isinstance(change, PipelineChanged) and change.pipeline == ref
    for litter in (".pipeline.sql.swp", "pipeline.sql~", "4913", ".#pipeline.sql", "#pipeline.sql#",
                   "pipeline.sql.tmp", "notes.md", "tests/other.sql"):
        assert classify(project, base / litter) is None, litter
    assert classify(project, sample_copy / "ecommerce" / "landing" / "orders" / "x.csv") == ZoneChanged("ecommerce", "orders")
    assert classify(project, sample_copy / "ecommerce" / "warehouse" / "silver" / "t" / "data" / "f.parquet") is None
    assert classify(project, sample_copy / ".rat" / "state.db") is None
    assert classify(project, sample_copy / "rat.yaml") == SettingsChanged()  # reloaded while the app is open
    assert classify(project, sample_copy / "ecommerce" / "rat.yaml") is None
    sample = sample_copy / "ecommerce" / "landing" / "orders" / "_samples" / "x_sample.csv"
    assert classify(project, sample) == ZoneChanged("ecommerce", "orders", active=False)


def test_a_burst_of_saves_is_reported_once_after_the_debounce(sample_copy: Path):
    project = Project(sample_copy)
    reports: list[list] = []
    done = threading.Event()

    def on_changes(changes) -> None:
        reports.append(changes)
        done.set()

    watcher = ProjectWatcher(project, on_changes, debounce=0.3)
    watcher.start()
    try:
        source = sample_copy / "ecommerce" / "pipelines" / "gold" / "daily_revenue" / "pipeline.sql"
        swap = source.with_name(".pipeline.sql.swp")
        for n in range(5):
            swap.write_text(f"swap {n}")
            source.write_text(f"SELECT {n}\n")
            time.sleep(0.05)
        (sample_copy / "ecommerce" / "landing" / "orders" / "new.csv").write_text("id\n1\n")
        assert done.wait(10)
        time.sleep(0.6)  # nothing more arrives after the first report
    finally:
        watcher.stop()
    assert len(reports) == 1
    kinds = {type(c).__name__: c for c in reports[0]}
    assert set(kinds) == {"PipelineChanged", "ZoneChanged"}
    assert kinds["PipelineChanged"].paths == ("ecommerce/pipelines/gold/daily_revenue/pipeline.sql",)
    assert kinds["ZoneChanged"] == ZoneChanged("ecommerce", "orders")


def test_a_namespace_made_while_watching_and_its_landing_folder_made_later_are_watched(sample_copy: Path):
    """A new namespace made from another shell (`mkdir -p crm/pipelines/…`) while the app was open: its saves
    never ran until a restart, as only the namespaces there at the start were watched. Its landing folder
    made later is watched too (a namespace there at the start is not watched itself: watchdog runs a thread
    for each watch, and a project of many namespaces would pay one each)."""
    project = Project(sample_copy)
    changes: list = []
    seen = threading.Condition()

    def on_changes(batch) -> None:
        with seen:
            changes.extend(batch)
            seen.notify_all()

    def wait_for(change, what: str) -> None:
        with seen:
            assert seen.wait_for(lambda: change in changes, 10), f"{what}: {changes}"

    watcher = ProjectWatcher(project, on_changes, debounce=0.2)
    watcher.start()
    try:
        made = sample_copy / "crm" / "pipelines" / "bronze" / "customers"
        made.mkdir(parents=True)
        (made / "pipeline.sql").write_text("SELECT 1 AS id\n")  # written at once, maybe before its folder is watched
        customers = PipelineRef("crm", "bronze", "customers")
        wait_for(PipelineChanged(customers, ("crm/pipelines/bronze/customers/pipeline.sql",)), "the new pipeline")
        time.sleep(0.5)  # the namespace's folders are watched by now: a later save is a change of its own
        changes.clear()
        (made / "pipeline.sql").write_text("SELECT 2 AS id\n")
        wait_for(PipelineChanged(customers, ("crm/pipelines/bronze/customers/pipeline.sql",)), "a later save")
        zone = sample_copy / "crm" / "landing" / "contacts"
        zone.mkdir(parents=True)
        time.sleep(0.5)
        (zone / "a.csv").write_text("id\n1\n")
        wait_for(ZoneChanged("crm", "contacts"), "a file in the landing folder made later")
    finally:
        watcher.stop()


def test_a_file_renamed_onto_a_pipeline_file_is_reported_at_once_one_written_in_place_after_the_settle(
        sample_copy: Path, monkeypatch):
    """An editor's atomic save (temp file, rename; JetBrains moves the old file away first) is whole at the
    rename: it runs without the settle. A file written in place may be half written: it waits."""
    from rat_tui.core.project import watch

    monkeypatch.setattr(watch, "SETTLE_SECONDS", 30.0)
    project = Project(sample_copy)
    reports: list[list] = []
    reported = threading.Condition()

    def on_changes(changes) -> None:
        with reported:
            reports.append(changes)
            reported.notify_all()

    watcher = ProjectWatcher(project, on_changes, debounce=30.0)
    watcher.start()
    base = sample_copy / "ecommerce" / "pipelines" / "gold" / "daily_revenue"
    saved = PipelineChanged(PipelineRef("ecommerce", "gold", "daily_revenue"),
                            ("ecommerce/pipelines/gold/daily_revenue/pipeline.sql",))
    try:
        for old_file_moved_away in (False, True):
            temp = base / "pipeline.sql___jb_tmp___"
            temp.write_text("SELECT 2 AS n\n")
            if old_file_moved_away:
                (base / "pipeline.sql").rename(base / "pipeline.sql___jb_old___")
            temp.rename(base / "pipeline.sql")
            with reported:
                assert reported.wait_for(lambda: reports, 5), "a rename onto the pipeline file waited for the settle"
            assert reports.pop() == [saved]
            (base / "pipeline.sql___jb_old___").unlink(missing_ok=True)
            time.sleep(0.2)
            reports.clear()
        (base / "pipeline.sql").write_text("SELECT 3 AS n\n")
        time.sleep(1.0)
        assert reports == []  # written in place: it waits the settle (30 s here)
    finally:
        watcher.stop()
