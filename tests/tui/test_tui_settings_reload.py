"""Settings take effect while the app is open (issue 35, item 8): rat.yaml is watched; a save reloads it
and says so, so `u` and `r` read by it without a restart; a save with a YAML error is named with its line
and the last good settings stay."""
from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from devkit.pilot import notifications, screen, select, until
from rat_tui.tui.app import RatApp
from tests.lakehelpers import Scratch
from tests.tuihelpers import run_from_the_tree

pytestmark = pytest.mark.spark
SIZE = (160, 45)


def _toasts(app: RatApp) -> list[str]:
    return [str(n.message) for n in notifications(app)]


async def _upload(pilot, app: RatApp, path: Path) -> None:
    await pilot.press("u")
    await until(pilot, lambda: "Upload into" in screen(app), 10, "the upload prompt")
    await pilot.press(*str(path), "enter")


async def test_settings_saved_in_rat_yaml_are_used_by_upload_and_run_without_a_restart(scratch: Scratch,
                                                                                       tmp_path: Path):
    ns = scratch.ns
    (scratch.root / "landing" / "feed").mkdir(parents=True)
    fqn = scratch.pipeline("bronze", "feed", "-- @merge_strategy: append_only\n"
                           "SELECT id, name FROM {{ landing_zone('feed') }}")
    export = tmp_path / "export.csv"
    export.write_bytes("id;name\n1;Café Noël\n2\n3;Zoë Brontë\n4;Ana Díaz\n".encode("cp1252"))
    rat_yaml = scratch.wb.project.root / "rat.yaml"
    before = rat_yaml.read_text(encoding="utf-8") if rat_yaml.exists() else None
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await select(pilot, "zone", f"{ns}.feed")
            await until(pilot, lambda: "read by:" in screen(app), 20, "the zone panel")
            await _upload(pilot, app, export)
            await until(pilot, lambda: any("export.csv is not UTF-8 text" in t for t in _toasts(app)), 20,
                        "the refusal")
            # The user adds what the refusal asks for, and quarantine, in an editor
            yaml = YAML()
            data = yaml.load(rat_yaml) if before else None
            data = data or {}
            data.setdefault("zones", {})[f"{ns}/feed"] = {"csv": {"encoding": "cp1252"}, "bad_rows": "quarantine"}
            yaml.dump(data, rat_yaml)
            reloaded = (f"settings reloaded from rat.yaml; changed zone settings ({ns}/feed) apply to the files read "
                        "from now on (a full refresh reads those loaded before again)")
            await until(pilot, lambda: reloaded in _toasts(app), 20, "the reload notice")
            await _upload(pilot, app, export)
            zone_file = scratch.root / "landing" / "feed" / "export.csv"
            await until(pilot, lambda: zone_file.exists(), 30, "the upload")
            run = await run_from_the_tree(pilot, scratch, fqn)
            assert run["status"] == "success", run["error"]
            assert [n["kind"] for n in run["notes"]] == ["quarantined"] and run["notes"][0]["line"] == 3
            assert scratch.rows(f"SELECT id, name FROM {fqn} ORDER BY id") == [
                [1, "Café Noël"], [3, "Zoë Brontë"], [4, "Ana Díaz"]]
            # A save with a YAML error is named with its line; the settings in use stay
            rat_yaml.write_text(rat_yaml.read_text(encoding="utf-8") + "watch: [on\n", encoding="utf-8")
            await until(pilot, lambda: any(t.startswith("rat.yaml:") and "YAML syntax error" in t
                                           and t.endswith("the settings in use stay as they were")
                                           for t in _toasts(app)), 20, "the YAML error")
            assert scratch.wb.project.settings.zones[f"{ns}/feed"]["csv"] == {"encoding": "cp1252"}
    finally:
        if before is None:
            rat_yaml.unlink(missing_ok=True)
        else:
            rat_yaml.write_text(before, encoding="utf-8")
        scratch.wb.project.reload_settings()
