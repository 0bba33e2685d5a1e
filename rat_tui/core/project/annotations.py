"""Header annotations: `-- @key: value` in SQL, `# @key: value` in Python.

Only the header counts: annotations are read from the comment block before the first
line that is neither blank nor a comment, so a `-- @key` further down is plain text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_COMMENT_PREFIX = {"sql": "--", "py": "#"}
_ANNOTATION = re.compile(r"@([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*?)\s*$")


@dataclass(frozen=True)
class Annotation:
    key: str  # normalised: lowercase, '-' turned into '_'
    value: str
    line: int  # 1-based


def parse_annotations(text: str, kind: str = "sql") -> list[Annotation]:
    prefix = _COMMENT_PREFIX[kind]
    found: list[Annotation] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if kind == "py" and number == 1 and line.startswith("#!"):
            continue
        if not line.startswith(prefix):
            break
        match = _ANNOTATION.fullmatch(line[len(prefix):].strip())
        if match:
            key = match.group(1).lower().replace("-", "_")
            found.append(Annotation(key, match.group(2), number))
    return found
