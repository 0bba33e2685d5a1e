"""The zone panel and its settings dialog (issue 36.8): a quarantine file is not an active file; an
unchanged dialog writes nothing; a letter typed into the number field gets a word."""
from __future__ import annotations

from pathlib import Path

from devkit.pilot import notifications, screen, select, until
from rat_tui.core.compose import open_project
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.modals import ZoneSettingsForm

SIZE = (160, 48)


async def test_a_quarantine_file_is_listed_as_rejected_not_active(sample_copy: Path):
    rejected = sample_copy / "ecommerce" / "landing" / "orders" / "_rejected" / "r1a2b3c4" / "rejected.jsonl"
    rejected.parent.mkdir(parents=True)
    rejected.write_text('{"file": "orders_2024_01.csv", "line": 3, "record": "x"}\n')
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "zone", "ecommerce.orders")
        await until(pilot, lambda: "_rejected/r1a2b3c4/rejected.jsonl" in screen(app), 10, "the zone's files")
        row = next(line for line in screen(app).splitlines() if "_rejected/r1a2b3c4/rejected.jsonl" in line)
        assert "rejected r1a2b3c4" in row and "active" not in row and "not yet" not in row  # nothing to consume


async def test_an_unchanged_dialog_writes_nothing_and_a_letter_gets_a_word(sample_copy: Path):
    before = (sample_copy / "rat.yaml").read_text()
    app = RatApp(open_project(sample_copy), watch=False, warm_spark=False)
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, "zone", "ecommerce.orders")
        await until(pilot, lambda: "kept 14 days (manual purge)" in screen(app), 10, "the zone settings")
        await pilot.press("e")
        await until(pilot, lambda: "Keep processed files" in screen(app), 10, "the form")
        await pilot.press("end", "x")
        await pilot.pause()
        assert isinstance(app.screen, ZoneSettingsForm) and app.screen.query_one("#max-age").value == "14"
        assert "Only a number of days goes here (digits and a point)." in screen(app)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, ZoneSettingsForm), 5, "the dialog to close")
        await app.wait_for_idle_screen()
        assert any("nothing changed; rat.yaml left as it was" in n.message for n in notifications(app))
    assert (sample_copy / "rat.yaml").read_text() == before  # no `14.0`, no `auto_purge: false` added
