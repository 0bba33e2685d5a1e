"""The sample's .gitignore: after first use `git status` lists only what the user wrote, not what
the app wrote (samples, typed copies, archived files, exports, state, tables)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rat_tui.core.landing.twins import twin_folder
from rat_tui.core.landing.uploads import upload
from rat_tui.core.project.model import Project
from rat_tui.core.landing.archive import archive_files
from tests.helpers import run_script_here


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=rat", "-c", "user.email=rat@example.com", "-C", str(root), *args],
                          check=True, capture_output=True, text=True).stdout


def test_git_status_lists_only_the_users_files_after_first_use(sample_copy: Path, tmp_path: Path):
    git(sample_copy, "init", "-q")
    git(sample_copy, "add", "-A")
    git(sample_copy, "commit", "-q", "-m", "the sample")
    zone = sample_copy / "ecommerce" / "landing" / "orders"
    (tmp_path / "late.csv").write_text("order_id,amount\n7,1.5\n")
    (tmp_path / "later.csv").write_text("order_id,amount\n8,2.5\n")
    upload(zone, [tmp_path / "late.csv", tmp_path / "later.csv"])  # writes their samples
    twin = twin_folder(zone, zone / "later.csv")
    twin.mkdir(parents=True)
    (twin / "part-0.parquet").write_bytes(b"PAR1")
    archive_files(zone, [zone / "late.csv"], "run1")
    rejected = zone / "_rejected" / "run1" / "rejected.jsonl"  # rows a quarantine run set aside
    rejected.parent.mkdir(parents=True)
    rejected.write_text('{"file": "late.csv", "line": 2}\n')
    (sample_copy / "exports").mkdir()
    (sample_copy / "exports" / "result.csv").write_text("a\n1\n")
    Project(sample_copy).state_dir.mkdir(exist_ok=True)
    (Project(sample_copy).state_dir / "state.db").write_bytes(b"")
    table = sample_copy / "ecommerce" / "warehouse" / "bronze" / "raw_orders" / "metadata"
    table.mkdir(parents=True)
    (table / "v1.metadata.json").write_text("{}")

    status = git(sample_copy, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert status == ["?? ecommerce/landing/orders/later.csv"]


@pytest.mark.spark
def test_git_status_lists_nothing_after_the_first_run_of_raw_orders(sample_copy: Path):
    """The load history keeps each order file from being read twice, so the sample leaves its tracked
    files where they are: running raw_orders changes nothing git tracks."""
    git(sample_copy, "init", "-q")
    git(sample_copy, "add", "-A")
    git(sample_copy, "commit", "-q", "-m", "the sample")

    status, results, stderr = run_script_here(sample_copy, "run ecommerce.bronze.raw_orders\n")

    assert status == 0, stderr
    assert results[-1]["ok"], results
    assert git(sample_copy, "status", "--porcelain", "--untracked-files=all") == ""
