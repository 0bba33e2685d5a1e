"""Freshness (issue 39): how late each table is against its `freshness:` policy."""
