"""`--script`: the headless face over the command layer (see SCRIPT.md)."""
