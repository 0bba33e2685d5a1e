"""User SQL is one read-only query: pipelines, quality tests, previews and `query` refuse the rest,
decided by Spark's parser (not a keyword regex), and nothing is written anywhere."""
from __future__ import annotations

import pytest

from tests.bad_inputs import HOSTILE_SQL, WRITES
from tests.helpers import script
from tests.lakehelpers import Scratch, disk_state

pytestmark = pytest.mark.spark


def victim(scratch: Scratch) -> str:
    """A table another pipeline owns, with one row."""
    fqn = scratch.pipeline("bronze", "victim", "SELECT 1 AS id")
    assert scratch.run(fqn)["status"] == "success"
    return fqn


@pytest.mark.parametrize("case", HOSTILE_SQL, ids=[c[0] for c in HOSTILE_SQL])
def test_a_pipeline_that_is_not_one_read_only_query_is_refused(scratch: Scratch, case):
    _, sql, sentence, line = case
    target = victim(scratch)
    fqn = scratch.pipeline("silver", "hostile", sql.format(victim=target, ns=scratch.ns))
    before = disk_state(scratch.root)
    for command in (f"run {fqn}", f"preview {fqn}"):
        status, results = script(scratch.wb, command + "\n")
        where = f"{scratch.ns}/pipelines/silver/hostile/pipeline.sql" + (f":{line}" if line else "")
        assert status == 1 and results[0]["ok"] is False
        assert results[0]["error"].endswith(f"{where}: {sentence}"), results[0]["error"]
    assert disk_state(scratch.root) == before
    assert scratch.rows(f"SELECT id FROM {target}") == [[1]]
    assert not scratch.table_exists("silver", "hostile")


def test_a_quality_test_that_deletes_is_refused_and_main_keeps_its_rows(scratch: Scratch):
    fqn = scratch.pipeline("silver", "q", "SELECT 1 AS id", tests={"wipe": "DELETE FROM {{ this }}"})
    status, results = script(scratch.wb, f"run {fqn}\n")
    assert status == 1
    assert results[0]["run"]["error"] == (
        f"quality test wipe could not run: {scratch.ns}/pipelines/silver/q/tests/quality/wipe.sql: "
        "a quality test " + WRITES.format(kind="DELETE"))
    assert not scratch.table_exists("silver", "q")


@pytest.mark.parametrize("sql,sentence", [
    ("WITH x AS (SELECT 55 AS id) INSERT INTO {victim} SELECT * FROM x", "a query " + WRITES.format(kind="INSERT")),
    ("/* only reads */ INSERT INTO {victim} VALUES (7)", "a query " + WRITES.format(kind="INSERT")),
    ("DROP TABLE {victim}", "a query " + WRITES.format(kind="DROP TABLE")),
    ("SELECT reflect('java.lang.System', 'exit', 0)", "a query may not call reflect() (it calls Java methods)"),
], ids=["cte-insert", "comment-then-insert", "drop", "reflect"])
def test_query_refuses_anything_but_reading(scratch: Scratch, sql: str, sentence: str):
    target = victim(scratch)
    before = disk_state(scratch.root)
    status, results = script(scratch.wb, f"query {sql.format(victim=target)}\n")
    assert status == 1 and results[0]["error"] == sentence
    assert disk_state(scratch.root) == before
    assert scratch.rows(f"SELECT id FROM {target}") == [[1]]


def test_files_cannot_be_read_by_path_from_user_sql(scratch: Scratch):
    status, results = script(scratch.wb, "query SELECT * FROM text.`/etc/passwd`\n")
    assert status == 1 and "`text`.`/etc/passwd` cannot be found" in results[0]["error"], results
    fqn = scratch.pipeline("bronze", "peek", "SELECT * FROM text.`/etc/passwd`")
    status, results = script(scratch.wb, f"run {fqn}\n")
    assert status == 1 and "pipeline.sql:1: SQL error" in results[0]["error"] and "cannot be found" in results[0]["error"]


def test_query_still_reads_shows_and_describes(scratch: Scratch):
    target = victim(scratch)
    status, results = script(scratch.wb, (
        f"query WITH x AS (SELECT id FROM {target}) SELECT * FROM x\n"
        f"query SHOW TABLES IN {scratch.ns}.bronze\n"
        f"query DESCRIBE {target}\n"
        f"query EXPLAIN SELECT * FROM {target}\n"
        f"query SELECT name FROM {target}.refs\n"))
    assert status == 0, results
    assert results[0]["rows"] == [[1]] and results[4]["rows"] == [["main"]]
