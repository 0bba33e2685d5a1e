"""A unit test file (`tests/unit/<name>.yaml` in a pipeline folder), read with the line of every part.

```yaml
given:
  - input: ref('bronze.raw_orders')      # or landing_zone('orders')
    rows: [{order_id: 1, status: paid}]
this: [{order_id: 1, status: new}]       # optional: the table before the run
vars: {is_incremental: true, watermark_value: '2024-01-01 00:00:00', run_started_at: '2024-01-03 00:00:00'}
expect:
  output: [{order_id: 1, status: paid}]
  table_after: [{order_id: 1, status: paid}]
ordered: false
```
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import RatError

UNIT_FOLDER = Path("tests", "unit")
VARS = ("is_incremental", "watermark_value", "run_started_at", "interval_start")
_INPUT = re.compile(r"""^\s*(ref|landing_zone)\(\s*['"]([^'"]+)['"]\s*\)\s*$""")


@dataclass(frozen=True)
class Rows:
    """Rows as the file gives them (column -> value), each with its line."""

    rows: tuple[dict[str, Any], ...]
    lines: tuple[int, ...]
    line: int  # where the list starts

    def columns(self) -> list[str]:
        seen: dict[str, None] = {}
        for row in self.rows:
            seen.update(dict.fromkeys(row))
        return list(seen)

    def line_of_column(self, column: str) -> int:
        return next((line for row, line in zip(self.rows, self.lines) if column in row), self.line)


@dataclass(frozen=True)
class Given:
    function: str  # ref | landing_zone
    name: str
    rows: Rows
    line: int


@dataclass
class UnitTest:
    pipeline: str  # fqn
    name: str  # the file's name without .yaml
    relpath: str  # project-relative path, for sentences
    given: list[Given] = field(default_factory=list)
    this: Rows | None = None
    vars: dict[str, Any] = field(default_factory=dict)
    vars_line: int = 1
    output: Rows | None = None
    table_after: Rows | None = None
    ordered: bool = False

    def error(self, message: str, line: int | None = None) -> RatError:
        return RatError(message, self.relpath, line)


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def parse_unit_test(text: str, relpath: str, pipeline: str) -> UnitTest:
    """The test, or a RatError naming the file and line of the first thing wrong with it."""
    test = UnitTest(pipeline, Path(relpath).stem, relpath)
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise test.error(f"YAML error: {problem}", mark.line + 1 if mark else None) from None
    finally:
        loader.dispose()
    if not isinstance(root, yaml.MappingNode):
        raise test.error("a unit test is a mapping with given: and expect:", _line(root) if root else 1)
    sections = {key.value: value for key, value in root.value}
    for key, value in root.value:
        if key.value not in ("given", "this", "vars", "expect", "ordered", "description"):
            raise test.error(f"unknown key '{key.value}' (keys: given, this, vars, expect, ordered)", _line(key))
    for item in _sequence(test, sections.get("given"), "given", required=False):
        test.given.append(_given(test, item))
    if "this" in sections:
        test.this = _rows(test, sections["this"], "this")
    if "vars" in sections:
        test.vars, test.vars_line = _vars(test, sections["vars"]), _line(sections["vars"])
    if "ordered" in sections:
        test.ordered = _construct(sections["ordered"]) is True
    expect = sections.get("expect")
    if not isinstance(expect, yaml.MappingNode):
        raise test.error("expect: needs output: and/or table_after: rows", _line(expect) if expect else _line(root))
    for key, value in expect.value:
        if key.value not in ("output", "table_after"):
            raise test.error(f"unknown expectation '{key.value}' (output or table_after)", _line(key))
        setattr(test, key.value, _rows(test, value, f"expect.{key.value}"))
    return test


def _construct(node: yaml.Node) -> Any:
    """Python values of one node (a fresh constructor: it caches every node it made)."""
    return yaml.SafeLoader("").construct_object(node, deep=True)


def _sequence(test: UnitTest, node: yaml.Node | None, what: str, required: bool = True) -> list[yaml.Node]:
    if node is None or (isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null")):
        if required:
            raise test.error(f"{what} needs a list of rows")
        return []
    if not isinstance(node, yaml.SequenceNode):
        raise test.error(f"{what} must be a list", _line(node))
    return list(node.value)


def _rows(test: UnitTest, node: yaml.Node, what: str) -> Rows:
    rows, lines = [], []
    for item in _sequence(test, node, what, required=False):
        if not isinstance(item, yaml.MappingNode):
            raise test.error(f"each row of {what} must be a mapping of column: value", _line(item))
        row = _construct(item)
        if not all(isinstance(k, str) for k in row):
            raise test.error(f"a row of {what} has a column name that is not text", _line(item))
        rows.append(row)
        lines.append(_line(item))
    return Rows(tuple(rows), tuple(lines), _line(node))


def _given(test: UnitTest, node: yaml.Node) -> Given:
    if not isinstance(node, yaml.MappingNode):
        raise test.error("each given: entry needs input: and rows:", _line(node))
    parts = {key.value: value for key, value in node.value}
    source = parts.get("input")
    match = _INPUT.match(source.value) if isinstance(source, yaml.ScalarNode) else None
    if match is None:
        raise test.error("given: input must be ref('layer.name') or landing_zone('zone')",
                         _line(source if source is not None else node))
    rows = parts.get("rows")
    if rows is None:
        raise test.error(f"given: input {source.value} has no rows:", _line(node))
    return Given(match.group(1), match.group(2), _rows(test, rows, source.value), _line(source))


def _vars(test: UnitTest, node: yaml.Node) -> dict[str, Any]:
    if not isinstance(node, yaml.MappingNode):
        raise test.error(f"vars: must be a mapping of {', '.join(VARS)}", _line(node))
    values = {}
    for key, value in node.value:
        if key.value not in VARS:
            raise test.error(f"unknown var '{key.value}' (vars: {', '.join(VARS)})", _line(key))
        values[key.value] = _construct(value)
    return values
