"""A green run says what it did to the data (issue 35, item 5): rows set aside, files skipped as loaded
before, columns added or kept as NULL become the run's `notes: [{kind, file, line, text}]`, kept in
state.db so `runs` shows them after a restart."""
from __future__ import annotations

import pytest

from rat_tui.core.store.state import StateDB
from tests.helpers import script
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


def _kinds_and_texts(run: dict) -> list[tuple[str, str]]:
    return [(n["kind"], n["text"]) for n in run["notes"]]


def test_quarantined_rows_skipped_files_and_an_added_column_are_the_runs_notes(scratch: Scratch):
    ns = scratch.ns
    scratch.landing("q", "a.csv", "id,name\n1,a\n2\n3,c\n")
    scratch.wb.landing.set_zone_settings(ns, "q", bad_rows="quarantine")
    fqn = scratch.pipeline("bronze", "q", "-- @merge_strategy: append_only\nSELECT * FROM {{ landing_zone('q') }}")
    status, results = script(scratch.wb, f"run {fqn}\n")
    assert status == 0, results
    first = results[0]["run"]
    assert scratch.rows(f"SELECT id, name FROM {fqn} ORDER BY id") == [[1, "a"], [3, "c"]]
    rejects = f"{ns}/landing/q/_rejected/{first['run_id']}/rejected.jsonl"
    assert first["notes"] == [{"kind": "quarantined", "file": f"{ns}/landing/q/a.csv", "line": 3, "phase": "build_result",
                               "text": f"1 row(s) of {ns}/landing/q/a.csv did not parse and were set aside in {rejects}"}]

    scratch.landing("q", "b.csv", "id,name,city\n4,d,rome\n")
    status, results = script(scratch.wb, f"run {fqn}\nruns {fqn}\n")
    assert status == 0, results
    second = results[0]["run"]
    assert scratch.rows(f"SELECT id, name, city FROM {fqn} ORDER BY id") == [[1, "a", None], [3, "c", None],
                                                                          [4, "d", "rome"]]
    assert _kinds_and_texts(second) == [
        ("skipped_files", f"not read again: 1 file(s) of {ns}/landing/q loaded by earlier runs"),
        ("schema", "added column city string")]
    assert [n["phase"] for n in second["notes"]] == ["build_result", "iceberg_write"]
    assert results[1]["runs"][0]["notes"] == second["notes"]

    # After a restart: state.db holds them
    restarted = StateDB(scratch.wb.project.state_dir / "state.db")
    assert [(n.kind, n.text, n.phase) for n in restarted.get_run(second["run_id"]).notes] == [
        (k, t, p) for (k, t), p in zip(_kinds_and_texts(second), ["build_result", "iceberg_write"])]
    assert restarted.get_run(second["run_id"]).outcome == "noted"


def test_a_column_no_longer_produced_is_a_null_column_note_and_a_plain_run_has_none(scratch: Scratch):
    fqn = scratch.pipeline("silver", "shrink", "SELECT 1 AS id, 'x' AS name")
    status, results = script(scratch.wb, f"run {fqn}\n")
    assert status == 0, results
    assert results[0]["run"]["notes"] == []
    scratch.pipeline("silver", "shrink", "SELECT 2 AS id")
    status, results = script(scratch.wb, f"run {fqn}\n")
    assert status == 0, results
    assert scratch.rows(f"SELECT id, name FROM {fqn}") == [[2, None]]
    assert _kinds_and_texts(results[0]["run"]) == [
        ("null_column", "column name is no longer produced; kept and filled with NULL")]


def test_a_rename_a_downstream_query_reads_fails_the_run_under_breaks_downstream_fail(scratch: Scratch):
    """`@breaks_downstream: fail` made `validate` fail, but the run went on and left the column NULL (a gold
    table then grouped on NULL, green). Now the run stops before main and says what breaks."""
    values = "SELECT * FROM VALUES (1, 'it', 10), (2, 'fr', 5) AS v(id, {}, amount)"
    silver = scratch.pipeline("silver", "customers", "-- @breaks_downstream: fail\n" + values.format("country"))
    gold = scratch.pipeline("gold", "by_country",
                            "SELECT country, sum(amount) AS revenue FROM {{ ref('silver.customers') }} GROUP BY country")
    status, results = script(scratch.wb, f"run {silver}\nrun {gold}\n")
    assert status == 0, results
    before = scratch.refs(silver)
    scratch.pipeline("silver", "customers", "-- @breaks_downstream: fail\n" + values.format("country_code"))
    status, results = script(scratch.wb, f"run {silver}\n")
    assert status == 1 and results[0]["run"]["status"] == "failed"
    short = gold.removeprefix(f"{scratch.ns}.")
    assert results[0]["run"]["error"].startswith(
        f"{scratch.ns}/pipelines/silver/customers/pipeline.sql: renaming `country` (now `country_code`) breaks "
        f"`{short}.country` (direct) and the group by of `{short}` (indirect); this pipeline is marked "
        "@breaks_downstream: fail"), results[0]["run"]["error"]
    assert scratch.refs(silver) == before  # no schema commit, no branch left
    assert scratch.rows(f"SELECT id, country FROM {silver} ORDER BY id") == [[1, "it"], [2, "fr"]]


def test_a_renamed_column_kept_as_null_names_its_readers_and_a_run_that_reads_it_says_so(scratch: Scratch):
    """Found by a new user: a renamed upstream column (country → country_code) was kept as NULL, and the gold
    table grouped by it published 1 row instead of 2, green, with no word of it."""
    silver = scratch.pipeline("silver", "customers",
                              "SELECT * FROM VALUES (1, 'it', 10), (2, 'fr', 5), (3, 'it', 7) AS v(id, country, amount)")
    gold = scratch.pipeline("gold", "revenue_by_country",
                            "SELECT country, sum(amount) AS revenue FROM {{ ref('silver.customers') }} GROUP BY country")
    status, results = script(scratch.wb, f"run {silver}\nrun {gold}\n")
    assert status == 0, results
    assert [r["run"]["notes"] for r in results] == [[], []]

    scratch.pipeline("silver", "customers",
                     "SELECT * FROM VALUES (1, 'it', 10), (2, 'fr', 5), (3, 'it', 7) AS v(id, country_code, amount)")
    status, results = script(scratch.wb, f"run {silver}\nrun {gold}\n")
    assert status == 0, results
    upstream, downstream = results[0]["run"], results[1]["run"]
    short = gold.removeprefix(f"{scratch.ns}.")
    assert _kinds_and_texts(upstream) == [
        ("schema", "added column country_code string"),
        ("null_column", "column country is no longer produced; kept and filled with NULL; renaming `country` "
                        f"(now `country_code`) breaks `{short}.country` (direct) and the group by of `{short}` "
                        "(indirect)")]
    assert upstream["notes"][1]["column"] == "country"
    assert scratch.rows(f"SELECT country, revenue FROM {gold}") == [[None, 22]]
    assert _kinds_and_texts(downstream) == [
        ("null_input", f"reads {silver}.country, which the last run of {silver} ({upstream['run_id']}) no longer "
                       "makes: it is NULL in the rows that run wrote; change this query, or make country again there")]
    assert StateDB(scratch.wb.project.state_dir / "state.db").get_run(downstream["run_id"]).outcome == "noted"
    # its lineage says so too: it read as a column made from nothing
    status, results = script(scratch.wb, f"lineage --column {silver}.country\nlineage --column {silver}.amount\n")
    assert status == 0, results
    assert results[0]["columns"] == [] and results[0]["note"] == (
        f"the query of {silver} no longer makes country: the table keeps the column, NULL in the rows written since")
    assert "note" not in results[1] and results[1]["columns"] == []  # a column its query makes from a literal

    # A reader that no longer reads it is told nothing of it; its own country, which nothing reads, is noted plainly
    scratch.pipeline("gold", "revenue_by_country",
                     "SELECT country_code, sum(amount) AS revenue FROM {{ ref('silver.customers') }} GROUP BY country_code")
    status, results = script(scratch.wb, f"run {gold}\n")
    assert status == 0, results
    assert _kinds_and_texts(results[0]["run"]) == [
        ("schema", "added column country_code string"),
        ("null_column", "column country is no longer produced; kept and filled with NULL")]
