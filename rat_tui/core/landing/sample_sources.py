"""Which landing file each sample in `_samples/` was written from, so the sample of a deleted file
goes with it, while a sample someone put there by hand (the sample project's `orders_sample.csv`)
is never touched. Kept in the zone's `.sample_sources.json` (a dot name: runs, previews, the zone
panel and bucket sync pass it by)."""
from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SOURCES = ".sample_sources.json"
_LOCK = threading.Lock()  # an upload and a zone refresh may write samples at once
_WRITERS: dict[Path, threading.Lock] = {}  # one writer at a time per sample file


@contextmanager
def one_writer(sample: Path) -> Iterator[None]:
    """While one thread writes `sample`: an upload and the watcher's zone refresh sampling the same file
    shared its temp file, and the second rename failed (an upload that succeeded said it failed)."""
    with _LOCK:
        lock = _WRITERS.setdefault(sample, threading.Lock())
    with lock:
        yield


def record_samples(zone_dir: Path, written: list[tuple[Path, Path]]) -> None:
    """Record each (sample, source file) pair with one read and at most one write of the index: an
    upload of 2,000 files rewrote it 2,000 times, each time whole (seconds of JSON)."""
    with _LOCK:
        made = _read(zone_dir)
        changed = False
        for sample, source in written:
            relative = source.relative_to(zone_dir).as_posix()
            if made.get(sample.name) != relative:
                made[sample.name] = relative
                changed = True
        if changed:
            _write(zone_dir, made)


def remove_orphan_samples(zone_dir: Path) -> list[str]:
    """Remove the samples written from files that are gone: neither in the zone nor archived under
    `_processed/` (a run's archive keeps its sample, the zone's preview). Their names."""
    with _LOCK:
        made = _read(zone_dir)
        gone = [name for name, source in made.items()
                if not (zone_dir / source).exists() and not _archived(zone_dir, source)]
        for name in gone:
            (zone_dir / "_samples" / name).unlink(missing_ok=True)
            del made[name]
        if gone:
            _write(zone_dir, made)
    return gone


def latest_samples(zone_dir: Path, samples: list[Path]) -> list[Path]:
    """The samples a preview of a zone with nothing new reads: those of the files the zone holds, else of the
    files its latest run archived (the same rows sent again in a later file must not show twice); samples put
    there by hand only when no file wrote one."""
    made = _read(zone_dir)
    written = {sample: made[sample.name] for sample in samples if sample.name in made}
    held = [sample for sample, source in written.items() if (zone_dir / source).exists()]
    if held or not written:
        return held or samples
    processed = zone_dir / "_processed"
    holding = [folder for folder in processed.iterdir() if any((folder / s).exists() for s in written.values())] \
        if processed.is_dir() else []
    if not holding:
        return samples
    latest = max(holding, key=lambda folder: folder.stat().st_mtime)
    return [sample for sample, source in written.items() if (latest / source).exists()]


def _archived(zone_dir: Path, source: str) -> bool:
    processed = zone_dir / "_processed"
    return processed.is_dir() and any((folder / source).exists() for folder in processed.iterdir())


def _read(zone_dir: Path) -> dict[str, str]:
    try:
        made = json.loads((zone_dir / SOURCES).read_text())
    except (OSError, ValueError):
        return {}
    return made if isinstance(made, dict) else {}


def _write(zone_dir: Path, made: dict[str, str]) -> None:
    path = zone_dir / SOURCES
    temp = path.with_name(f"{SOURCES}.tmp")
    temp.write_text(json.dumps(made, indent=1, sort_keys=True))
    os.replace(temp, path)
