"""One-key fixtures: a unit test written from what a preview read and produced.

The preview's build runs on a context that records every input the pipeline reads (each `ref()`'s
table, each `landing_zone()`'s rows). Of each input at most N rows are kept, preferring the rows that
reach the preview's first N output rows: an input row is traced by the pipeline's `unique_key` columns
when the input has them, else by the key-like columns (`id`, `*_id`, `*_key`) that the input and the
output share (join keys usually keep their names). When nothing can be traced, the first N rows are kept.

The test's `expect: output` is the pipeline's output on those rows (the caller runs the test once to
get it), so the file pins today's behaviour and passes as written."""
from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import yaml

from ..run.context import SOURCE_FILE_COLUMN, RunContext
from ..values import json_value

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

KEY_SUFFIXES = ("_id", "_key")


class RecordingContext(RunContext):
    """A preview's context that remembers each input as a DataFrame, in the order the pipeline read them."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.recorded: dict[str, "DataFrame"] = {}

    def _record(self, label: str, df: "DataFrame") -> None:
        self.recorded.setdefault(label, df.drop(SOURCE_FILE_COLUMN))

    def ref_ident(self, name: str) -> str:
        ident = super().ref_ident(name)
        self._record(f"ref('{name}')", self.spark.table(ident))
        return ident

    def landing_view(self, zone: str) -> str:
        view = super().landing_view(zone)
        self._record(f"landing_zone('{zone}')", self.spark.table(view))
        return view

    def landing_df(self, zone: str) -> "DataFrame":
        df = super().landing_df(zone)
        self._record(f"landing_zone('{zone}')", df)
        return df


def trace_columns(input_columns: list[str], output_columns: list[str], unique_key: list[str]) -> list[str]:
    """The columns that tie an input's rows to the output's (see the module's docstring)."""
    shared = [c for c in input_columns if c in output_columns and c != SOURCE_FILE_COLUMN]
    keys = [c for c in unique_key if c in shared]
    return keys or [c for c in shared if c.lower() == "id" or c.lower().endswith(KEY_SUFFIXES)]


def sample_input(df: "DataFrame", output: "DataFrame", unique_key: list[str], rows: int) -> list[dict[str, Any]]:
    """At most `rows` rows of one input, those reaching the output's first `rows` rows first."""
    columns = trace_columns(df.columns, output.columns, unique_key)
    picked: list = []
    if columns:
        reached = output.select(*columns).limit(rows).distinct()
        picked = df.join(reached, columns, "left_semi").limit(rows).collect()
    if not picked:
        picked = df.limit(rows).collect()
    return [{name: yaml_value(value) for name, value in row.asDict().items()} for row in picked]


def yaml_value(value: Any) -> Any:
    """What the test file holds: YAML's own scalars where it has them (dates and timestamps stay typed,
    so the rows read back as DATE / TIMESTAMP), decimals and anything nested as text."""
    if value is None or isinstance(value, (bool, int, float, str, datetime, date)):
        return value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return json.dumps(json_value(value))


def _rows_yaml(rows: list[dict[str, Any]], indent: str) -> str:
    if not rows:
        return " []\n"
    flow = [yaml.safe_dump(row, default_flow_style=True, sort_keys=False, width=10**6, allow_unicode=True).strip()
            for row in rows]
    return "\n" + "".join(f"{indent}- {row}\n" for row in flow)


def fixture_text(pipeline: str, given: dict[str, list[dict[str, Any]]], this: list[dict[str, Any]] | None,
                 variables: dict[str, Any], output: list[dict[str, Any]]) -> str:
    """The test file: given inputs, `this` and vars when the preview used them, the expected output."""
    parts = [f"# Written from a preview of {pipeline}: the inputs' rows it read (traced to its output where\n"
             "# possible) and the output the pipeline gives on them. Edit freely.\n", "given:\n"]
    for label, rows in given.items():
        parts.append(f"  - input: {label}\n    rows:{_rows_yaml(rows, '      ')}")
    if this is not None:
        parts.append(f"this:{_rows_yaml(this, '  ')}")
    if variables:
        parts.append(yaml.safe_dump({"vars": variables}, default_flow_style=None, sort_keys=False, width=10**6,
                                    allow_unicode=True))
    parts.append(f"expect:\n  output:{_rows_yaml(output, '    ')}")
    return "".join(parts)
