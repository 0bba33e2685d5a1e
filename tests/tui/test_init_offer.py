"""Opening an empty folder offers a new project (what `rat-tui init` writes); declining writes nothing."""
from __future__ import annotations

from pathlib import Path

from rat_tui.core.project.scaffold import FILES, is_empty_folder
from rat_tui.tui.init_offer import InitOfferApp


async def test_an_empty_folder_is_offered_a_new_project(tmp_path: Path):
    (tmp_path / ".git").mkdir()  # hidden entries do not make a folder a project
    assert is_empty_folder(tmp_path)
    app = InitOfferApp(tmp_path)
    async with app.run_test() as pilot:
        await pilot.pause()
        shown = " ".join(str(widget.render()) for widget in app.screen.query("Static"))
        assert f"{tmp_path} is empty. Make a new project here?" in shown
        await pilot.press("y")
        await pilot.pause()
    assert sorted(app.return_value) == sorted(tmp_path / relpath for relpath in FILES)
    assert (tmp_path / "rat.yaml").read_text().startswith("# Project settings.")
    assert not is_empty_folder(tmp_path)


async def test_declining_writes_nothing(tmp_path: Path):
    app = InitOfferApp(tmp_path)
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
    assert app.return_value is None
    assert list(tmp_path.iterdir()) == []
