"""Which files under a table folder its metadata references (JVM-free, through PyIceberg)."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from .metadata import current_metadata_file


def local_path(uri: str) -> Path:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme in ("file", "") else Path(uri)


def referenced_files(table_dir: Path) -> set[Path]:
    """Every metadata, manifest list, manifest, data and delete file any snapshot still uses."""
    from pyiceberg.table import StaticTable

    current = current_metadata_file(table_dir)
    if current is None:
        return set()
    table = StaticTable.from_metadata(str(current))
    meta = table.metadata
    found = {current.resolve(), (table_dir / "metadata" / "version-hint.text").resolve()}
    found |= {local_path(entry.metadata_file).resolve() for entry in meta.metadata_log}
    for stats in getattr(meta, "statistics", []) or []:
        found.add(local_path(stats.statistics_path).resolve())
    for snapshot in meta.snapshots:
        found.add(local_path(snapshot.manifest_list).resolve())
        for manifest in snapshot.manifests(table.io):
            found.add(local_path(manifest.manifest_path).resolve())
            for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=False):
                found.add(local_path(entry.data_file.file_path).resolve())
    return found


def missing_files(table_dir: Path) -> list[Path]:
    return sorted(p for p in referenced_files(table_dir) if not p.exists() and p.name != "version-hint.text")


def unreferenced_files(table_dir: Path) -> list[Path]:
    referenced = referenced_files(table_dir)
    return sorted(p for p in table_dir.rglob("*") if p.is_file() and p.resolve() not in referenced
                  and not p.name.endswith(".crc"))
