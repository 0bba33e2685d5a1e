"""A run's diff against main, as the run view shows it: the summary, rows changed per column, and
changed rows side by side (a changed value as `old → new`)."""
from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from ...core.lake.diff import TableDiff
from ...core.text import count
from .result_table import cell_text

CHANGE_STYLE = {"changed": "yellow", "removed": "red", "added": "green"}


def diff_summary(diff: TableDiff) -> Text:
    key = ", ".join(diff.key) or "every column (no unique key)"
    text = Text.assemble(("Diff against main", "bold"), f"  by {key}:  ",
                         (f"+{diff.added:,} added", "green"), "  ", (f"−{diff.removed:,} removed", "red"), "  ",
                         (f"~{diff.changed:,} changed", "yellow"))
    text.append(f"  (read {diff.read})", style="grey50")
    for change in diff.schema_changes:
        what = {"added": "added column {column} {type}", "dropped": "dropped column {column}",
                "type": "column {column} {from} → {to}"}[change["change"]].format(**change)
        text.append(f"\nschema: {what}", style="magenta")
    return text


def _cell(old: dict | None, new: dict | None, column: str) -> Text:
    if old is None or new is None:
        side = new if old is None else old
        return Text(cell_text((side or {}).get(column)), style="green" if old is None else "red")
    if old.get(column) == new.get(column):
        return Text(cell_text(new.get(column)), style="grey70")
    return Text.assemble((cell_text(old.get(column)), "red"), " → ", (cell_text(new.get(column)), "green"))


def _longest_word(sample: list[dict], column: str) -> int:
    return max((len(word) for row in sample for side in (row["old"], row["new"]) if side is not None
                for word in cell_text(side.get(column)).split()), default=1)


def changed_rows(sample: list[dict]) -> Table:
    """The sample's rows side by side under their column names (a changed value as `old → new`)."""
    names = list((sample[0]["new"] or sample[0]["old"]).keys())
    rows = Table(title=f"Changed rows ({count(len(sample), 'row')} shown, old → new)", title_justify="left",
                 box=None, header_style="bold")
    rows.add_column("")
    for name in names:
        # A narrow table shrinks its columns below their values and cut them (`2024-01-…`): a column
        # keeps at least its longest word, so a value wraps at its spaces but is shown whole.
        rows.add_column(name, min_width=_longest_word(sample, name))
    for row in sample:
        rows.add_row(Text(row["change"], style=CHANGE_STYLE.get(row["change"], "")),
                     *[_cell(row["old"], row["new"], name) for name in names])
    return rows


def diff_view(diff: TableDiff) -> Group:
    parts: list = [diff_summary(diff)]
    changed_columns = {name: rows for name, rows in diff.columns.items() if rows}
    if changed_columns:
        columns = Table(box=None, header_style="bold")
        columns.add_column("column")
        columns.add_column("rows changed", justify="right")
        for name, rows in sorted(changed_columns.items(), key=lambda item: -item[1]):
            columns.add_row(name, f"{rows:,}")
        parts.append(columns)
    if diff.sample:
        parts.append(changed_rows(diff.sample))
    return Group(*parts)
