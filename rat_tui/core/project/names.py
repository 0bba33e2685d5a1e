"""Naming rules shared by namespaces, pipelines and landing zones."""
from __future__ import annotations

import re

NAME_PATTERN = re.compile(r"[a-z][a-z0-9_-]*")
MAX_NAME_LENGTH = 128
LAYERS = ("bronze", "silver", "gold")


def name_problem(kind: str, name: str) -> str | None:
    """Why `name` is not a valid `kind` name, or None when it is."""
    if len(name) > MAX_NAME_LENGTH:
        return f"{kind} name '{name[:20]}…' is {len(name)} characters long; the limit is {MAX_NAME_LENGTH}"
    if not NAME_PATTERN.fullmatch(name):
        return (
            f"{kind} name '{name}' breaks the naming rule: start with a lowercase letter, "
            "then lowercase letters, digits, '_' or '-'"
        )
    return None


def layer_problem(layer: str) -> str | None:
    if layer not in LAYERS:
        return f"layer '{layer}' is not one of {', '.join(LAYERS)}"
    return None
