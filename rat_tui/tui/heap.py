"""Long-lived objects set aside from the garbage collector: a full collection walked every object
the app keeps for its lifetime (modules, classes, widgets, pyspark and the gateway, PyIceberg),
stalling frames 60-150 ms while a result scrolled."""
from __future__ import annotations

import gc


def freeze_long_lived() -> None:
    """Called where the app has just loaded what it keeps: start-up, Spark ready, the console's
    catalog and its first result. The young generations are collected first, so little garbage is
    set aside."""
    gc.collect(1)
    gc.freeze()


def release() -> None:
    """At exit: what was set aside is freed again (extension modules report it as leaked otherwise)."""
    gc.unfreeze()
