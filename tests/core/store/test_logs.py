"""The app's log file: one handler per file, and a new one when `.rat/` was deleted under the app."""
from __future__ import annotations

import logging
import shutil
from pathlib import Path

from rat_tui.core.store.logs import setup_logging


def test_the_log_comes_back_when_the_state_folder_was_deleted_under_the_app(tmp_path: Path):
    state = tmp_path / ".rat"
    root = logging.getLogger()
    before = list(root.handlers)
    try:
        path = setup_logging(state)
        assert setup_logging(state) == path
        logging.getLogger("rat_tui.test").warning("first")
        shutil.rmtree(state)  # as a user (or a test of state deleted under the app) does
        assert setup_logging(state) == path and path.exists()
        logging.getLogger("rat_tui.test").warning("second")
        for handler in root.handlers:
            handler.flush()
        assert "second" in path.read_text() and "first" not in path.read_text()
        assert len([h for h in root.handlers if getattr(h, "baseFilename", None) == str(path)]) == 1
    finally:
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)
            handler.close()
