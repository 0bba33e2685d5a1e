#!/usr/bin/env python3
"""Regenerate the sample project's landing data, reproducibly.

    python sample_project/generate.py                 # the small checked-in data set: rewrites the landing
                                                      # files it makes (orders, products, events) and
                                                      # nothing else: tables, state, archived and
                                                      # uploaded files stay
    python sample_project/generate.py --all           # a reset: also deletes warehouse/ (every table),
                                                      # .rat/ (runs, published versions) and _processed/;
                                                      # asks first (--yes for scripts), refuses while the
                                                      # app has the project open
    python sample_project/generate.py --rows 5000000 --out /tmp/big   # a large copy for benchmarks

The same arguments always give the same bytes (a seeded generator, fixed timestamps).
"""
from __future__ import annotations

import argparse
import csv
import json
import random
import shutil
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
CITIES = ["Lisbon", "Porto", "Madrid", "Paris", "Berlin", "Rome", "Vienna", "Prague"]
FIRST = ["Ana", "Bruno", "Carla", "David", "Eva", "Filipe", "Greta", "Hugo", "Ines", "Joao"]
LAST = ["Silva", "Costa", "Moreau", "Muller", "Rossi", "Novak", "Garcia", "Weber"]
CATEGORIES = ["books", "games", "garden", "kitchen", "music", "toys"]
STATUSES = ["placed", "shipped", "delivered", "returned"]
EVENT_TYPES = ["view", "add_to_cart", "checkout", "search"]
ORDER_COLUMNS = [
    "order_id", "customer_id", "customer_name", "customer_city", "product_id",
    "quantity", "amount", "status", "order_date", "updated_at",
]
N_PRODUCTS = 40
N_CUSTOMERS = 60


def customers(rng: random.Random) -> list[tuple[int, str, str]]:
    return [(c, f"{rng.choice(FIRST)} {rng.choice(LAST)}", rng.choice(CITIES)) for c in range(1, N_CUSTOMERS + 1)]


def order_rows(rng: random.Random, rows: int, months: int) -> dict[str, list[list]]:
    """Orders grouped by month file name; exactly one row carries a bad (negative) amount."""
    people = customers(rng)
    per_month: dict[str, list[list]] = {}
    start = datetime(2024, 1, 1)
    for order_id in range(1, rows + 1):
        month = min((order_id - 1) * months // rows, months - 1)
        day = start.replace(month=month + 1) + timedelta(days=rng.randrange(28), minutes=rng.randrange(1440))
        cid, name, city = rng.choice(people)
        quantity = rng.randint(1, 5)
        amount = round(quantity * rng.uniform(3, 80), 2)
        updated = day + timedelta(hours=rng.randint(0, 48))
        row = [order_id, cid, name, city, rng.randint(1, N_PRODUCTS), quantity, f"{amount:.2f}",
               rng.choice(STATUSES), day.date().isoformat(), updated.isoformat(sep=" ")]
        per_month.setdefault(f"orders_2024_{month + 1:02d}.csv", []).append(row)
    first_file = sorted(per_month)[0]
    per_month[first_file][len(per_month[first_file]) // 2][6] = "-15.00"  # the bad amount
    return per_month


def write_csv(path: Path, rows: list[list]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(ORDER_COLUMNS)
        writer.writerows(rows)


def write_products(path: Path, rng: random.Random) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ids = list(range(1, N_PRODUCTS + 1))
    table = pa.table({
        "product_id": pa.array(ids, pa.int64()),
        "name": [f"{rng.choice(CATEGORIES)[:-1]} #{i}" for i in ids],
        "category": [rng.choice(CATEGORIES) for _ in ids],
        "price": pa.array([round(rng.uniform(3, 80), 2) for _ in ids], pa.float64()),
    })
    pq.write_table(table, path, compression="snappy")


def write_events(path: Path, rng: random.Random, count: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    start = datetime(2024, 1, 1)
    with path.open("w", encoding="utf-8") as fh:
        for event_id in range(1, count + 1):
            ts = start + timedelta(seconds=rng.randrange(90 * 86400))
            event = {
                "event_id": event_id,
                "customer_id": rng.randint(1, N_CUSTOMERS),
                "event_type": rng.choice(EVENT_TYPES),
                "ts": ts.isoformat() + "Z",
                "properties": {"page": f"/p/{rng.randint(1, N_PRODUCTS)}"},
            }
            fh.write(json.dumps(event, sort_keys=True) + "\n")


def state_folders(out: Path) -> list[Path]:
    """What running the sample made: archived files, tables, and the app state that knew them."""
    return [p for p in [*out.glob("*/landing/*/_processed"), *out.glob("*/warehouse"), out / ".rat"] if p.is_dir()]


def reset(out: Path, yes: bool) -> bool:
    """Delete the state folders, once asked (unless `yes`) and while no app has the project open."""
    sys.path.insert(0, str(HERE.parent))  # the app's package beside this folder, installed or not
    from rat_tui.core.store.presence import ProjectOpen, held_closed

    folders = state_folders(out)
    try:
        with held_closed(out / ".rat"):
            if folders and not yes:
                print("This deletes every table, every run and published version, and the archived landing files:")
                print("".join(f"  {folder}\n" for folder in folders), end="")
                try:
                    answer = input("Delete them? [y/N] ")
                except EOFError:  # no terminal to ask on: --yes says it
                    answer = ""
                if answer.strip().lower() not in ("y", "yes"):
                    print("nothing deleted")
                    return False
            for folder in folders:
                shutil.rmtree(folder)
    except ProjectOpen as exc:
        print(f"generate.py: {exc}; nothing deleted", file=sys.stderr)
        return False
    return True


def generate(out: Path, rows: int) -> None:
    """Write the landing files this script owns; other files in the zones stay."""
    rng = random.Random(42)
    landing = out / "ecommerce" / "landing"
    orders = landing / "orders"
    per_month = order_rows(rng, rows, months=3)
    for name, month_rows in sorted(per_month.items()):
        write_csv(orders / name, month_rows)
    first = per_month[sorted(per_month)[0]]
    write_csv(orders / "_samples" / "orders_sample.csv", first[:20])
    write_products(landing / "products" / "products.parquet", rng)
    write_events(landing / "events" / "events_2024_q1.json", rng, max(200, rows // 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=300, help="number of orders (default 300)")
    parser.add_argument("--out", type=Path, default=HERE, help="project folder to write into (default: this one)")
    parser.add_argument("--all", action="store_true",
                        help="also delete every table, the app state (.rat/) and the archived landing files")
    parser.add_argument("--yes", action="store_true", help="with --all: do not ask first")
    args = parser.parse_args()
    if args.all and not reset(args.out, args.yes):
        sys.exit(1)
    if args.out.resolve() != HERE:
        # A benchmark copy gets the pipelines too, so it is a complete project.
        for ns in ("ecommerce", "analytics"):
            src = HERE / ns / "pipelines"
            if src.exists():
                shutil.copytree(src, args.out / ns / "pipelines", dirs_exist_ok=True)
    generate(args.out, args.rows)
    print(f"wrote {args.rows} orders under {args.out}")


if __name__ == "__main__":
    main()
