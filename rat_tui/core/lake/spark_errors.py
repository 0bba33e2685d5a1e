"""Turning Spark and Py4J exceptions into one readable sentence."""
from __future__ import annotations

import re

_CLASS_PREFIX = re.compile(r"^(?:[\w.$]+(?:Exception|Error):\s*)+")
_ERROR_CLASS = re.compile(r"^\[([A-Z_.]+)\]\s*")
_LINE = re.compile(r"\(?line (\d+),? pos \d+\)?;?")
_SQL_TAIL = re.compile(r";?\s*'?(?:Project|Filter|Aggregate|Join|SubqueryAlias|Relation|\+-|Sort)\b.*", re.S)


def is_cancellation(exc: BaseException) -> bool:
    text = str(exc)
    return "cancelled" in text.lower() and ("job group" in text.lower() or "Job " in text or "SparkContext" in text)


def summarise(exc: BaseException) -> tuple[str, int | None]:
    """(one sentence, line in the SQL if Spark named one)."""
    text = getattr(exc, "desc", None) or str(exc)
    java = getattr(exc, "java_exception", None)
    if java is not None:
        try:
            text = str(java.getMessage() or java.toString())
        except Exception:  # the gateway may already be gone
            text = str(exc)
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    first = ""
    for candidate in lines:
        if candidate.startswith(("at ", "Caused by", "JVM stacktrace", "==")):
            continue
        first = candidate
        break
    first = _CLASS_PREFIX.sub("", first)
    first = _ERROR_CLASS.sub("", first)
    first = _SQL_TAIL.sub("", first).strip()
    match = _LINE.search(text)
    line = int(match.group(1)) if match else None
    first = _LINE.sub("", first).strip().rstrip(".; ")
    caused = next((ln for ln in lines if ln.startswith("Caused by:")), None)
    if not first and caused:
        first = _CLASS_PREFIX.sub("", caused.removeprefix("Caused by:").strip())
    return (first[:500] or type(exc).__name__), line
