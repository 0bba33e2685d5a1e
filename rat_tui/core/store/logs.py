"""The app's own log: `.rat/logs/app.log`, rotated. Tracebacks of internal bugs go here, not to the screen."""
from __future__ import annotations

import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path


def setup_logging(state_dir: Path) -> Path:
    logs = state_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    path = logs / "app.log"
    root = logging.getLogger()
    for stale in [h for h in root.handlers if isinstance(h, RotatingFileHandler) and Path(h.baseFilename) == path
                  and not path.exists()]:  # `.rat/` deleted under the app: it would write to a file no one sees
        root.removeHandler(stale)
        stale.close()
    if not any(isinstance(h, RotatingFileHandler) and Path(h.baseFilename) == path for h in root.handlers):
        handler = RotatingFileHandler(path, maxBytes=5 * 1024 * 1024, backupCount=3, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(logging.INFO)
    # py4j logs every gateway round trip at INFO; keep the app log readable.
    logging.getLogger("py4j").setLevel(logging.WARNING)
    # PyIceberg says "Defaulting to PyArrow FileIO" on every table it opens (the tree opens many).
    logging.getLogger("pyiceberg.io").setLevel(logging.WARNING)
    return path
