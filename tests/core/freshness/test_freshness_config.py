"""Freshness policies in config.yaml and rat.yaml: bad values are one sentence naming the file, the line and
the key, in `validate` (fast: no Spark)."""
from __future__ import annotations

from pathlib import Path

from tests.helpers import run_script_here

ORDERS = "ecommerce/pipelines/bronze/raw_orders"
PRODUCTS = "ecommerce/pipelines/bronze/raw_products"


def problems_of(root: Path) -> tuple[int, list[tuple[str, int | None, str]]]:
    status, results, _ = run_script_here(root, "validate\n")
    return status, [(p["path"], p["line"], p["message"]) for p in results[0]["problems"]]


def test_bad_freshness_values_name_the_file_the_line_and_the_key(sample_copy: Path):
    (sample_copy / ORDERS / "config.yaml").write_text(
        "description: orders\nfreshness:\n  warn_after: 6x\n  error_after: 1d\n  colum: updated_at\n")
    (sample_copy / PRODUCTS / "config.yaml").write_text("freshness: {warn_after: 2d, error_after: 1d}\n")
    before = (sample_copy / "rat.yaml").read_text()
    (sample_copy / "rat.yaml").write_text(before + "\nfreshness: {error_after: soon}\n")
    status, problems = problems_of(sample_copy)
    assert status == 1
    assert problems == [
        ("rat.yaml", len(before.splitlines()) + 2, "freshness.error_after is a duration such as 6h, 30m or 1d, not 'soon'"),
        (f"{ORDERS}/config.yaml", 3, "freshness.warn_after '6x' has an unknown unit 'x' (use s, m, h, d or w)"),
        (f"{ORDERS}/config.yaml", 5, "freshness.colum is not a key of freshness (it takes warn_after, error_after, "
                                     "column)"),
        (f"{PRODUCTS}/config.yaml", 1, "freshness.warn_after is longer than freshness.error_after: a table would "
                                       "turn error before warn"),
    ]


def test_a_pipeline_warn_after_past_the_project_error_after_is_a_clash(sample_copy: Path):
    (sample_copy / "rat.yaml").write_text((sample_copy / "rat.yaml").read_text() + "\nfreshness: {error_after: 1d}\n")
    (sample_copy / ORDERS / "config.yaml").write_text("freshness:\n  warn_after: 2d\n")
    status, problems = problems_of(sample_copy)
    assert status == 1
    assert problems == [(f"{ORDERS}/config.yaml", None, "freshness.warn_after is longer than freshness.error_after: "
                                                        "a table would turn error before warn (with rat.yaml's "
                                                        "freshness defaults)")]


def test_a_stale_trigger_needs_a_freshness_policy(sample_copy: Path):
    (sample_copy / ORDERS / "config.yaml").write_text("triggers:\n  - stale: true\n")
    (sample_copy / PRODUCTS / "config.yaml").write_text("triggers:\n  - stale: yes please\n")
    status, problems = problems_of(sample_copy)
    assert status == 1
    assert problems == [
        (f"{ORDERS}/config.yaml", 2, "stale: true needs a freshness policy, such as freshness: "
                                     "{warn_after: 6h, error_after: 1d} here or in rat.yaml"),
        (f"{PRODUCTS}/config.yaml", 2, "stale takes true (a trigger that is off is left out)"),
    ]
