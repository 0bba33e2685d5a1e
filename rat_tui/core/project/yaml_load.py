"""YAML as the project's files are read: PyYAML's safe loader, except that a scalar it takes for a date that
does not exist (`start: 2024-13-01`) is a YAML error at its line, not a ValueError out of the loader, and so
is a key given twice in one mapping (PyYAML keeps the last and drops the first without a word: a second
`zones:` pasted at a file's end lost every zone's settings above it)."""
from __future__ import annotations

from typing import Any

import yaml


class _CheckedDatesLoader(yaml.SafeLoader):
    def construct_yaml_timestamp(self, node: yaml.ScalarNode) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"'{node.value}' is not a date that exists ({exc})", node.start_mark) from None


    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        lines: dict[tuple[str, str], int] = {}
        for key_node, _ in node.value:  # before `<<` merges are flattened: a key may override a merged one
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key, line = (key_node.tag, key_node.value), key_node.start_mark.line + 1
            if key in lines:
                where = f"lines {lines[key]} and {line}" if lines[key] != line else f"line {line}"
                raise yaml.constructor.ConstructorError(
                    None, None, f"'{key_node.value}' is given twice ({where}): YAML keeps only the last, which drops "
                    "the first; merge the two", key_node.start_mark)
            lines[key] = line
        return super().construct_mapping(node, deep)


_CheckedDatesLoader.add_constructor("tag:yaml.org,2002:timestamp", _CheckedDatesLoader.construct_yaml_timestamp)


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_CheckedDatesLoader)  # noqa: S506 (a SafeLoader)


def yaml_error(exc: yaml.YAMLError) -> tuple[int | None, str]:
    """The line and the sentence of a YAML error: a syntax error's reason, or the value that is no date."""
    mark = getattr(exc, "problem_mark", None)
    reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    sentence = reason if isinstance(exc, yaml.constructor.ConstructorError) else f"YAML syntax error: {reason}"
    return (mark.line + 1 if mark is not None else None), sentence


def key_lines(node: yaml.Node | None, prefix: str = "") -> dict[str, int]:
    """The line of every key of a mapping, nested ones dotted (`freshness.warn_after`), so a problem with a
    value names the value's own line rather than its section's."""
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            dotted = f"{prefix}{key_node.value}"
            lines[dotted] = key_node.start_mark.line + 1
            lines.update(key_lines(value_node, dotted + "."))
    return lines
