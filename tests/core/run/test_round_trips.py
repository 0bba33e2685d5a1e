"""How many catalog loads and Spark statements a run makes: each one is a JVM round trip that a
small run pays in full (a warm 10k-row run spent more on them than on its write). Counted, never
timed, so a redundant lookup coming back fails here whatever the machine's load."""
from __future__ import annotations

import collections
import functools
import json
import threading
import time
from pathlib import Path

import pytest

from rat_tui.core.lake.table import IcebergTable
from rat_tui.core.project.model import PipelineRef
from tests.lakehelpers import Scratch

pytestmark = pytest.mark.spark


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> collections.Counter:
    """Counts, by kind, the catalog loads and Spark statements made while the test runs."""
    from pyspark.sql import SparkSession
    from pyspark.sql.catalog import Catalog

    counts: collections.Counter = collections.Counter()

    def counting(owner, name: str, kind: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def counted(*args, **kwargs):
            counts[kind] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)

    counting(IcebergTable, "_iceberg", "catalog load")
    counting(SparkSession, "sql", "statement")
    counting(SparkSession, "table", "statement")
    counting(Catalog, "tableExists", "statement")
    return counts


def test_a_full_refresh_run_on_an_existing_table_makes_few_round_trips(scratch: Scratch, round_trips):
    fqn = scratch.pipeline("silver", "orders", """
        -- @merge_strategy: full_refresh
        SELECT id, id % 7 AS customer_id FROM range(100)
        """)
    assert scratch.run(fqn)["status"] == "success"
    round_trips.clear()
    run = scratch.run(fqn)
    assert run["status"] == "success" and run["rows_written"] == 100
    # One load each: when the run starts (exists? where is main? its schema and unique key; the branch
    # is made from it), for the head it wrote, for the check that main did not move (the fast-forward
    # that drops the branch commits through it).
    assert round_trips["catalog load"] == 3, round_trips
    # Not even the query (parsed once for its read-only check, and analysed from that plan): the branch is made,
    # fast-forwarded and dropped through the Java API.
    assert round_trips["statement"] == 0, round_trips


def _metadata_version(table_dir: Path) -> int:
    """The table's metadata version: one more for every commit, whether or not it makes a snapshot."""
    return int((table_dir / "metadata" / "version-hint.text").read_text().strip())


def _snapshots(table_dir: Path) -> int:
    version = _metadata_version(table_dir)
    metadata = json.loads((table_dir / "metadata" / f"v{version}.metadata.json").read_text())
    return len(metadata.get("snapshots", []))


def test_a_warm_full_refresh_run_makes_two_spark_jobs_and_three_commits(scratch: Scratch):
    """What a save's run pays beyond bare Spark's CREATE OR REPLACE (one job, one commit): its quality
    test's query, the branch, and main's move to it with the branch's removal. A count(*) of the result, a second write or a
    separate commit coming back fails here."""
    fqn = scratch.pipeline("silver", "orders", """
        -- @merge_strategy: full_refresh
        SELECT id, id % 7 AS customer_id FROM range(100)
        """, tests={"has_rows": "SELECT 1 AS nothing WHERE 1 = 0"})
    assert scratch.run(fqn)["status"] == "success"
    table_dir = scratch.root / "warehouse" / "silver" / "orders"
    tracker = scratch.wb.spark.session().sparkContext.statusTracker()
    version, snapshots = _metadata_version(table_dir), _snapshots(table_dir)

    run = scratch.run(fqn)

    assert run["status"] == "success" and run["rows_written"] == 100
    # the write (the query runs inside it: no count of the result first) and the quality test's count;
    # the rows written come from the snapshot's summary, the branch and main's move from the Java API
    assert len(tracker.getJobIdsForGroup(run["run_id"])) == 2
    # the branch made, the write onto it, main fast-forwarded with the branch dropped in the same commit
    assert _metadata_version(table_dir) - version == 3
    assert _snapshots(table_dir) - snapshots == 1
    assert scratch.refs(fqn).keys() == {"main"}
    assert scratch.rows(f"SELECT count(*) FROM {scratch.ns}.silver.orders") == [[100]]


def _property(scratch: Scratch, fqn: str, key: str) -> str | None:
    table = IcebergTable(scratch.wb.spark.session(), PipelineRef.parse(fqn))._iceberg()
    return table.properties().get(key)


def test_a_full_refresh_table_merges_no_manifests_and_a_table_made_before_learns_it_as_its_run_publishes(
        scratch: Scratch):
    """Iceberg merges small manifests at commit in its worker pool, waited on in 10 ms sleeps; a full refresh
    replaces every manifest, so its table turns the merge off: when made, or in the commit its next run publishes
    with (no commit more). A pipeline that stops being a full refresh gets the merge back the same way."""
    fqn = scratch.pipeline("silver", "orders", """
        -- @merge_strategy: full_refresh
        SELECT id, id % 7 AS customer_id FROM range(100)
        """)
    assert scratch.run(fqn)["status"] == "success"
    assert _property(scratch, fqn, "commit.manifest-merge.enabled") == "false"
    scratch.wb.spark.session().sql(f"ALTER TABLE {fqn} UNSET TBLPROPERTIES ('commit.manifest-merge.enabled')")
    table_dir = scratch.root / "warehouse" / "silver" / "orders"
    version = _metadata_version(table_dir)
    assert scratch.run(fqn)["status"] == "success"
    assert _metadata_version(table_dir) - version == 3, "the branch, the write, main's move with the property"
    assert _property(scratch, fqn, "commit.manifest-merge.enabled") == "false"
    scratch.pipeline("silver", "orders", """
        -- @merge_strategy: append_only
        SELECT id, id % 7 AS customer_id FROM range(100)
        """)
    run = scratch.run(fqn)
    assert run["status"] == "success", run["error"]
    assert _property(scratch, fqn, "commit.manifest-merge.enabled") is None
    assert scratch.rows(f"SELECT count(*) FROM {fqn}") == [[200]]


def test_a_small_incremental_run_deletes_its_keys_by_name_without_a_broadcast_job(scratch: Scratch):
    """A batch of few keys (strategies.listed_keys) is collected by the aggregate that checks its keys, and
    its DELETE names them: a MERGE against the batch ran one job more, the broadcast of its keys (9 jobs)."""
    fqn = scratch.pipeline("silver", "orders", """
        -- @merge_strategy: incremental
        -- @unique_key: id
        SELECT id, id % 7 AS customer_id FROM range(100)
        """)
    assert scratch.run(fqn)["status"] == "success"
    tracker = scratch.wb.spark.session().sparkContext.statusTracker()

    run = scratch.run(fqn)

    assert run["status"] == "success" and run["rows_written"] == 100
    # is_incremental()'s probe of the table (1); the result materialised and counted (2), its NULL keys
    # and its keys collected (2), the DELETE (2), the append (1): adaptive execution runs a shuffle's
    # map side as a job of its own, so each aggregate and the delete's write are two jobs
    jobs = sorted(tracker.getJobIdsForGroup(run["run_id"]))
    assert len(jobs) == 8, [[tracker.getStageInfo(s).name for s in tracker.getJobInfo(j).stageIds] for j in jobs]
    assert scratch.rows(f"SELECT count(*), count(DISTINCT id) FROM {scratch.ns}.silver.orders") == [[100, 100]]


@pytest.fixture
def jvm_calls(monkeypatch: pytest.MonkeyPatch) -> collections.Counter:
    """Counts py4j commands (each one a round trip to the JVM) by the thread that sent them."""
    from py4j.clientserver import ClientServerConnection

    counts: collections.Counter = collections.Counter()
    original = ClientServerConnection.send_command

    @functools.wraps(original)
    def counted(self, command):
        counts[threading.current_thread().name] += 1
        return original(self, command)

    monkeypatch.setattr(ClientServerConnection, "send_command", counted)
    return counts


def test_a_warm_full_refresh_run_writes_in_one_stage_with_few_jvm_round_trips(scratch: Scratch, jvm_calls):
    """Measured (docs/performance.md): the write itself is bare Spark's write, the same plan and the same
    CPU; what a small run adds is bookkeeping, much of it trips to the JVM, each a socket round trip
    that a busy machine makes slow. Looking a Java class up through py4j's `jvm.org.apache…` costs a
    trip per package name; a catalog load was 22 trips, three a run."""
    fqn = scratch.pipeline("silver", "orders", """
        -- @merge_strategy: full_refresh
        SELECT id, id % 7 AS customer_id FROM range(100)
        """)
    assert scratch.run(fqn)["status"] == "success"
    tracker = scratch.wb.spark.session().sparkContext.statusTracker()
    # the run session made ahead (0.2 s after the last is given back): in the full suite a run came before it was
    # made, and made its own (8 trips more), which test_a_run_session_gets_every_setting… counts
    manager = scratch.wb.spark
    deadline = time.monotonic() + 30
    while manager._spare is None and time.monotonic() < deadline:
        time.sleep(0.05)
    jvm_calls.clear()

    run = scratch.run(fqn)

    assert run["status"] == "success" and run["rows_written"] == 100
    # the write is one job of one stage: no shuffle or sort added by a write distribution or an exchange
    (job,) = tracker.getJobIdsForGroup(run["run_id"])
    assert len(tracker.getJobInfo(job).stageIds) == 1
    # by the run's own thread (the progress poller's depend on how long the write takes, py4j's release
    # of dead references on the garbage collector): 203 before the class names and the catalog were looked
    # up once; 110 or more while a run session copied the SQL settings a trip each (their number grows with
    # the namespaces the test session registered: 4 on a lake of its own, hundreds in the full suite); 94
    # while the query was parsed twice (its read-only check, then spark.sql), main's head was read again after
    # the fast-forward and a result already in the table's order was selected anew: 82 without them; 64 since a
    # catalog load is Iceberg's one call (finding the catalog and the identifier from here was eight trips); 62
    # since the write's `true` is one call (pyspark's F.lit asked what `functions` is first: 7 ms in a run)
    assert jvm_calls[f"run-{run['run_id']}"] <= 64, jvm_calls


def test_a_run_session_gets_every_setting_in_a_few_round_trips_and_catalogs_registered_later(
        scratch: Scratch, jvm_calls):
    """A run's session copies the root's SQL settings on the JVM's side, in one call, however many
    namespaces are registered; a namespace registered after that copy was first made still reaches
    later run sessions (setting only what changed since launch once left such a catalog undefined:
    CatalogNotFoundException)."""
    spark = scratch.wb.spark
    first = scratch.pipeline("silver", "first", "SELECT 1 AS id")
    assert scratch.run(first)["status"] == "success"  # the run settings exist by now
    later = Scratch.create(scratch.wb, "registered_later")
    for n in range(20):  # settings enough that a trip each would show
        spark.ensure_catalog(f"{later.ns}_extra{n}")
    jvm_calls.clear()
    with spark.using(isolated=True):
        # Only this thread's trips: a background thread of an earlier test (a watcher's observer, a listener) may
        # talk to the same JVM meanwhile, which once made this count 122.
        made = jvm_calls[threading.current_thread().name]
    assert made <= 8, jvm_calls

    fqn = later.pipeline("silver", "orders", "SELECT id FROM range(3)")
    run = later.run(fqn)
    assert run["status"] == "success", run["error"]
    assert later.rows(f"SELECT count(*) FROM {later.ns}.silver.orders") == [[3]]
    with spark.using(isolated=True) as session:
        assert session.conf.get(f"spark.sql.catalog.{later.ns}_extra19.type") == "hadoop"
        assert session.conf.get("spark.sql.runSQLOnFiles") == "false"


def test_a_run_session_made_ahead_is_the_next_runs_and_has_the_catalogs_registered_since(scratch: Scratch):
    """A run's session is made while nothing waits, once the last one is given back (made as a run started, after
    the JVM sat idle, it cost a save's run 15-25 ms); a namespace registered while it waited must reach it."""
    spark = scratch.wb.spark
    first = scratch.pipeline("silver", "first", "SELECT 1 AS id")
    assert scratch.run(first)["status"] == "success"
    deadline = time.monotonic() + 10
    while spark._spare is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert spark._spare is not None, "no run session was made ahead"
    made_ahead = spark._spare[1]
    later = Scratch.create(scratch.wb, "after_the_spare")
    spark.ensure_catalog(later.ns)  # registered while the session made ahead waits
    fqn = later.pipeline("silver", "orders", "SELECT id FROM range(3)")
    run = later.run(fqn)
    assert run["status"] == "success", run["error"]
    assert later.rows(f"SELECT count(*) FROM {later.ns}.silver.orders") == [[3]]
    assert made_ahead not in spark._children and (spark._spare is None or spark._spare[1] is not made_ahead)
    assert made_ahead.conf.get(f"spark.sql.catalog.{later.ns}.type") == "hadoop"
