"""A table's history as its readers saw it: one entry per run that reached main, per compaction, per
rollback, and one for the table's creation.

A run writes several Iceberg snapshots on its own branch (a merge's delete, then its append, and a
marker carrying the run id when a SQL MERGE could not) and main moves over all of them at once when
the run publishes. The snapshots inside a run were never main: no reader saw them, so they are
neither listed nor a place to roll back to. The states main had are the boundaries: the snapshots
in main's snapshot log (every place main was moved to) and, should an expiry have cut that log, the
ends of runs along main's ancestry.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from .metadata import RUN_ID_PROPERTY, ancestry, reader_rows

if TYPE_CHECKING:
    from pyiceberg.table import StaticTable
    from pyiceberg.table.snapshots import Snapshot

# The strategy a run wrote with ("full_refresh" for a --full-refresh run), in its snapshots' summary.
STRATEGY_PROPERTY = "rat.strategy"
# A keyed merge deletes only rows whose key its batch holds, then appends the batch: a row it both
# removed and wrote again is an update (for scd2: the current row it closed).
KEYED = ("incremental", "delete_insert", "scd2")


@dataclass(frozen=True)
class HistoryEntry:
    kind: str  # run | create | compaction | rollback | other (written by another client)
    snapshot_id: int  # the head: main after it
    base_snapshot_id: int | None  # main before it; None before the table existed
    snapshot_ids: tuple[int, ...]  # the raw snapshots it made, oldest first (a rollback makes none)
    committed_at: str  # when main moved to the head
    operation: str  # the head's Iceberg operation (append, overwrite, delete, replace), or rollback
    run_id: str | None
    strategy: str | None
    added_rows: int
    updated_rows: int
    deleted_rows: int
    total_rows: int  # rows a reader of the head sees (count(*))
    on_main: bool  # the head is main or one of its ancestors (False: rolled back past)
    is_current: bool

    def as_dict(self) -> dict:
        return {**self.__dict__, "snapshot_ids": list(self.snapshot_ids)}


def _extra(snap: "Snapshot") -> dict[str, str]:
    return snap.summary.additional_properties if snap.summary is not None else {}


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat()


class _History:
    def __init__(self, table: "StaticTable"):
        meta = table.metadata
        self.table = table
        self.by_id = {s.snapshot_id: s for s in meta.snapshots}
        self.current = meta.current_snapshot_id
        self.log = [(e.snapshot_id, e.timestamp_ms) for e in meta.snapshot_log if e.snapshot_id in self.by_id]
        self.on_main = self._main_line()
        self.child_on_main = {self.by_id[s].parent_snapshot_id: s for s in self.on_main}
        self.boundaries = {sid for sid, _ in self.log} | {s for s in self.on_main if self._ends_on_main(s)}

    def before(self, snapshot_id: int) -> int | None:
        """What main was before this snapshot: its parent; for the first snapshot of a lineage (a rebuild
        replaces the table, starting a new one) or one whose parent expired, the state main had before
        it, from the snapshot log."""
        parent = self.by_id[snapshot_id].parent_snapshot_id
        return parent if parent in self.by_id else self.log_before(snapshot_id)

    def log_before(self, snapshot_id: int) -> int | None:
        earlier = None
        for sid, _ in self.log:
            if sid == snapshot_id:
                return earlier
            earlier = sid
        return None

    def _main_line(self) -> set[int]:
        """Main and every state before it, across rebuilds."""
        found: set[int] = set()
        snapshot_id = self.current
        while snapshot_id is not None and snapshot_id not in found:
            found.add(snapshot_id)
            snapshot_id = self.before(snapshot_id)
        return found

    def run_id(self, snapshot_id: int) -> str | None:
        return _extra(self.by_id[snapshot_id]).get(RUN_ID_PROPERTY)

    def _ends_on_main(self, snapshot_id: int) -> bool:
        """Along main's ancestry: the last snapshot of a run, a compaction, or the table's first snapshot."""
        snap = self.by_id[snapshot_id]
        if snap.parent_snapshot_id is None or (snap.summary is not None and snap.summary.operation.value == "replace"):
            return True
        run_id = self.run_id(snapshot_id)
        child = self.child_on_main.get(snapshot_id)
        return run_id is not None and (child is None or self.run_id(child) != run_id)

    def members(self, head: int) -> list[int]:
        """The head and the snapshots before it that were never main, oldest first."""
        found = [head]
        parent = self.by_id[head].parent_snapshot_id
        while parent is not None and parent in self.by_id and parent not in self.boundaries:
            found.append(parent)
            parent = self.by_id[parent].parent_snapshot_id
        return found[::-1]

    def base(self, members: list[int]) -> int | None:
        parent = self.by_id[members[0]].parent_snapshot_id
        return parent if parent in self.by_id else self.log_before(members[-1])

    def live(self, snapshot_id: int | None) -> int:
        if snapshot_id is None:
            return 0
        return reader_rows(self.table, snapshot_id)

    def first_on_main(self, snapshot_id: int) -> int:
        return next((ms for sid, ms in self.log if sid == snapshot_id), self.by_id[snapshot_id].timestamp_ms)

    def entry(self, head: int) -> tuple[int, HistoryEntry]:
        members = self.members(head)
        snaps = [self.by_id[m] for m in members]
        run_id = next((r for m in reversed(members) if (r := self.run_id(m))), None)
        strategy = next((s for snap in snaps if (s := _extra(snap).get(STRATEGY_PROPERTY))), None)
        base = self.base(members)
        total = self.live(head)
        added = updated = deleted = 0
        if run_id is not None:
            kind = "run"
        elif snaps[-1].summary is not None and snaps[-1].summary.operation.value == "replace":
            kind = "compaction"  # rewrites files, never rows
        elif base is None and total == 0:
            kind = "create"
        else:
            kind = "other"
        if kind in ("run", "other"):
            # Rows written are what the summaries say; rows removed follow from what a reader sees
            # before and after (delete files may be rewritten, so their counts do not add up).
            written = sum(int(_extra(s).get("added-records", 0)) for s in snaps)
            removed = max(0, self.live(base) + written - total)
            updated = min(removed, written) if strategy in KEYED else 0
            added, deleted = written - updated, removed - updated
        at = self.first_on_main(head)
        operation = snaps[-1].summary.operation.value if snaps[-1].summary is not None else ""
        return at, HistoryEntry(kind, head, base, tuple(members), _iso(at), operation, run_id, strategy, added,
                                updated, deleted, total, head in self.on_main, False)

    def older_ancestor(self, snapshot_id: int, of: int) -> bool:
        return self.by_id[snapshot_id].timestamp_ms < self.by_id[of].timestamp_ms and snapshot_id in ancestry(self.table, of)

    def rollbacks(self) -> list[tuple[int, HistoryEntry]]:
        """Main moved back to a state it had before (or to an ancestor whose log entry is gone)."""
        found, seen, previous = [], set(), None
        for sid, ms in self.log:
            if previous is not None and sid != previous and (sid in seen or self.older_ancestor(sid, previous)):
                found.append((ms, HistoryEntry("rollback", sid, previous, (), _iso(ms), "rollback", None, None,
                                               0, 0, 0, self.live(sid), sid in self.on_main, False)))
            seen.add(sid)
            previous = sid
        return found


def history(table: "StaticTable") -> list[HistoryEntry]:
    """The table's history, oldest first: runs that reached main, compactions, rollbacks, its creation."""
    found = _History(table)
    timed = [found.entry(head) for head in found.boundaries] + found.rollbacks()
    entries = [entry for _, entry in sorted(timed, key=lambda pair: (pair[0], pair[1].kind != "rollback"))]
    current = max((i for i, e in enumerate(entries) if e.snapshot_id == found.current), default=None)
    if current is not None:
        entries[current] = HistoryEntry(**{**entries[current].__dict__, "is_current": True})
    return entries


def same_rows_as(table: "StaticTable", kept: set[int]) -> set[int]:
    """`kept` and every snapshot whose rows equal one of them: those of runs on top of it that changed
    no row (+0 -0 ~0) and of compactions (files rewritten, never rows)."""
    same = set(kept)
    for entry in history(table):  # oldest first: a chain of such runs follows its base
        unchanged = entry.kind == "compaction" or (
            entry.kind == "run" and not (entry.added_rows or entry.updated_rows or entry.deleted_rows))
        if unchanged and entry.base_snapshot_id in same:
            same |= {entry.snapshot_id, *entry.snapshot_ids}
    return same


def runs_on_main(table: "StaticTable") -> list[HistoryEntry]:
    """The runs whose head is on main now, oldest first: a diff of one takes (base, head)."""
    return [e for e in history(table) if e.kind == "run" and e.on_main]


def boundary_refusal(table: "StaticTable", label: str, snapshot_id: int) -> str | None:
    """None when main was once at `snapshot_id` (a state readers saw); else one sentence naming the
    nearest states it can go back to instead."""
    found = _History(table)
    if snapshot_id in found.boundaries or snapshot_id not in found.by_id:
        return None
    before = found.by_id[snapshot_id].parent_snapshot_id
    while before is not None and before in found.by_id and before not in found.boundaries:
        before = found.by_id[before].parent_snapshot_id
    after = next((head for head in found.boundaries if snapshot_id in found.members(head)), None)
    run_id = found.run_id(snapshot_id) or (found.run_id(after) if after is not None else None)
    inside = f"inside run {run_id}" if run_id else "inside a commit"
    choices = [f"{before} (before it)"] if before is not None else []
    choices += [f"{after} (after it)"] if after is not None else []
    reached = "" if after is not None else ", which never reached main"
    return (f"snapshot {snapshot_id} of {label} is {inside}{reached}: main never pointed at it and no reader saw it; "
            f"roll back to {' or '.join(choices) or 'a snapshot listed by `snapshots`'}, or pass --raw to force it")
