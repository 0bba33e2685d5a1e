import shutil
from pathlib import Path

from tests.helpers import run_cli_here, run_script_here

SAMPLE_PIPELINES = {
    "analytics": ["analytics.gold.customer_value"],
    "ecommerce": [
        "ecommerce.bronze.raw_events", "ecommerce.bronze.raw_orders", "ecommerce.bronze.raw_products",
        "ecommerce.silver.clean_orders", "ecommerce.silver.dim_customers",
        "ecommerce.gold.daily_revenue", "ecommerce.gold.monthly_orders",
    ],
}


def test_ls_lists_exactly_the_sample_pipelines_and_zones(sample_copy: Path):
    status, results, _ = run_script_here(sample_copy, "ls\n")
    assert status == 0
    namespaces = {ns["name"]: ns for ns in results[0]["namespaces"]}
    assert {name: ns["pipelines"] for name, ns in namespaces.items()} == SAMPLE_PIPELINES
    assert namespaces["ecommerce"]["zones"] == ["events", "orders", "products"]
    assert namespaces["analytics"]["zones"] == []


def test_validate_is_clean_on_the_sample(sample_copy: Path):
    status, results, _ = run_script_here(sample_copy, "validate\n")
    assert (status, results[0]["ok"], results[0]["problems"]) == (0, True, [])


def break_project(root: Path) -> None:
    pipes = root / "ecommerce" / "pipelines"
    shutil.copytree(pipes / "gold" / "daily_revenue", pipes / "gold" / "Bad_Name")
    (pipes / "bronze" / "raw_products" / "pipeline.py").write_text("def run(spark, ctx):\n    return None\n")
    (pipes / "gold" / "daily_revenue" / "pipeline.sql").write_text("-- @merge_strategy: upsert\nSELECT 1\n")
    (pipes / "silver" / "dim_customers" / "config.yaml").write_text("description: ok\nunique_key: [a\n")
    (pipes / "silver" / "clean_orders" / "pipeline.sql").write_text(
        "-- a comment\n-- @merge_strategy: incremental\nSELECT 1 AS order_id\n")


def test_validate_reports_every_problem_with_path_and_line(sample_copy: Path):
    break_project(sample_copy)
    status, results, _ = run_script_here(sample_copy, "validate\n")
    assert status == 1 and results[0]["ok"] is False
    found = {(p["path"], p["line"]) : p["message"] for p in results[0]["problems"] if p["severity"] == "error"}
    base = "ecommerce/pipelines"
    assert "naming rule" in found[(f"{base}/gold/Bad_Name", None)]
    assert "both pipeline.sql and pipeline.py" in found[(f"{base}/bronze/raw_products", None)]
    assert "unknown merge_strategy 'upsert'" in found[(f"{base}/gold/daily_revenue/pipeline.sql", 1)]
    assert "YAML syntax error" in found[(f"{base}/silver/dim_customers/config.yaml", 3)]
    assert found[(f"{base}/silver/clean_orders/pipeline.sql", 2)] == "merge_strategy incremental needs a unique_key"
    assert len(found) == 5
    assert "problem(s) found" in results[0]["error"]


def test_validate_one_pipeline_only_reports_that_pipeline(sample_copy: Path):
    break_project(sample_copy)
    status, results, _ = run_script_here(sample_copy, "validate ecommerce.silver.clean_orders\n")
    assert status == 1
    assert {p["path"] for p in results[0]["problems"]} == {"ecommerce/pipelines/silver/clean_orders/pipeline.sql"}
    status, results, _ = run_script_here(sample_copy, "validate ecommerce.bronze.raw_orders\n")
    assert (status, results[0]["problems"]) == (0, [])


def test_unknown_refs_zones_and_cycles_are_reported(sample_copy: Path):
    pipes = sample_copy / "ecommerce" / "pipelines"
    (pipes / "gold" / "daily_revenue" / "pipeline.sql").write_text(
        "SELECT * FROM {{ ref('silver.nope') }}\nJOIN {{ landing_zone('nowhere') }}\n")
    (pipes / "silver" / "dim_customers" / "pipeline.sql").write_text(
        "-- @merge_strategy: scd2\n-- @unique_key: id\nSELECT * FROM {{ ref('gold.monthly_orders') }}\n")
    (pipes / "gold" / "monthly_orders" / "pipeline.sql").write_text(
        "-- @merge_strategy: snapshot\n-- @partition_column: m\nSELECT * FROM {{ ref('silver.dim_customers') }}\n")
    _, results, _ = run_script_here(sample_copy, "validate\n")
    messages = {(p["path"].rsplit("/", 2)[-2], p["line"], p["message"]) for p in results[0]["problems"]}
    assert ("daily_revenue", 1, "ref('silver.nope') names no pipeline in this project") in messages
    assert ("daily_revenue", 2, "landing_zone('nowhere') names no landing zone in ecommerce") in messages
    assert any("cyclic ref" in m and "dim_customers" in m for *_, m in messages)


def test_jinja_syntax_and_non_utf8_and_rat_yaml_problems(sample_copy: Path):
    pipes = sample_copy / "ecommerce" / "pipelines"
    (pipes / "gold" / "daily_revenue" / "pipeline.sql").write_text("SELECT 1\n{% if x %}\nSELECT 2\n")
    (pipes / "bronze" / "raw_products" / "pipeline.sql").write_bytes(b"SELECT 'caf\xe9'\n")
    (sample_copy / "rat.yaml").write_text("spark:\n  master: 3\nwatch:\n  colour: red\n")
    _, results, _ = run_script_here(sample_copy, "validate\n")
    found = {(p["path"], p["line"]): p for p in results[0]["problems"]}
    assert "Jinja syntax error" in found[("ecommerce/pipelines/gold/daily_revenue/pipeline.sql", 2)]["message"]
    assert "not valid UTF-8" in found[("ecommerce/pipelines/bronze/raw_products/pipeline.sql", 1)]["message"]
    assert "'spark.master' must be str" in found[("rat.yaml", 2)]["message"]
    assert found[("rat.yaml", 4)]["message"] == "unknown key 'watch.colour' is ignored"
    assert found[("rat.yaml", 4)]["severity"] == "warning"


def test_script_exit_codes_and_bad_scripts(sample_copy: Path):
    status, results, _ = run_script_here(sample_copy, "# comment\n\nls\nfrobnicate now\n")
    assert status == 2
    assert results == [{"line": 4, "cmd": None, "ok": False, "error": results[0]["error"]}]
    assert "unknown command 'frobnicate'" in results[0]["error"]
    status, results, _ = run_script_here(sample_copy, "validate no.such.pipeline\nls\n")
    assert status == 1 and len(results) == 1
    assert "no pipeline no.such.pipeline" in results[0]["error"]
    status, results, _ = run_script_here(sample_copy, "validate no.such.pipeline\nls\n", "--keep-going")
    assert status == 1 and [r["ok"] for r in results] == [False, True]


def test_version_and_help():
    from rat_tui import __version__

    proc = run_cli_here("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"rat-tui {__version__}"
    proc = run_cli_here("--help")
    assert proc.returncode == 0 and "--script FILE" in proc.stdout


def test_missing_project_folder_is_one_sentence(tmp_path: Path):
    proc = run_cli_here(str(tmp_path / "nope"), "--script", "-", stdin="ls\n")
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith("project folder does not exist")
    assert "Traceback" not in proc.stderr
