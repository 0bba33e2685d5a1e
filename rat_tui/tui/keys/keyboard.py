"""Every key of the app: the groups of what keys do, and which of their methods each key id of the
keymap calls (the bindings run `key('<id>')`). One table, written out, instead of a method per key."""
from __future__ import annotations

from collections.abc import Callable

from ..background import Background
from ..host import AppHost
from .graph_keys import GraphKeys
from .landing_keys import LandingKeys
from .pipeline_keys import PipelineKeys
from .review_keys import ReviewKeys
from .table_keys import TableKeys
from .upkeep_keys import UpkeepKeys
from .view_keys import ViewKeys


class Keyboard:
    def __init__(self, app: AppHost, background: Background) -> None:
        self.pipeline, self.graph, self.landing = PipelineKeys(app), GraphKeys(app), LandingKeys(app)
        self.review, self.tables = ReviewKeys(app, self.pipeline, self.graph), TableKeys(app, self.graph)
        self.upkeep, self.view = UpkeepKeys(app, background), ViewKeys(app)
        # Each entry looks its method up when the key is pressed (a test may swap one in).
        self.actions: dict[str, Callable[[], object]] = {
            "run": lambda: self.pipeline.run("run"),
            "run_published": lambda: self.pipeline.run("run_published"),
            "run_reload_files": lambda: self.pipeline.run("run_reload_files"),
            "cancel": lambda: self.pipeline.cancel(),
            "run_review": lambda: self.review.run(),
            "review_downstream": lambda: self.review.downstream(),
            "approve": lambda: self.review.approve(),
            "preview": lambda: self.pipeline.preview(),
            "unit_tests": lambda: self.pipeline.unit_tests(),
            "unit_fixture": lambda: self.pipeline.unit_fixture(),
            "run_downstream": lambda: self.graph.run_selector("run_downstream", "{}+"),
            "run_upstream": lambda: self.graph.run_selector("run_upstream", "+{}"),
            "full_refresh": lambda: self.graph.run_selector("full_refresh", "{}+", full_refresh=True),
            "build": lambda: self.graph.build(),
            "lineage": lambda: self.graph.lineage(),
            "project_lineage": lambda: self.graph.show_lineage(None),
            "publish": lambda: self.pipeline.publish(),
            "rollback": lambda: self.pipeline.rollback(),
            "rollback_table": lambda: self.tables.rollback(),
            "diff": lambda: self.tables.diff(),
            "compact": lambda: self.pipeline.compact(),
            "upload": lambda: self.landing.upload(),
            "zone_settings": lambda: self.landing.settings(),
            "pin_dialect": lambda: self.landing.pin_dialect(),
            "purge": lambda: self.review.reject() or self.upkeep.purge(),  # on a run awaiting review: reject it
            "doctor": lambda: self.upkeep.doctor(),
            "watch": lambda: self.view.toggle_watch(),
            "automation": lambda: self.view.automation(),
            "freshness": lambda: self.view.freshness(),
            "intervals": lambda: self.view.intervals(),
            "pull": lambda: self.upkeep.pull(),
            "prev_tab": lambda: self.view.switch_tab(-1),
            "next_tab": lambda: self.view.switch_tab(1),
            "refresh": lambda: app.reload(),
            "tree": lambda: self.view.focus_tree(),
            "detail": lambda: self.view.focus_detail(),
            "log": lambda: self.view.toggle_log(),
            "console": lambda: self.view.console(False),
            "console_insert": lambda: self.view.console(True),
            "help": lambda: self.view.help(),
        }

    def press(self, action_id: str) -> None:
        self.actions[action_id]()
