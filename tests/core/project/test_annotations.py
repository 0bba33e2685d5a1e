from rat_tui.core.project.annotations import parse_annotations
from rat_tui.core.project.pipeline_config import MergeStrategy, merge_config


def keys(text: str, kind: str = "sql") -> dict[str, tuple[str, int]]:
    return {a.key: (a.value, a.line) for a in parse_annotations(text, kind)}


def test_blank_lines_and_plain_comments_before_annotations_are_skipped():
    text = "\n\n-- a plain comment\n\n-- @merge_strategy: incremental\n--   @unique_key:  order_id \nSELECT 1\n"
    assert keys(text) == {"merge_strategy": ("incremental", 5), "unique_key": ("order_id", 6)}


def test_annotations_after_the_first_sql_line_are_ignored():
    text = "-- @merge_strategy: append_only\nSELECT 1\n-- @unique_key: id\n"
    assert keys(text) == {"merge_strategy": ("append_only", 1)}


def test_hyphenated_and_uppercase_keys_are_normalised():
    assert keys("-- @Merge-Strategy: scd2\n-- @unique-key: a\n") == {
        "merge_strategy": ("scd2", 1), "unique_key": ("a", 2)}


def test_python_annotations_use_hash_and_skip_a_shebang():
    text = "#!/usr/bin/env python\n# @merge_strategy: append_only\nimport math\n# @description: late\n"
    assert keys(text, "py") == {"merge_strategy": ("append_only", 2)}


def test_value_may_contain_colons_and_is_trimmed():
    assert keys("-- @description:  a: b  \n")["description"] == ("a: b", 1)


def merged(source: str, config: str | None = None):
    return merge_config(parse_annotations(source), "p/pipeline.sql", config, "p/config.yaml")


def test_annotations_win_over_config_yaml_and_sources_are_recorded():
    config, problems = merged(
        "-- @merge_strategy: incremental\n-- @unique_key: a, b\nSELECT 1",
        "merge_strategy: append_only\nwatermark_column: ts\n",
    )
    assert problems == []
    assert config.merge_strategy is MergeStrategy.INCREMENTAL
    assert config.unique_key == ("a", "b")
    assert config.watermark_column == "ts"
    assert config.sources["merge_strategy"] == "annotation"
    assert config.sources["watermark_column"] == "config.yaml"
    assert config.sources["partition_column"] == "default"


def test_unique_key_as_yaml_list_or_comma_string():
    from_list, _ = merged("SELECT 1", "merge_strategy: delete_insert\nunique_key: [order_id, line_no]\n")
    from_text, _ = merged("SELECT 1", "merge_strategy: delete_insert\nunique_key: 'order_id,line_no'\n")
    assert from_list.unique_key == from_text.unique_key == ("order_id", "line_no")


def test_defaults_apply_when_nothing_is_set():
    config, problems = merged("SELECT 1")
    assert problems == []
    assert config.merge_strategy is MergeStrategy.FULL_REFRESH
    assert (config.scd_valid_from, config.scd_valid_to, config.materialized) == ("valid_from", "valid_to", "table")
    assert config.archive_landing_zones is False


def test_invalid_values_are_errors_with_path_and_line():
    _, problems = merged("-- @merge_strategy: upsert\n-- @archive_landing_zones: maybe\nSELECT 1")
    assert [(p.path, p.line, p.is_error) for p in problems] == [
        ("p/pipeline.sql", 1, True), ("p/pipeline.sql", 2, True)]
    assert "unknown merge_strategy 'upsert'" in problems[0].message
    assert "true or false" in problems[1].message


def test_missing_unique_key_and_partition_column_are_errors():
    for strategy in ("incremental", "delete_insert", "scd2"):
        _, problems = merged(f"-- @merge_strategy: {strategy}\nSELECT 1")
        assert [p.message for p in problems] == [f"merge_strategy {strategy} needs a unique_key"]
        assert problems[0].line == 1
    _, problems = merged("SELECT 1", "\nmerge_strategy: snapshot\n")
    assert [(p.path, p.line, p.message) for p in problems] == [
        ("p/config.yaml", 2, "merge_strategy snapshot needs a partition_column")]


def test_unknown_keys_are_warnings_not_errors():
    _, problems = merged("-- @owner: me\nSELECT 1", "colour: blue\n")
    assert sorted((p.path, p.line, p.severity) for p in problems) == [
        ("p/config.yaml", 1, "warning"), ("p/pipeline.sql", 1, "warning")]


def test_yaml_syntax_error_names_the_line():
    _, problems = merged("SELECT 1", "merge_strategy: full_refresh\nunique_key: [a, b\n")
    assert len(problems) == 1 and problems[0].path == "p/config.yaml"
    assert problems[0].line == 3 and "YAML syntax error" in problems[0].message
