"""A pipeline's Tests tab: its unit test files (`tests/unit/*.yaml`) with their last outcome, and for the
highlighted test the rows of its failure (expected but missing, produced but unexpected) or its error."""
from __future__ import annotations

from dataclasses import replace

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from ...core.commands.unit_results import ListedUnitTest
from ...core.text import count
from ...core.unittests.spec import UNIT_FOLDER
from ..keymap import key_label
from .result_table import cell_text, event_row_key

STATUS_STYLE = {"passed": "green", "failed": "red", "error": "red", "running": "cyan"}


class UnitTestsPane(Vertical):
    DEFAULT_CSS = "UnitTestsPane #unit-test-diff { margin-top: 1; }"

    def __init__(self) -> None:
        super().__init__(id="unit-tests")
        self.tests: dict[str, ListedUnitTest] = {}

    def compose(self) -> ComposeResult:
        yield DataTable(id="unit-tests-table", cursor_type="row")
        yield VerticalScroll(Static(id="unit-test-diff"))

    def _key(self, action_id: str) -> str:
        return next((key_label(k.key) for k in getattr(self.app, "keymap", []) if k.id == action_id), action_id)

    def show(self, tests: list[ListedUnitTest]) -> None:
        self.tests = {t.result.name: t for t in tests}
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_columns("test", "status", "time", "file")
        for test in tests:
            name, status = test.result.name, test.result.status
            took = f"{test.ms / 1000:.2f} s" if test.ms is not None else ""
            table.add_row(name, Text(status, style=STATUS_STYLE.get(status, "grey50")),
                          took, f"{UNIT_FOLDER.as_posix()}/{test.path.rsplit('/', 1)[-1]}", key=name)
        if not tests:
            self._diff(Text(f"No unit tests yet: add tests/unit/<name>.yaml to the pipeline's folder, or press "
                            f"{self._key('unit_fixture')} to write one from its preview.", style="grey50"))
            return
        shown = next((t for t in tests if t.result.status in ("failed", "error")), tests[0])
        table.move_cursor(row=tests.index(shown))
        self.show_test(shown)

    def running(self) -> None:
        """`T` was pressed: every listed test is running until the outcome arrives."""
        self.show([replace(t, result=replace(t.result, status="running"), ms=None) for t in self.tests.values()])

    @on(DataTable.RowHighlighted, "#unit-tests-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        test = self.tests.get(event_row_key(event) or "")
        if test is not None:
            self.show_test(test)

    def show_test(self, listed: ListedUnitTest) -> None:
        test = listed.result
        status = test.status
        if status == "not run":
            self._diff(Text(f"{test.name}: not run yet; {self._key('unit_tests')} runs the pipeline's unit "
                            "tests.", style="grey50"))
        elif status == "passed":
            self._diff(Text(f"{test.name}: passed.", style="green"))
        elif status == "running":
            self._diff(Text(f"{test.name}: running…", style="cyan"))
        else:
            parts: list[RenderableType] = [Text(test.error or status, style="red")]
            where = _compared(test.failed_in)
            for rows, title in ((test.missing, f"expected, missing from {where}"),
                                (test.unexpected, f"in {where}, not expected")):
                if rows:
                    parts += [Text(""), Text(f"{count(len(rows), 'row')} {title}", style="italic"), rows_table(rows)]
            self._diff(Group(*parts))

    def _diff(self, body: RenderableType) -> None:
        self.query_one("#unit-test-diff", Static).update(body)


def _compared(failed_in: list[str]) -> str:
    """What the rows were compared with: the query's result (expect.output), the table after the strategy's write
    (expect.table_after), or both."""
    names = {"output": "the result", "table_after": "the table after the write"}
    return " or ".join(names[where] for where in failed_in) or "the result"


def rows_table(rows: list[dict]) -> Table:
    columns = list(dict.fromkeys(column for row in rows for column in row))
    table = Table(header_style="bold", box=None)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*[cell_text(row.get(c)) for c in columns])
    return table
