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


def test_a_state_file_deleted_the_instant_it_was_made_is_made_again(tmp_path: Path, monkeypatch):
    """Found by CI under load (the test above): a deletion between making the file and reading its identity left
    the identity None, which a missing file matches; no later query made the file again."""
    import rat_tui.core.store.state as module

    real, asked = module._identity, []

    def gone_the_first_time(path: Path):
        asked.append(path)
        return None if len(asked) == 1 else real(path)

    monkeypatch.setattr(module, "_identity", gone_the_first_time)
    state = StateDB(tmp_path / ".rat" / "state.db")
    shutil.rmtree(tmp_path / ".rat")
    assert state.runs("ns.layer.name", limit=1) == []
    assert (tmp_path / ".rat" / "state.db").exists()
