"""User-facing problems and errors: one clear sentence naming the file, line and cause."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


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
        self.result: dict = {}  # fields a failed command still reports (e.g. validate's problems)
        super().__init__(self.sentence())

    @classmethod
    def with_result(cls, message: str, result: dict) -> "RatError":
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


class RunCancelled(Exception):
    """Raised inside a run when the user (or a shutdown) cancelled it."""


def did_you_mean(name: str, candidates: list[str]) -> str:
    """'; did you mean `x`?' for the closest of `candidates` (a typo in a ref or a zone), else ''."""
    import difflib

    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return f"; did you mean `{close[0]}`?" if close else ""
