#!/usr/bin/env python3
"""Regenerate the screenshots from the real app on a copy of sample_project/.

    python screenshots/generate.py        # writes screenshots/*.svg (and *.png when cairosvg is installed)
"""
from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

from rat_tui.core.workbench import Workbench
from rat_tui.tui.app import RatApp

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "sample_project"
SIZE = (110, 34)


async def capture(name: str, project: Path) -> Path:
    app = RatApp(Workbench(project))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        path = HERE / f"{name}.svg"
        path.write_text(app.export_screenshot(title=f"rat-tui — {name}"))
    return path


def to_png(svg: Path) -> None:
    try:
        import cairosvg
    except ImportError:
        print(f"cairosvg is not installed; kept {svg.name} only")
        return
    cairosvg.svg2png(url=str(svg), write_to=str(svg.with_suffix(".png")), output_width=1400)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "sample_project"
        shutil.copytree(SAMPLE, project, ignore=shutil.ignore_patterns(".rat", "warehouse"))
        for name in ("project_tree",):
            svg = asyncio.run(capture(name, project))
            to_png(svg)
            print(f"wrote {svg.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
