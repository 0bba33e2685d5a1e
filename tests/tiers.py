"""Test tiers, decided from what a test uses, so a new test gets its tier without a mark:

- `spark`: Spark in this process, the one JVM of the `lake` fixture (the test or one of its
  fixtures asks for `lake`, or the test is marked `spark` because it opens a Workbench of its own
  and starts Spark there; the `lake` JVM is then started first, and that Workbench gets a session
  of its own on it: `share_the_lake_jvm`).
- `process`: a child `python -m rat_tui` (with a JVM of its own), found in the code the test and
  its fixtures call, down through the helper modules of tests/.
- `fast`: neither. Starting Spark in a test that is not `spark` fails the test (`forbid_spark`).
"""
from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterator

import pytest

# The constants of a call that starts `python -m rat_tui …` (every child-starting site has one).
CHILD_ENTRY = frozenset({"rat_tui", "rat-tui"})


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _functions(obj: object) -> list[Callable]:
    """The functions behind a name a test reaches: itself, or a class's methods."""
    if isinstance(obj, type):
        return [inspect.unwrap(f) for f in vars(obj).values() if inspect.isfunction(f)]
    obj = inspect.unwrap(obj) if callable(obj) else obj
    return [obj] if inspect.isfunction(obj) else []


def _ours(obj: object) -> bool:
    module = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None) or ""
    return module == "tests" or module.startswith("tests.")


def starts_children(func: Callable, seen: set[types.CodeType] | None = None) -> bool:
    """Whether calling `func` can start a child `rat_tui` process: a code object of it (or of a
    function or class of tests/ it names, at any depth) holds the entry's name beside `subprocess`."""
    seen = set() if seen is None else seen
    code = getattr(func, "__code__", None)
    if code is None or code in seen:
        return False
    seen.add(code)
    names = func.__globals__
    for part in _code_objects(code):
        if CHILD_ENTRY & {c for c in part.co_consts if isinstance(c, str)} and {"subprocess", "Popen"} & set(part.co_names):
            return True
        for name in part.co_names:
            target = names.get(name)
            if isinstance(target, types.ModuleType):  # `killhelpers.kill_at(…)`: every attribute it names
                reached = [getattr(target, attr, None) for attr in part.co_names] if _ours(target) else []
            else:
                reached = [target] if _ours(target) else []
            if any(starts_children(f, seen) for obj in reached for f in _functions(obj)):
                return True
    return False


def uses_children(item: pytest.Item) -> bool:
    """The test function or one of the fixtures of tests/ it uses starts a child `rat_tui`."""
    funcs = [getattr(item, "function", None)]
    for defs in item._fixtureinfo.name2fixturedefs.values():
        funcs += [d.func for d in defs if _ours(d.func)]
    seen: set[types.CodeType] = set()
    return any(starts_children(inspect.unwrap(f), seen) for f in funcs if f is not None)


def tier_of(item: pytest.Item) -> str:
    if uses_children(item):
        return "process"
    if "lake" in item.fixturenames or item.get_closest_marker("spark"):
        return "spark"
    return "fast"


def mark_tiers(items: list[pytest.Item]) -> None:
    """Mark each test `fast`, `spark` or `process`; a `process` test that also uses the session's
    JVM keeps its `spark` mark too (`-m "spark and not process"`: the in-process Spark tests)."""
    for item in items:
        tier = tier_of(item)
        item.add_marker(tier)
        if tier == "process" and "lake" in item.fixturenames:
            item.add_marker("spark")


class SparkForbidden(RuntimeError):
    pass


def forbid_spark(monkeypatch: pytest.MonkeyPatch, nodeid: str, started: list[str]) -> None:
    """Make launching (or borrowing) a JVM raise in a test that is not in the `spark` tier. The guard sits
    where a JVM is launched, so a test of a session start that fails before that stays `fast`."""
    from rat_tui.core.lake import session

    sentence = (f"{nodeid} starts Spark but is not in the `spark` tier: give it the `lake` (or `scratch`) "
                "fixture, or mark it `@pytest.mark.spark` if it opens a Workbench of its own (tests/tiers.py)")

    def refuse(*args, **kwargs):
        started.append(sentence)
        raise SparkForbidden(sentence)

    monkeypatch.setattr(session, "_launch", refuse)


def share_the_lake_jvm(monkeypatch: pytest.MonkeyPatch, lake_spark) -> None:
    """A Workbench a `spark` test opens gets a session of its own on the `lake` JVM, whatever ran before:
    its own SQL settings and so its own catalogs (PySpark's reuse would re-point the lake's catalogs at
    the test's folders), and stopping it leaves the JVM running for the tests after it."""
    from pyspark.sql import SparkSession

    from rat_tui.core.lake import session

    class Borrowed(SparkSession):
        def stop(self) -> None:  # the JVM is the lake fixture's
            pass

    def launch(conf: dict[str, str], log_path) -> SparkSession:
        own = Borrowed(lake_spark.sparkContext, lake_spark._jsparkSession.newSession())
        for key, value in conf.items():
            if key.startswith("spark.sql."):
                try:
                    own.conf.set(key, value)
                except Exception:  # a static setting: fixed when the lake's JVM started
                    pass
        return own

    monkeypatch.setattr(session, "_launch", launch)
