"""`sample_project/generate.py` does what the README says (issue 27, item 4): by default it rewrites
the landing files it makes and nothing else; `--all` also wipes tables, state and archived files,
asking first, and never while an app has the project open."""
from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from devkit.sample import REPO, copy_sample, pristine_sample
from tests.lakehelpers import disk_state

GENERATED = ["ecommerce/landing/orders/orders_2024_01.csv", "ecommerce/landing/orders/orders_2024_02.csv",
             "ecommerce/landing/orders/orders_2024_03.csv", "ecommerce/landing/orders/_samples/orders_sample.csv",
             "ecommerce/landing/products/products.parquet", "ecommerce/landing/events/events_2024_q1.json"]


def ran_sample(tmp_path: Path) -> Path:
    """A copy of the sample as a user leaves it: orders archived, tables and state made, files uploaded."""
    project = copy_sample(tmp_path / "sample")
    orders = project / "ecommerce" / "landing" / "orders"
    (orders / "_processed" / "r1").mkdir(parents=True)
    for path in orders.glob("orders_*.csv"):
        path.rename(orders / "_processed" / "r1" / path.name)
    (orders / "orders_2024_04.csv").write_text("order_id\n301\n")  # uploaded by the user
    (project / "ecommerce" / "landing" / "products" / "more.csv").write_text("product_id\n99\n")
    table = project / "ecommerce" / "warehouse" / "bronze" / "raw_orders" / "metadata"
    table.mkdir(parents=True)
    (table / "v1.metadata.json").write_text("{}")
    (project / ".rat").mkdir()
    with contextlib.closing(sqlite3.connect(project / ".rat" / "state.db")) as db:
        db.execute("CREATE TABLE kept (x)")
    (project / "ecommerce" / "landing" / "events" / "events_2024_q1.json").write_text("edited\n")
    return project


def generate(project: Path, *flags: str, answer: str | None = None) -> subprocess.CompletedProcess:
    """This checkout's generator (a copy's own is the committed one) on the copy."""
    return subprocess.run([sys.executable, str(REPO / "sample_project" / "generate.py"), "--out", str(project), *flags],
                          input=answer, text=True, capture_output=True, timeout=120)


def files(project: Path) -> dict:
    """Every file, but the pipelines (`--out` copies them in) and the lock apps hold while open."""
    return {path: facts for path, facts in disk_state(project).items()
            if "/pipelines/" not in path and path != ".rat/open.lock"}


def kept(project: Path) -> dict:
    """Every file but the generated ones."""
    return {path: facts for path, facts in files(project).items() if path not in GENERATED}


def generated_as_committed(project: Path) -> bool:
    return all((project / path).read_bytes() == (pristine_sample() / path).read_bytes() for path in GENERATED)


def test_by_default_it_rewrites_only_the_landing_files_it_makes(tmp_path: Path):
    project = ran_sample(tmp_path)
    before = kept(project)
    done = generate(project)
    assert done.returncode == 0, done.stderr
    assert kept(project) == before  # tables, state, archived and uploaded files untouched
    assert generated_as_committed(project)


def test_all_asks_first_and_deletes_only_on_yes(tmp_path: Path):
    project = ran_sample(tmp_path)
    before = files(project)
    for answer in ("", "n\n", None):  # enter, no, and no terminal to ask on
        refused = generate(project, "--all", answer=answer)
        assert refused.returncode == 1 and "Delete them? [y/N]" in refused.stdout
        assert "nothing deleted" in refused.stdout
        assert files(project) == before
    done = generate(project, "--all", answer="y\n")
    assert done.returncode == 0, done.stderr
    assert not (project / ".rat").exists() and not (project / "ecommerce" / "warehouse").exists()
    assert not (project / "ecommerce" / "landing" / "orders" / "_processed").exists()
    assert generated_as_committed(project)


def test_all_refuses_while_an_app_has_the_project_open(tmp_path: Path):
    from rat_tui.core.compose import open_project

    project = ran_sample(tmp_path)
    before = files(project)
    workbench = open_project(project)  # what the TUI and a script open
    try:
        refused = generate(project, "--all", "--yes")
        assert refused.returncode == 1
        assert f"{project} is open in rat-tui (the app or a script); close it first; nothing deleted" in refused.stderr
    finally:
        workbench.close()
    state = files(project)
    assert {p: f for p, f in state.items() if not p.startswith(".rat/")} == \
        {p: f for p, f in before.items() if not p.startswith(".rat/")}
    assert (project / ".rat" / "state.db").exists()
    assert generate(project, "--all", "--yes").returncode == 0
    assert not (project / ".rat").exists()


def test_an_app_killed_with_the_project_open_does_not_block_it(tmp_path: Path):
    project = ran_sample(tmp_path)
    marker = tmp_path / "opened"
    other = subprocess.Popen([sys.executable, "-c", (
        "import sys, time, pathlib\n"
        "from rat_tui.core.compose import open_project\n"
        "workbench = open_project(sys.argv[1])\n"
        "pathlib.Path(sys.argv[2]).write_text('open')\n"
        "time.sleep(600)\n"), str(project), str(marker)], start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert other.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        assert generate(project, "--all", "--yes").returncode == 1  # a second process has it open
    finally:
        os.killpg(other.pid, signal.SIGKILL)
        other.wait(30)
    done = generate(project, "--all", "--yes")
    assert done.returncode == 0, done.stderr
    assert not (project / ".rat").exists()
