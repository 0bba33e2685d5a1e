"""The sample project as committed, for tests, benchmarks and screenshots.

A user who follows the README runs the sample in place: tables, state and samples
appear. Nothing here may depend on that, so copies come
from git's committed tree (or, outside a git checkout, from the data generator).
"""
from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@lru_cache(maxsize=None)
def pristine_sample(repo: Path = REPO) -> Path:
    """A private folder holding the committed sample project (made once per process; do not write into it)."""
    folder = Path(tempfile.mkdtemp(prefix="rat-sample-"))
    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", "HEAD", "sample_project"],
                             capture_output=True)
    if archive.returncode == 0:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(folder, filter="data")
    else:  # not a git checkout: the pipelines as they are, the landing data generated afresh
        subprocess.run([sys.executable, str(repo / "sample_project" / "generate.py"),
                        "--out", str(folder / "sample_project")], check=True, capture_output=True)
        shutil.copy(repo / "sample_project" / "rat.yaml", folder / "sample_project" / "rat.yaml")
    return folder / "sample_project"


def copy_sample(target: Path, repo: Path = REPO) -> Path:
    """A fresh copy of the committed sample project at `target`."""
    shutil.copytree(pristine_sample(repo.resolve()), target)
    return target
