"""`partitions:` in config.yaml: one sentence per bad value, and the intervals a grain cuts (issue 39)."""
from __future__ import annotations

from datetime import datetime, timezone

from rat_tui.core.project.pipeline_config import merge_config


def _config(text: str):
    return merge_config([], "pipeline.sql", text, "config.yaml")


def test_each_bad_value_of_partitions_is_one_sentence_naming_the_file_and_line():
    """Each at its own line, not the section's."""
    config, problems = _config("description: x\npartitions:\n  column: 3\n  grain: week\n  start: soon\n"
                               "  lookback: -2\n  every: 1\n")
    assert config.partitions is None
    assert [p.sentence() for p in problems] == [
        "config.yaml:7: partitions has an unknown key 'every' (known: column, grain, start, lookback)",
        "config.yaml:3: partitions needs a column: the date or timestamp column the intervals cut",
        "config.yaml:4: partitions grain must be one of day, hour, month, not 'week'",
        "config.yaml:5: partitions start must be a date like 2024-01-01, not 'soon'",
        "config.yaml:6: partitions lookback must be a whole number of intervals, 0 or more, not '-2'",
    ]
    assert [p.sentence() for p in _config("partitions: daily\n")[1]] == [
        "config.yaml:1: partitions must be a mapping like {column: order_date, grain: day, start: 2024-01-01}, "
        "not 'daily'"]
    assert [p.sentence() for p in _config("partitions: {column: d}\n")[1]] == [
        "config.yaml:1: partitions needs a start: the first interval's date, like 2024-01-01"]


def test_grains_cut_half_open_intervals_from_the_start_to_the_end():
    config, problems = _config("partitions: {column: order_date, grain: month, start: 2024-11-15, lookback: 2}\n")
    assert problems == []
    assert config.as_dict()["partitions"] == {"column": "order_date", "grain": "month", "start": "2024-11-01",
                                              "lookback": 2}
    months = config.partitions.intervals(None, datetime(2025, 2, 10, tzinfo=timezone.utc))
    assert [(i.start_text, i.end_text) for i in months] == [
        ("2024-11-01", "2024-12-01"), ("2024-12-01", "2025-01-01"), ("2025-01-01", "2025-02-01")]
    hours, _ = _config("partitions: {column: at, grain: hour, start: '2024-03-01T22:00:00Z'}\n")
    cut = hours.partitions.intervals(None, datetime(2024, 3, 2, 1, 30, tzinfo=timezone.utc))
    assert [i.label() for i in cut] == ["[2024-03-01 22:00:00, 2024-03-01 23:00:00)",
                                        "[2024-03-01 23:00:00, 2024-03-02 00:00:00)",
                                        "[2024-03-02 00:00:00, 2024-03-02 01:00:00)"]
