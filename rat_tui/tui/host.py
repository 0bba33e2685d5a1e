"""What the keys, the background workers, the script host and the app's reactions ask of the app: a
small host, so none of them imports the App (which builds them), and what they reach is written here."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from textual.message import Message
from textual.widget import Widget

from ..core.compose import Workbench
from .components.detail_area import DetailArea
from .components.project_tree import NodeData
from .components.run_view import LiveRuns
from .components.selection_view import SelectionProgress
from .jobs import Jobs
from .keymap import KeyAction

W = TypeVar("W", bound=Widget)


class AppHost(Protocol):
    workbench: Workbench
    keymap: list[KeyAction]
    detail: DetailArea  # the right side
    selected: NodeData | None  # the tree node the right side was opened on
    selection: SelectionProgress | None  # the selection the progress view shows
    live_runs: LiveRuns
    jobs: Jobs

    @property
    def focused(self) -> Widget | None: ...

    @property
    def closing(self) -> bool: ...

    def notify(self, message: str, **options: Any) -> None: ...

    def log_line(self, text: str, style: str = "", at: float | None = None) -> None: ...

    def post_message(self, message: Message) -> bool: ...

    def push_screen(self, screen: Any, callback: Callable[[Any], Any] | None = None) -> Any: ...

    def query_one(self, selector: type[W]) -> W: ...

    def query(self, selector: type[W]) -> Any: ...

    def set_interval(self, interval: float, callback: Callable[[], Any]) -> Any: ...

    def run_worker(self, work: Callable[[], Any], **options: Any) -> Any: ...

    def call_from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...

    def update_from_thread(self, kind: type[W], update: Callable[[W], None]) -> None: ...

    def refresh_tree(self) -> Any: ...

    def reload(self) -> None: ...

    def load_detail(self, node: NodeData, run_tab: bool = False) -> None: ...

    async def show_selection(self, title: str, names: list[str], opened_on: NodeData | None = None) -> None: ...
