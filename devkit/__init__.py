"""Helpers shared by the tests, the benchmarks and the screenshot script (not part of the app)."""
