"""The TUI on a project kept in a bucket: a colleague's edit shows in the tree and `g` pulls it."""
from __future__ import annotations

from pathlib import Path

from devkit.pilot import notifications, screen, select, until
from rat_tui.core.compose import open_project
from rat_tui.tui.app import RatApp
from rat_tui.tui.components.status_bar import StatusBar
from tests.conftest import SAMPLE
from tests.s3helpers import bucket_project, new_bucket

PIPE = "ecommerce/pipelines/silver/clean_orders/pipeline.sql"
FQN = "ecommerce.silver.clean_orders"


async def test_a_colleagues_edit_is_marked_in_the_tree_and_pulled_with_g(s3_env, tmp_path: Path):
    bucket = new_bucket(s3_env)
    mine = open_project(bucket_project(tmp_path / "mine", s3_env, bucket, SAMPLE))
    mine.bucket.push()
    theirs = open_project(bucket_project(tmp_path / "theirs", s3_env, bucket))
    theirs.bucket.connect_remote()
    edited = (theirs.project.root / PIPE).read_text() + "\n-- filter tuned by a colleague\n"
    theirs.files.write(PIPE, edited)

    app = RatApp(mine, watch=False, warm_spark=False)
    async with app.run_test(size=(140, 45)) as pilot:
        bar = app.query_one(StatusBar)
        await until(pilot, lambda: bar.bucket_state == "1 change(s) to pull", 30, "the bucket check")
        await select(pilot, "pipeline", FQN)
        await until(pilot, lambda: "clean_orders ⇣" in screen(app), 10, "the remote mark in the tree")
        assert f"bucket {bucket} 1 change(s) to pull" in screen(app)
        await pilot.press("g")
        await until(pilot, lambda: bar.bucket_state == "in step", 30, "the pull")
        await until(pilot, lambda: "clean_orders ⇣" not in screen(app), 10, "the mark to go")
        assert (mine.project.root / PIPE).read_text() == edited

        # a pipeline new to this folder comes in by itself at the next check (every 30 s)
        theirs.files.write("ecommerce/pipelines/gold/top_customers/pipeline.sql", "SELECT 1 AS customer_id\n")
        app.check_remote()
        await until(pilot, lambda: "top_customers" in screen(app), 30, "the new pipeline in the tree")
        assert bar.bucket_state == "in step"
    assert (mine.project.root / "ecommerce/pipelines/gold/top_customers/pipeline.sql").is_file()


async def test_an_unreachable_bucket_is_reported_and_the_app_keeps_working(s3_env, tmp_path: Path):
    import shutil
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    project = tmp_path / "p"
    shutil.copytree(SAMPLE, project, ignore=shutil.ignore_patterns(".rat", "warehouse"))
    rat_yaml = project / "rat.yaml"  # the sample's zones: has ecommerce/orders already (a second zones: is refused)
    rat_yaml.write_text(rat_yaml.read_text().replace("  ecommerce/orders:\n", "  ecommerce/orders:\n    auto_purge: true\n", 1)
                        + f"storage: {{type: s3, endpoint: 'http://127.0.0.1:{port}', bucket: rat, retry_seconds: 1}}\n")
    app = RatApp(open_project(project), watch=False, warm_spark=False)
    async with app.run_test(size=(140, 45)) as pilot:
        bar = app.query_one(StatusBar)
        await until(pilot, lambda: bar.bucket_state == "unreachable", 30, "the failed bucket check")
        shown = lambda: [(n.title, n.message) for n in notifications(app)]  # noqa: E731
        await until(pilot, lambda: any(title == "bucket failed" for title, _ in shown()), 10, "the notification")
        [message] = [m for title, m in shown() if title == "bucket failed"]
        assert message.startswith("bucket rat at http://127.0.0.1:") and message.endswith("the endpoint cannot be reached")
        assert "bucket rat unreachable" in screen(app)
        await select(pilot, "pipeline", FQN)  # still browsing
        await until(pilot, lambda: "Effective config" in screen(app), 20, "the pipeline")
        assert app.is_running
