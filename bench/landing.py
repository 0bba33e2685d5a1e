"""Landing files as they arrive: what detection, the load history and many small files cost.

    python bench/landing.py --rows 5000000 --files 2000

Prints (never asserts) four figures, each beside what it is measured against:
  1. dialect detection per file (DuckDB's sniffer, no JVM), for the shapes people send;
  2. the load history's content hash of a CSV as a share of loading it into bronze;
  3. a CSV loaded into bronze by the product (detected dialect, sampled schema) against bare Spark
     reading the same file with a known schema and writing Iceberg;
  4. an upload of many small CSV files, and a run over them, against bare Spark reading that folder
     (known schema) and writing Iceberg.
Others share this machine: each product figure is divided by the mean of the bare figures run just
before and just after it.
"""
from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import timed  # noqa: E402
from ingest import SCHEMA, pipeline, write_csv  # noqa: E402

from rat_tui.core.compose import open_project  # noqa: E402
from rat_tui.core.landing import cleaning, encodings  # noqa: E402
from rat_tui.core.landing import dialect as dialects  # noqa: E402
from rat_tui.core.landing.load_history import hash_bytes  # noqa: E402
from rat_tui.core.landing.zone_settings import ZoneReadSettings  # noqa: E402

SMALL_SCHEMA = "id BIGINT, name STRING, amount DOUBLE, day DATE"


def shapes(folder: Path, big: Path) -> dict[str, Path]:
    rows = "".join(f"{i};n{i};{i}.5;2024-01-{i % 28 + 1:02d}\n" for i in range(2000))
    files = {
        "';' export, 2,000 rows": ("semi.csv", "id;name;amount;day\n" + rows),
        "tab-separated": ("tab.tsv", "id\tname\tamount\tday\n" + rows.replace(";", "\t")),
        "TPC-H .tbl, no header": ("region.tbl", rows.replace(";", "|").replace("\n", "|\n")),
        "quoted values spanning lines": ("ml.csv", "id,note\n" + "".join(f'{i},"a\nb {i}"\n' for i in range(2000))),
        "gzip": ("g.csv.gz", None),
        "cp1252 (encoding set)": ("west.csv", None),
    }
    out = {}
    for label, (name, text) in files.items():
        path = folder / name
        if name.endswith(".gz"):
            path.write_bytes(gzip.compress(("id;name;amount;day\n" + rows).encode()))
        elif name == "west.csv":
            path.write_bytes(("id;name\n" + "".join(f"{i};Zoë {i}\n" for i in range(2000))).encode("cp1252"))
        else:
            path.write_text(text)
        out[label] = path
    out[f"the {big.stat().st_size / 1e6:.0f} MB load file"] = big
    out.update(ten_megabytes(folder))
    return out


def ten_megabytes(folder: Path) -> dict[str, Path]:
    """Two 10 MB files whose numbers need reading: a ';' export with decimal commas and '.' grouping, and a
    report with a title above its header, US grouping and ZIP codes with leading zeros."""
    def write(path: Path, head: str, row, tail: str = "") -> None:
        lines, size, i = [head], len(head), 0
        while size < 10_000_000:
            lines.append(row(i))
            size += len(lines[-1])
            i += 1
        path.write_text("".join(lines) + tail, encoding="utf-8", newline="")

    eu, report = folder / "eu_10mb.csv", folder / "report_10mb.csv"
    write(eu, "id;qty;price;name;day\r\n",
          lambda i: f"{i};{i % 9 + 1}.{i % 1000:03d};{i % 97},{i % 100:02d};Name {i};2024-01-{i % 28 + 1:02d}\r\n")
    write(report, ",,,,,\nNumber of Students by State During FY 2010,,,,,\nState,Zip,Students,Share,Code,Note\n",
          lambda i: f'S{i % 50},0{i % 9000 + 1000},"{i % 90 + 1},{i % 1000:03d}",0.{i % 100:02d},{i % 60:02d},n\n',
          ",,,,,\n")
    return {"10 MB ';', 1.500 and 12,50": eu, "10 MB report: title, \"6,718\", ZIPs": report}


def detection(folder: Path, big: Path) -> None:
    from rat_tui.core.landing.zone_settings import CsvSettings

    print("1. dialect detection, number formats included (ms per file, median of 20, cache cleared each time;")
    print("   wall clock, and this process's CPU time: on a shared machine the wall clock waits for a core)")
    files = shapes(folder, big)
    for label, path in files.items():
        settings = ZoneReadSettings(CsvSettings(encoding="cp1252")) if path.name == "west.csv" else ZoneReadSettings()
        wall, cpu = [], []
        for _ in range(20):
            dialects._cache.clear()
            dialects._by_header.clear()
            began, began_cpu = time.perf_counter(), time.process_time()
            found = dialects.detect(path, settings)
            wall.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
        print(f"   {label:34s} {statistics.median(wall):6.1f} ms wall {statistics.median(cpu):6.1f} ms CPU   "
              f"({found.describe()}{numbers(found)})")
    print("   a run also reads every byte of each file once more (cached by its identity): every byte decodes in")
    print("   its encoding, and rows with no value are found (a copy without them and a title is written once)")
    for label, path in files.items():
        if path.stat().st_size < 5_000_000 or path.name.endswith(".gz"):
            continue
        dialect = dialects.detect(path, ZoneReadSettings())
        wall, cpu = [], []
        for _ in range(5):
            encodings._checked.clear()
            cleaning._cache.clear()
            began, began_cpu = time.perf_counter(), time.process_time()
            encodings.check_text(path, dialect.encoding, "bench")
            cleaning.cleaned(path, dialect)
            wall.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
        print(f"   {label:34s} {statistics.median(wall):6.1f} ms wall {statistics.median(cpu):6.1f} ms CPU   "
              f"({path.stat().st_size / 1e6:.0f} MB, full pass)")


def numbers(dialect: "dialects.Dialect") -> str:
    """What the zone of this one file reads of its numbers (numbers.py), as detection decided it."""
    from rat_tui.core.landing.numbers import zone_numbers

    zone = zone_numbers([dialect.samples or {}])
    said = [f"{c.name}: {c.describe()}" for c in zone.columns] + [f"{n} as text" for n in zone.text]
    return "; " + ", ".join(said) if said else ""


def small_files(folder: Path, count: int) -> None:
    folder.mkdir(parents=True)
    for n in range(count):
        rows = "".join(f"{n * 40 + i},n{i},{i}.5,2024-01-{i % 28 + 1:02d}\n" for i in range(40))
        (folder / f"hour_{n:05d}.csv").write_text("id,name,amount,day\n" + rows)  # about 1 KB


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--detection-only", action="store_true", help="figure 1 only (no JVM)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rat-landing-"))
    root = work / "project"
    zone = root / "bench" / "landing" / "orders"
    zone.mkdir(parents=True)
    data = work / "orders.csv"
    write_csv(data, args.rows)
    detection(work, data)
    if args.detection_only:
        shutil.rmtree(work, ignore_errors=True)
        return

    began = time.perf_counter()
    hash_bytes(data)
    hashing = time.perf_counter() - began
    small = work / "small"
    small_files(small, args.files)
    small_bytes = sum(p.stat().st_size for p in small.iterdir())
    full = pipeline(root, "full", "-- @merge_strategy: full_refresh\n")
    archived = pipeline(root, "archived", "-- @merge_strategy: append_only\n-- @archive_landing_zones: true\n")
    hourly = root / "bench" / "pipelines" / "bronze" / "hourly"
    hourly.mkdir(parents=True)
    (hourly / "pipeline.sql").write_text("-- @merge_strategy: full_refresh\nSELECT * FROM {{ landing_zone('hourly') }}\n")
    figures: dict[str, list[tuple[float, float]]] = {}
    phases: list[dict[str, int]] = []  # of each run over the small files: where its time went
    wb = open_project(root)
    try:
        spark = wb.spark.session(timeout=300)
        wb.spark.ensure_catalog("bench")
        shutil.copy(data, zone / "orders.csv")
        wb.runs.run(full)  # warm

        def bare_load() -> float:
            return timed(lambda: spark.read.schema(SCHEMA).options(header=True).csv(str(data)).writeTo(
                "bench.bronze.bare").using("iceberg").createOrReplace())[0]

        def bare_small() -> float:
            return timed(lambda: spark.read.schema(SMALL_SCHEMA).options(header=True).csv(str(small)).writeTo(
                "bench.bronze.bare_small").using("iceberg").createOrReplace())[0]

        def beside(name: str, bare, work_fn) -> None:
            before = bare()
            took = timed(work_fn)[0]
            figures.setdefault(name, []).append((took, (before + bare()) / 2))

        def archived_load() -> None:
            shutil.copy(data, zone / "orders.csv")
            wb.runs.run(archived, reload_files=True)  # the same file each round: its load history says loaded

        def upload_small() -> None:
            shutil.rmtree(root / "bench" / "landing" / "hourly", ignore_errors=True)
            wb.landing.upload("bench", "hourly", [str(p) for p in sorted(small.iterdir())])

        for _ in range(args.repeat):
            for table in ("archived", "hourly"):
                spark.sql(f"DROP TABLE IF EXISTS bench.bronze.{table} PURGE")
            shutil.copy(data, zone / "orders.csv")
            beside("product CSV -> bronze (full_refresh)", bare_load, lambda: wb.runs.run(full))
            beside("product CSV -> bronze, archiving (hashes it)", bare_load, archived_load)
            beside(f"upload of {args.files:,} small CSV files", bare_small, upload_small)
            beside(f"run over the {args.files:,} uploaded files", bare_small,
                   lambda: phases.append(wb.runs.run("bench.bronze.hourly").as_dict()["run"]["phases"]))
    finally:
        wb.close()
    load = statistics.median(t for t, _ in figures["product CSV -> bronze (full_refresh)"])
    print(f"2. load history: hashing the {data.stat().st_size / 1e6:.0f} MB CSV took {hashing:.2f} s, "
          f"{hashing / load:.1%} of its {load:.1f} s load (hashed once per file identity, then cached)")
    print(f"3./4. {args.rows:,} rows; {args.files:,} files of {small_bytes / args.files / 1024:.1f} KB; "
          f"median of {args.repeat} round(s)")
    for name, pairs in figures.items():
        took = statistics.median(t for t, _ in pairs)
        bare = statistics.median(b for _, b in pairs)
        ratio = statistics.median(t / b for t, b in pairs)
        print(f"   {name:48s} {took:7.1f} s   bare Spark beside it {bare:6.1f} s   {ratio:5.2f}x")
    for name in phases[0] if phases else ():
        print(f"      run over the small files, {name:18s} {statistics.median(p[name] for p in phases) / 1000:6.1f} s")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
