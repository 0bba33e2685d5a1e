"""Tests build their sample from the committed tree, never from a working copy the user has run."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from devkit.sample import copy_sample


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_copies_come_from_git_not_from_a_run_sample(tmp_path: Path):
    repo = tmp_path / "repo"
    orders = repo / "sample_project" / "ecommerce" / "landing" / "orders"
    orders.mkdir(parents=True)
    (orders / "orders_2024_01.csv").write_text("order_id\n1\n")
    (repo / "sample_project" / "rat.yaml").write_text("watch: {enabled: true}\n")
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    _git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "sample")
    # what running the sample does to the working copy
    (orders / "_processed" / "r1").mkdir(parents=True)
    (orders / "orders_2024_01.csv").rename(orders / "_processed" / "r1" / "orders_2024_01.csv")
    (repo / "sample_project" / "ecommerce" / "warehouse" / "bronze").mkdir(parents=True)
    (repo / "sample_project" / ".rat").mkdir()

    copy = copy_sample(tmp_path / "copy", repo=repo)

    assert (copy / "ecommerce" / "landing" / "orders" / "orders_2024_01.csv").read_text() == "order_id\n1\n"
    assert not (copy / "ecommerce" / "landing" / "orders" / "_processed").exists()
    assert not (copy / "ecommerce" / "warehouse").exists()
    assert not (copy / ".rat").exists()


def test_generate_resets_what_running_the_sample_changed(tmp_path: Path):
    project = copy_sample(tmp_path / "sample")
    orders = project / "ecommerce" / "landing" / "orders"
    committed = sorted(p.name for p in orders.glob("orders_*.csv"))
    (orders / "_processed" / "r1").mkdir(parents=True)
    for path in orders.glob("orders_*.csv"):
        path.rename(orders / "_processed" / "r1" / path.name)
    (project / "ecommerce" / "warehouse" / "bronze" / "raw_orders").mkdir(parents=True)
    (project / ".rat").mkdir()

    subprocess.run([sys.executable, str(project / "generate.py"), "--all", "--yes"], check=True, capture_output=True)

    assert sorted(p.name for p in orders.glob("orders_*.csv")) == committed
    assert not (orders / "_processed").exists()
    assert not (project / "ecommerce" / "warehouse").exists()
    assert not (project / ".rat").exists()
