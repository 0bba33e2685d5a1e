"""A landing file's sample goes when the file is deleted; a sample put in `_samples/` by hand, and
the sample of a file a run archived, stay."""
from __future__ import annotations

import os
from pathlib import Path

from rat_tui.core.landing.sample_sources import remove_orphan_samples
from rat_tui.core.landing.uploads import refresh_samples, sample_path, upload
from rat_tui.core.project.model import active_landing_files


def test_the_sample_of_a_deleted_file_goes_and_the_others_stay(sample_copy: Path, tmp_path: Path):
    zone = sample_copy / "ecommerce" / "landing" / "orders"
    hand_made = zone / "_samples" / "orders_sample.csv"  # the sample project's own
    for name in ("may.csv", "june.csv", "july.csv"):
        (tmp_path / name).write_text("order_id,amount\n1,2.5\n")
    upload(zone, [tmp_path / "may.csv", tmp_path / "june.csv"])
    upload(zone, [tmp_path / "july.csv"], as_name="2024/july.csv")
    may, june, july = zone / "may.csv", zone / "june.csv", zone / "2024" / "july.csv"
    assert all(sample_path(zone, f).exists() for f in (may, june, july))
    archived = zone / "_processed" / "run1" / "june.csv"
    archived.parent.mkdir(parents=True)
    os.replace(june, archived)  # as a run archives the files it read
    may.unlink()
    july.unlink()

    refresh_samples(zone, active_landing_files(zone))

    assert not sample_path(zone, may).exists() and not sample_path(zone, july).exists()
    assert sample_path(zone, june).exists() and hand_made.exists()
    assert sorted(p.name for p in (zone / "_samples").iterdir()) == [
        "june_sample.csv", *(f"orders_2024_0{m}_sample.csv" for m in (1, 2, 3)), "orders_sample.csv"]
    assert remove_orphan_samples(zone) == []  # nothing more to remove; a file uploaded again is sampled again
    upload(zone, [tmp_path / "may.csv"])
    assert sample_path(zone, may).exists()


def test_uploads_and_the_watcher_sampling_the_same_files_at_once_all_succeed(sample_copy: Path, tmp_path: Path):
    """`u` wrote a new file's sample while the watcher's zone refresh wrote the same one: both through one
    temp file, so one writer's rename found it gone (FileNotFoundError … .X_sample.csv.tmp) and a
    successful upload said it failed (issue 36.2). One writer at a time per sample."""
    import threading

    zone = sample_copy / "ecommerce" / "landing" / "orders"
    sources = []
    for day in range(100):
        sources.append(tmp_path / f"april_{day:02d}.csv")
        sources[-1].write_text("order_id,amount\n" + "".join(f"{i},{i}.5\n" for i in range(1500)))
    uploading, failures = threading.Event(), []

    def uploads() -> None:
        uploading.set()
        try:
            for source in sources:
                upload(zone, [source])
        except Exception as exc:
            failures.append(exc)
        finally:
            uploading.clear()

    def watcher() -> None:
        uploading.wait()
        while uploading.is_set():
            try:
                refresh_samples(zone, active_landing_files(zone))
            except Exception as exc:  # the race's FileNotFoundError
                failures.append(exc)

    threads = [threading.Thread(target=uploads), *(threading.Thread(target=watcher) for _ in range(3))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    for source in sources:
        sample = sample_path(zone, zone / source.name).read_text().splitlines()
        assert sample[0] == "order_id,amount" and len(sample) == 1001
    assert not [p.name for p in (zone / "_samples").iterdir() if p.name.endswith(".tmp")]
