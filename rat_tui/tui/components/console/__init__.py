"""The SQL console: editor, results grid, history, export and column profile."""
from .panel import ConsolePanel

__all__ = ["ConsolePanel"]
