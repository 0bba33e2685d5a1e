"""The Textual application."""
from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Tree

from ..core.workbench import Workbench


class RatApp(App):
    TITLE = "rat-tui"
    BINDINGS = [("q", "quit", "Quit")]

    def __init__(self, workbench: Workbench):
        super().__init__()
        self.workbench = workbench
        self.sub_title = workbench.project.root.name

    def compose(self) -> ComposeResult:
        yield Header()
        yield Tree("project", id="project-tree")
        yield Footer()

    def on_mount(self) -> None:
        tree = self.query_one(Tree)
        tree.root.expand()
        for ns in self.workbench.ls()["namespaces"]:
            node = tree.root.add(ns["name"], expand=True)
            pipes = node.add("pipelines", expand=True)
            for fqn in ns["pipelines"]:
                pipes.add_leaf(fqn.split(".", 1)[1])
            zones = node.add("landing", expand=True)
            for zone in ns["zones"]:
                zones.add_leaf(zone)
