"""The session a run (or a preview, or a query) gets: its own SQL settings and temp views on the
shared JVM, and no way to stop the context every other run uses."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _stop_refused() -> None:
    raise RuntimeError("stopping the Spark session is not allowed in a pipeline: every run shares it")


class _RunContext:
    """The shared SparkContext as a run sees it: everything but `stop()`."""

    def __init__(self, context):
        object.__setattr__(self, "_context", context)

    def __getattr__(self, name: str):
        return getattr(object.__getattribute__(self, "_context"), name)

    def __setattr__(self, name: str, value) -> None:
        setattr(object.__getattribute__(self, "_context"), name, value)

    def stop(self) -> None:
        _stop_refused()


def _run_session_class():
    from pyspark.sql import SparkSession

    class RunSession(SparkSession):
        """A session of its own for one run (`newSession()`): shares the JVM, cache and
        catalogs, not SQL settings or temp views. Stopping it would stop every run: refused."""

        def __init__(self, parent: SparkSession):
            super().__init__(parent.sparkContext, parent._jsparkSession.newSession())

        @property
        def sparkContext(self):
            return _RunContext(self._sc)

        def newSession(self) -> SparkSession:  # noqa: N802 - pyspark's name
            return type(self)(self)

        def stop(self) -> None:
            _stop_refused()

    return RunSession


def RunSession(parent: "SparkSession") -> "SparkSession":  # noqa: N802 - builds the class lazily (pyspark is heavy)
    global _RUN_SESSION
    if _RUN_SESSION is None:
        _RUN_SESSION = _run_session_class()
    return _RUN_SESSION(parent)


_RUN_SESSION = None
