"""20 unit tests of a small incremental pipeline on a warm session: 10 check the output, 10 the
table after the merge (a scratch Iceberg table each). Prints figures only.

    python bench/unit_tests.py [--tests 20] [--repeat 3]
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import scratch_project, timed, warm_workbench, write_pipeline  # noqa: E402

SQL = """\
-- @merge_strategy: incremental
-- @unique_key: id
SELECT CAST(id AS BIGINT) AS id, UPPER(v) AS v FROM {{ ref('bronze.src') }}
"""
OUTPUT = """\
given: [{{input: ref('bronze.src'), rows: [{{id: {n}, v: a}}, {{id: {m}, v: b}}]}}]
expect: {{output: [{{id: {n}, v: A}}, {{id: {m}, v: B}}]}}
"""
TABLE_AFTER = """\
given: [{{input: ref('bronze.src'), rows: [{{id: {n}, v: new}}]}}]
this: [{{id: {n}, v: OLD}}, {{id: {m}, v: KEPT}}]
expect: {{table_after: [{{id: {n}, v: NEW}}, {{id: {m}, v: KEPT}}]}}
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--output-only", action="store_true", help="every test checks the output (no scratch table)")
    args = parser.parse_args()
    root = scratch_project("unit")
    write_pipeline(root, "bronze", "src", "-- @merge_strategy: full_refresh\nSELECT 1 AS id, 'a' AS v\n")
    fqn = write_pipeline(root, "silver", "upper", SQL)
    folder = root / "bench" / "pipelines" / "silver" / "upper" / "tests" / "unit"
    folder.mkdir(parents=True)
    for n in range(args.tests):
        template = OUTPUT if n % 2 == 0 or args.output_only else TABLE_AFTER
        (folder / f"t{n:02d}.yaml").write_text(template.format(n=n, m=n + 100))
    with warm_workbench(root) as wb:
        first, _ = timed(lambda: wb.unit_tests.unit_test(fqn))
        print(f"first pass (cold JIT): {first:.2f} s")
        took = []
        for _ in range(args.repeat):
            seconds, result = timed(lambda: wb.unit_tests.unit_test(fqn))
            assert {t.status for t in result.tests} == {"passed"}, result
            took.append(seconds)
        after = 0 if args.output_only else args.tests - args.tests // 2
        print(f"{args.tests} unit tests ({args.tests - after} output, {after} table_after), "
              f"warm: median {statistics.median(took):.2f} s, best {min(took):.2f} s over {args.repeat}")


if __name__ == "__main__":
    main()
