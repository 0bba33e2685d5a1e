"""What the unit-test commands return: typed results the Tests tab reads by attribute; `as_dict()` is each
one's line in the script contract (docs/script.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..unittests.execute import UnitResult


@dataclass(frozen=True)
class UnitTestReport:
    """The outcome of each unit test that ran (`test`)."""

    tests: list[UnitResult]

    def as_dict(self) -> dict[str, Any]:
        return {"tests": [r.as_dict() for r in self.tests]}


@dataclass(frozen=True)
class ListedUnitTest:
    """A unit test file of a pipeline (`path`, from the project root) with its last outcome in this process:
    status `not run` (and `ms` None) before it ran."""

    result: UnitResult
    path: str
    ms: int | None


@dataclass(frozen=True)
class FixtureWritten:
    """A unit test written from a pipeline's preview (`test-fixture`): its file, the rows it gives each input,
    the rows it expects, and its outcome."""

    path: str
    name: str
    inputs: dict[str, int]
    output_rows: int
    test: UnitResult

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "name": self.name, "inputs": self.inputs, "output_rows": self.output_rows,
                "test": self.test.as_dict()}
