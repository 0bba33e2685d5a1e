"""Landing zones from the script mode (issue 26): `lineage` marks a run that found nothing new as the tree
does, and `pin-dialect` writes a zone's detected dialect into rat.yaml as the zone panel's `E` does."""
from __future__ import annotations

import pytest
from ruamel.yaml import YAML

from tests.helpers import script
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


def test_lineage_marks_a_run_that_found_nothing_new(scratch: Scratch):
    scratch.landing("feed", "batch1.csv", "id\n1\n2\n")
    fqn = scratch.pipeline("bronze", "feed", "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n"
                           "SELECT id FROM {{ landing_zone('feed') }}")
    status, results = script(scratch.wb, f"run {fqn}\nlineage {fqn}\nrun {fqn}\nlineage {fqn}\n")
    assert status == 0, results
    assert results[2]["run"]["note"] == f"nothing new in {scratch.ns}/landing/feed"
    statuses = [{n["name"]: n["last_status"] for n in r["nodes"]} for r in (results[1], results[3])]
    assert statuses[0][fqn] == "success"
    assert statuses[1][fqn] == "nothing_new"  # the tree's ◌: a success that wrote nothing
    assert statuses[1][f"{scratch.ns}.landing.feed"] is None


def test_pin_dialect_writes_the_detected_dialect_and_the_next_run_reads_by_it(scratch: Scratch):
    scratch.landing("semi", "a.csv", "id;name;amount\n1;ann;2.5\n2;bob;3.5\n")
    fqn = scratch.pipeline("bronze", "semi", "-- @merge_strategy: full_refresh\n"
                           "SELECT * FROM {{ landing_zone('semi') }}")
    status, results = script(scratch.wb, f"pin-dialect {scratch.ns} semi\n")
    assert status == 0, results
    zone = f"{scratch.ns}/semi"
    assert results[0]["ok"] is True and results[0]["zone"] == zone and results[0]["file"] == "a.csv"
    assert results[0]["csv"]["delimiter"] == ";" and results[0]["written"] == "rat.yaml"
    csv = YAML().load((scratch.wb.project.root / "rat.yaml").read_text())["zones"][zone]["csv"]
    assert (csv["delimiter"], csv["header"], csv["quote"], csv["encoding"]) == (";", True, '"', "utf-8")
    # A later file is read by the pinned dialect, FILE naming the one pinned
    scratch.landing("semi", "b.csv", "id;name;amount\ncarl;rome;x\n")
    status, results = script(scratch.wb, f"pin-dialect {scratch.ns} semi a.csv\nrun {fqn}\n")
    assert status == 0 and results[1]["run"]["status"] == "success", results
    assert scratch.rows(f"SELECT id, name, amount FROM {fqn} ORDER BY id") == [
        ["1", "ann", "2.5"], ["2", "bob", "3.5"], ["carl", "rome", "x"]]


def test_pin_dialect_of_an_unknown_zone_is_one_sentence(scratch: Scratch):
    scratch.landing("orders", "a.csv", "id\n1\n")
    rat_yaml = scratch.wb.project.root / "rat.yaml"
    before = rat_yaml.read_text() if rat_yaml.exists() else None
    status, results = script(scratch.wb, f"pin-dialect {scratch.ns} ordres\n")
    assert status == 1 and results[0]["ok"] is False
    assert results[0]["error"] == f"landing zone {scratch.ns}/landing/ordres does not exist; did you mean `orders`?"
    assert (rat_yaml.read_text() if rat_yaml.exists() else None) == before


def test_a_full_refresh_that_would_lose_archived_files_is_refused_in_one_sentence(scratch: Scratch):
    fqn = scratch.pipeline("bronze", "feed", "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n"
                           "SELECT id FROM {{ landing_zone('feed') }}")
    scratch.landing("feed", "a.csv", "id\n1\n2\n")
    status, results = script(scratch.wb, f"run {fqn}\n")
    scratch.landing("feed", "b.csv", "id\n3\n")
    status, results = script(scratch.wb, f"run {fqn}\nrun {fqn} --full-refresh\n")
    assert status == 1 and results[0]["ok"] is True and results[1]["ok"] is False, results
    zone = f"{scratch.ns}/landing/feed"
    assert results[1]["error"].endswith(
        f": a full refresh of {fqn} rebuilds it from the files in {zone} only, and would lose the rows of "
        f"2 archived file(s) it loaded before; move them from {zone}/_processed/ back into the zone and run the "
        "full refresh again, which reads every file in the zone"), results[1]
    assert scratch.rows(f"SELECT id FROM {fqn} ORDER BY id") == [[1], [2], [3]]
