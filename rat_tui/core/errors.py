"""User-facing problems and errors: one clear sentence naming the file, line and cause."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


class Reported(Protocol):
    """A command's typed result: `as_dict()` gives the fields of its line in the script contract
    (docs/script.md); the script face prints them, the TUI reads the attributes."""

    def as_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Problem:
    """A finding about a project file. `line` is 1-based, or None when it has no line."""

    path: str
    message: str
    line: int | None = None
    severity: str = "error"  # error | warning

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def sentence(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"

    def as_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "message": self.message, "severity": self.severity}


class RatError(Exception):
    """An error at a boundary (bad input, bad data, bad configuration) shown to the user as one sentence."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        # what a failed command still reports (e.g. validate's problems, a selection's runs so far)
        self.result: Reported | dict = {}
        super().__init__(self.sentence())

    @classmethod
    def with_result(cls, message: str, result: Reported | dict) -> "RatError":
        error = cls(message)
        error.result = result
        return error

    def sentence(self) -> str:
        if self.path is None:
            return self.message
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"

    @classmethod
    def from_problem(cls, problem: Problem) -> "RatError":
        return cls(problem.message, problem.path, problem.line)


def reported_fields(result: Reported | dict) -> dict[str, Any]:
    """A result's fields as the script contract prints them: a typed result's `as_dict()`, a dict as it is."""
    return result if isinstance(result, dict) else result.as_dict()


class RunCancelled(Exception):
    """Raised inside a run when the user (or a shutdown) cancelled it."""


def did_you_mean(name: str, candidates: list[str]) -> str:
    """'; did you mean `x`?' for the closest of `candidates` (a typo in a ref or a zone), else ''."""
    import difflib

    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return f"; did you mean `{close[0]}`?" if close else ""
