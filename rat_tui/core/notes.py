"""What a green run did to the data, said to the user: one typed note per fact (issue 35).

A run that succeeded may still have quarantined rows, skipped files loaded before, added or kept
columns, kept values as text or dropped rows with no value. Each such fact is a `RunNote`, so the
Run tab can show it under the phase that caused it, the tree can mark "succeeded with notes" and
the script result can list them as `notes: [{kind, file, line, text}]`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RunNote:
    # quarantined | skipped_files | resent_files | duplicate_keys | schema | null_column | null_input | kept_as_text | empty_rows | excel_text | encoding
    # | number_format | dates_either_way | nothing_new | settings_changed | other
    kind: str
    text: str
    file: str | None = None  # project-relative path of the landing file the note is about
    line: int | None = None  # 1-based line in that file
    phase: str = "build_result"  # the phase that caused it (the Run tab shows the note under it)
    column: str | None = None  # a null_column note's column: a later run that reads it is told (lineage/null_columns.py)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "file": self.file, "line": self.line, "text": self.text}
