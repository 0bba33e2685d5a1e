"""Shell commands attached to a warm engine against a process of their own: wall time of the whole
client process (`rat-tui query SELECT 1`, `rat-tui run ecommerce.bronze.raw_orders` with nothing new).

    python bench/attach.py [--repeat 5] [--cold 1]

Cold, each command also runs in a process of its own: from the install's class-data archive (made first if
missing) and without it (`spark.class_sharing: false`).

The host is this process (a Workbench with a warm session serving .rat/engine.sock, as an open TUI
does); each client is a fresh `python -m rat_tui` process, as a user's shell starts it.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from devkit.sample import copy_sample  # noqa: E402
from rat_tui.core.compose import open_project  # noqa: E402
from rat_tui.core.lake.class_sharing import ensure_bundled_archive  # noqa: E402
from rat_tui.script.host import EngineHost  # noqa: E402

COMMANDS = {"query SELECT 1": ["query", "SELECT 1"],
            "run raw_orders, nothing new": ["run", "ecommerce.bronze.raw_orders"]}


def client(root: Path, words: list[str], *flags: str) -> float:
    began = time.monotonic()
    subprocess.run([sys.executable, "-m", "rat_tui", *words, "-p", str(root), "--json", *flags],
                   check=True, capture_output=True)
    return time.monotonic() - began


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cold", type=int, default=1, help="runs of each command in a process of its own")
    args = parser.parse_args()
    root = copy_sample(Path(tempfile.mkdtemp(prefix="rat-bench-attach-")) / "project")
    ensure_bundled_archive()
    workbench = open_project(root)
    try:
        workbench.spark.session(timeout=600)
        workbench.runs.run("ecommerce.bronze.raw_orders")  # loaded once: the runs below find nothing new
        with EngineHost(workbench):
            for name, words in COMMANDS.items():
                client(root, words)  # the first of each warms the host's code paths
                attached = [client(root, words) for _ in range(args.repeat)]
                print(f"{name:30} attached: median {statistics.median(attached):.2f} s, "
                      f"best {min(attached):.2f} s over {args.repeat}")
        settings = root / "rat.yaml"
        with_sharing = settings.read_text()
        for sharing in (True, False):
            settings.write_text(with_sharing if sharing else
                                with_sharing.replace("spark:\n", "spark:\n  class_sharing: false\n", 1))
            label = "own process" + ("" if sharing else ", no class-data archive")
            for name, words in COMMANDS.items():
                own = [client(root, words, "--no-attach") for _ in range(args.cold)]
                print(f"{name:30} {label}: median {statistics.median(own):.2f} s, best {min(own):.2f} s "
                      f"over {args.cold}")
        settings.write_text(with_sharing)
    finally:
        workbench.close()
        shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
