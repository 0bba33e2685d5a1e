"""Editing rat.yaml in place: values change, the user's comments and layout stay."""
from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ..errors import RatError
from ..fileio import atomic_write


def set_values(path: Path, section: list[str], values: dict[str, Any]) -> None:
    """Set `values` under the nested `section` keys of rat.yaml, creating what is missing."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    yaml = YAML()
    yaml.preserve_quotes = True
    try:
        data = yaml.load(path.read_text(encoding="utf-8")) if path.exists() else None
    except YAMLError as exc:
        raise RatError(f"cannot edit rat.yaml: it does not parse ({str(exc).splitlines()[0]})", path) from None
    if data is None:
        data = {}
    node = data
    for key in section:
        if key not in node or node[key] is None:
            node[key] = {}
        node = node[key]
        if not isinstance(node, dict):
            raise RatError(f"cannot edit rat.yaml: '{key}' is not a mapping", path)
    node.update(values)
    out = io.StringIO()
    yaml.dump(data, out)
    atomic_write(path, out.getvalue().encode("utf-8"))
