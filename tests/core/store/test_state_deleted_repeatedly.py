"""`rm -rf .rat` run again and again while the app uses its state (a reset script, a user's second try after
"Directory not empty"): the state is made again each time and no query fails. The app's tree refresh met
"disk I/O error" when a pass deleted the file it was opening, and the app closed on it."""
from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

from rat_tui.core.store.state import StateDB


def test_queries_go_on_while_the_state_folder_is_deleted_again_and_again(tmp_path: Path):
    state = StateDB(tmp_path / ".rat" / "state.db")
    recreated: list[bool] = []
    state.on_recreated(recreated.append)
    deleting = threading.Event()

    def delete_for(seconds: float) -> None:
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            shutil.rmtree(tmp_path / ".rat", ignore_errors=True)
            deleting.set()
        deleting.set()

    deleter = threading.Thread(target=delete_for, args=(0.3,))
    deleter.start()
    deleting.wait()
    answered = 0
    while deleter.is_alive():
        assert state.runs("ns.layer.name", limit=1) == []
        answered += 1
    deleter.join()
    assert state.runs("ns.layer.name", limit=1) == [] and answered
    assert recreated  # each recreation was heard of
    assert (tmp_path / ".rat" / "state.db").exists()
