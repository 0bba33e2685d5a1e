"""Freshness in the TUI (issue 39): the tree's badge on late tables, the age in the pipeline panel, and `f`,
every table sorted by how late it is. Real runs on the shared lake; the badges come from a thread worker."""
from __future__ import annotations

import pytest

from devkit.pilot import screen, select, until
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.project_tree import ProjectTree

pytestmark = pytest.mark.spark


def badge(app: RatApp, fqn: str) -> tuple[str, str] | None:
    """The badge after a pipeline's name in the tree, as (glyph, style); ("", "not in the tree yet") while the
    tree (hundreds of namespaces in the full suite's shared lake) has not shown it."""
    tree = app.query_one(ProjectTree)
    for node in tree._walk(tree.root):
        if node.data is not None and node.data.kind == "pipeline" and node.data.ref.fqn == fqn:
            label = node.label
            for span in label.spans:
                if label.plain[span.start:span.end].strip() == "◷":
                    return "◷", str(span.style)
            return None
    return "", "not in the tree yet"


async def test_badges_panel_age_and_the_project_view_sorted_by_lateness(scratch):
    # 0s: late from the moment of the commit, so the first look at them already finds them so
    late = scratch.pipeline("bronze", "late", "SELECT 1 AS id", config="freshness: {warn_after: 0s, error_after: 1d}\n")
    later = scratch.pipeline("bronze", "later", "SELECT 1 AS id", config="freshness: {warn_after: 0s, error_after: 0s}\n")
    fresh = scratch.pipeline("bronze", "fresh", "SELECT 1 AS id", config="freshness: {warn_after: 1d}\n")
    for fqn in (fresh, late, later):
        assert scratch.run(fqn)["status"] == "success"
    app = RatApp(scratch.wb, watch=False, warm_spark=False)
    async with app.run_test(size=(180, 45)) as pilot:
        await until(pilot, lambda: badge(app, later) == ("◷", "bold red"), 30, "the error badge")
        assert badge(app, late) == ("◷", "yellow")
        assert badge(app, fresh) is None

        await select(pilot, "pipeline", late)
        await until(pilot, lambda: "freshness warn" in screen(app), 20, "the age in the pipeline panel")
        assert "old (warn after 0s, error after 1d)" in screen(app)

        await pilot.press("f")
        await until(pilot, lambda: fresh in screen(app), 20, "the project's freshness view")
        text = screen(app)
        assert "Freshness: every table, the latest first" in text
        rows = []  # (pipeline, status) of the view's rows, top to bottom
        for line in text.splitlines():
            words = line.split()
            rows += [(word, words[i + 1]) for i, word in enumerate(words[:-1]) if word in (late, later, fresh)]
        assert rows == [(later, "error"), (late, "warn"), (fresh, "fresh")]
