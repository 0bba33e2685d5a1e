"""The docs build with `mkdocs build --strict` (no broken link, no page outside the nav), and the
README stays a short first read whose links all reach a file (issue 37, item 8)."""
from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 300
# [text](target) and ![alt](target), the target up to a space or the closing parenthesis
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)[^)]*\)")


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _build_strict(project: Path, site: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """`mkdocs build --strict` of `project` into `site`, in this process: the warnings it raised."""
    monkeypatch.chdir(project)  # the snippets' base path (the README) is the project root
    warnings = _Warnings()
    logging.getLogger("mkdocs").addHandler(warnings)
    try:
        config = load_config(config_file=str(project / "mkdocs.yml"), strict=True, site_dir=str(site))
        try:
            build(config)
        except Abort:
            assert warnings.messages, "the strict build aborted without a warning"
    finally:
        logging.getLogger("mkdocs").removeHandler(warnings)
    return warnings.messages


def test_the_docs_build_strict_with_every_page_in_the_nav(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert _build_strict(ROOT, tmp_path / "site", monkeypatch) == []
    built = {p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("index.html")}
    pages = {"index.html" if p.stem == "index" else f"{p.stem}/index.html" for p in (ROOT / "docs").glob("*.md")}
    assert pages <= built
    script = (tmp_path / "site" / "script" / "index.html").read_text()
    assert "Result objects" in script and "wait-idle" in script


def test_a_broken_link_or_a_page_outside_the_nav_fails_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    project = tmp_path / "project"
    shutil.copytree(ROOT / "docs", project / "docs")
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copy(ROOT / "README.md", project / "README.md")
    (project / "docs" / "stray.md").write_text("# Stray\n\nNo nav entry leads here.\n")
    with (project / "docs" / "landing.md").open("a") as page:
        page.write("\nSee [the gone page](gone.md) and [a missing heading](runs.md#no-such-heading).\n")
    warnings = "\n".join(_build_strict(project, tmp_path / "site", monkeypatch))
    assert "stray.md" in warnings
    assert "gone.md" in warnings
    assert "no-such-heading" in warnings


def test_the_readme_is_short_and_every_relative_link_resolves():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= README_MAX_LINES
    targets = [t for t in _LINK.findall(text) if not re.match(r"[a-z]+:", t) and not t.startswith("#")]
    assert any(t.startswith("docs/") for t in targets) and any(t.startswith("screenshots/") for t in targets)
    missing = [t for t in targets if not (ROOT / t.split("#")[0]).is_file()]
    assert missing == []


def test_every_script_command_has_a_row_in_the_contracts_result_table():
    from rat_tui.script.commands import COMMANDS

    page = (ROOT / "docs" / "script.md").read_text()
    table = page.split("## Result objects", 1)[1].split("\n## ", 1)[0]
    documented = {name for row in table.splitlines() if row.startswith("| `")
                  for name in re.findall(r"`([a-z-]+)[ `]", row.split("|")[1])}
    assert sorted(set(COMMANDS) - documented) == []
    assert sorted(documented - set(COMMANDS)) == []
