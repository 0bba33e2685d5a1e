"""Lineage a run's build phase read from Spark's plan (a Python pipeline's), held by run id until the
run's end event keeps it with the run (run_lineage.py): the phases need not know where lineage goes."""
from __future__ import annotations

import threading
from collections import OrderedDict

from .model import PipelineLineage

_KEPT = 64  # a unit test's or a crashed run's entry is never taken: the oldest go
_found: OrderedDict[str, PipelineLineage] = OrderedDict()
_lock = threading.Lock()


def hand_over(run_id: str, lineage: PipelineLineage) -> None:
    with _lock:
        _found[run_id] = lineage
        while len(_found) > _KEPT:
            _found.popitem(last=False)


def take(run_id: str) -> PipelineLineage | None:
    with _lock:
        return _found.pop(run_id, None)
