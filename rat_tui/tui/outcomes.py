"""What an action did, as one sentence for the toast and the log panel (never a raw dict)."""
from __future__ import annotations

from ..core.text import count

PURGE_LABELS = {  # singular, plural
    "processed_files": ("processed landing file", "processed landing files"),
    "bucket_processed_files": ("processed landing file in the bucket", "processed landing files in the bucket"),
    "snapshots_expired": ("expired snapshot", "expired snapshots"),
    "orphan_files": ("orphan file", "orphan files"),
    "orphan_branches": ("orphan run branch", "orphan run branches"),
    "stuck_runs": ("stuck run", "stuck runs"),
    "file_versions": ("old file version", "old file versions"),
}


def join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def purge_total(counts: dict[str, int]) -> int:
    return sum(counts.values())


def purged(counts: dict[str, int]) -> str:
    parts = [count(n, *PURGE_LABELS.get(key, (key, key))) for key, n in counts.items() if n]
    return f"Purged {join(parts)}." if parts else "Purge: nothing to purge."


def uploaded(result: dict, namespace: str, zone: str) -> str:
    files = result["files"]
    names = join([f"{f['name']} ({count(f['bytes'], 'byte', 'bytes')})" for f in files]) if files else "nothing"
    typed = f" Typed {count(len(result['typed']), 'CSV file', 'CSV files')} as Parquet for faster runs." \
        if result["typed"] else ""
    untyped = "".join(f" {f['reason']}; runs read it as CSV." for f in result["not_typed"])
    return f"Uploaded {names} into {namespace}/{zone}.{typed}{untyped}"


def doctor(findings: list[dict]) -> str:
    if not findings:
        return "Doctor: no inconsistencies found."
    return f"Doctor: {count(len(findings), 'finding', 'findings')}; first: {findings[0]['kind']} {findings[0]['object']}."


def diffed(fqn: str, diff: dict, what: str, old: int | None, new: int) -> str:
    return (f"{fqn}: {what}, snapshot {old or '(none)'} → {new}: "
            f"+{count(diff['added'], 'row')}, -{count(diff['removed'], 'row')}, ~{count(diff['changed'], 'row')} changed.")


def rows_shown(what: str, result: dict) -> str:
    shown = f"{what}: {count(len(result['rows']), 'row', 'rows')} of {count(len(result['columns']), 'column', 'columns')}"
    return f"{shown}; {result['note']}." if result.get("note") else f"{shown}."


def ran(title: str, runs: list[dict]) -> str:
    """One sentence for a selection's outcome."""
    states: dict[str, int] = {}
    for run in runs:
        states[run["status"]] = states.get(run["status"], 0) + 1
    sentence = f"{title}: " + ", ".join(f"{n} {status}" for status, n in states.items()) + "."
    first = next((r for r in runs if r["status"] not in ("success", "awaiting_review", "skipped")), None)
    return sentence + (f" First problem: {first['pipeline']} {first['status']}: {first['error']}" if first else "")
