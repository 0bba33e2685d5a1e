"""Triggers and schedules: what runs a pipeline without a person (issue 38)."""
