from pathlib import Path

import pytest

from rat_tui.core.errors import RatError
from rat_tui.core.landing.archive import archive_files


def test_archive_moves_exactly_the_given_files_keeping_sub_paths(tmp_path: Path):
    zone = tmp_path / "zone"
    (zone / "nested").mkdir(parents=True)
    read = [zone / "a.csv", zone / "nested" / "b.csv"]
    for f in read + [zone / "late.csv"]:
        f.write_text("id\n1\n")
    assert archive_files(zone, read, "r1") == ["a.csv", "nested/b.csv"]
    assert (zone / "_processed" / "r1" / "nested" / "b.csv").read_text() == "id\n1\n"
    assert (zone / "late.csv").exists() and not (zone / "a.csv").exists()


def test_a_failed_move_is_reported_and_every_file_stays_in_one_place(tmp_path: Path):
    zone = tmp_path / "zone"
    zone.mkdir()
    files = [zone / name for name in ("a.csv", "b.csv", "c.csv")]
    for f in files:
        f.write_text("x\n")
    (zone / "_processed" / "r1" / "b.csv").mkdir(parents=True)  # blocks b's move
    with pytest.raises(RatError, match=r"archiving b.csv failed after 1 file\(s\) were moved: .*all of them were put back"):
        archive_files(zone, files, "r1")
    active = {p.name for p in zone.glob("*.csv")}
    archived = {p.name for p in (zone / "_processed" / "r1").rglob("*.csv") if p.is_file()}
    assert active == {"a.csv", "b.csv", "c.csv"} and archived == set()


def test_restore_puts_files_back_but_never_over_a_newer_file(tmp_path: Path):
    from rat_tui.core.landing.archive import restore_archived

    zone = tmp_path / "zone"
    (zone / "_processed" / "r2" / "sub").mkdir(parents=True)
    (zone / "_processed" / "r2" / "sub" / "a.csv").write_text("old a\n")
    (zone / "_processed" / "r2" / "b.csv").write_text("old b\n")
    (zone / "b.csv").write_text("new b\n")
    assert restore_archived(zone, "r2") == ["sub/a.csv"]
    assert (zone / "sub" / "a.csv").read_text() == "old a\n"
    assert (zone / "b.csv").read_text() == "new b\n"
    assert (zone / "_processed" / "r2" / "b.csv").read_text() == "old b\n"
