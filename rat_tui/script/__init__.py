"""`--script`: the headless face over the command layer (see docs/script.md)."""
