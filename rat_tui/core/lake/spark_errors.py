"""Turning Spark and Py4J exceptions into one readable sentence."""
from __future__ import annotations

import re

from ..text import joined_lines

_CLASS_PREFIX = re.compile(r"^(?:[\w.$]+(?:Exception|Error):\s*)+")
_ERROR_CLASS = re.compile(r"^\[([A-Z_.]+)\]\s*")
_LINE = re.compile(r"\(?line (\d+),? pos \d+\)?;?")
_JOB_ABORTED = re.compile(r"^Job aborted due to stage failure: .*?\(TID \d+\) \([^)]*\): ")
# Top messages that say only that something went wrong below them: the cause sits in the chain
_SAYS_NOTHING = re.compile(r"Details:?$|Malformed records are detected|Job aborted due to stage failure|"
                           r"Task failed while writing rows")
# A plan on the message's own line (it follows a ';'); a column named Sort or Project is no plan
_SQL_TAIL = re.compile(r";\s*'?(?:Project|Filter|Aggregate|Join|SubqueryAlias|Relation|\+-|Sort)\b.*", re.S)
_TRACE = ("at ", "Caused by", "JVM stacktrace", "Driver stacktrace", "==")


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
    first = message_line(lines)
    first = _JOB_ABORTED.sub("", first)
    first = _CLASS_PREFIX.sub("", first)
    first = _ERROR_CLASS.sub("", first)
    first = _SQL_TAIL.sub("", first).strip()
    match = _LINE.search(text)
    line = int(match.group(1)) if match else None
    first = _LINE.sub("", first).strip().rstrip(".; ")
    caused = next((ln for ln in lines if ln.startswith("Caused by:")), None)
    if not first and caused:
        first = _CLASS_PREFIX.sub("", caused.removeprefix("Caused by:").strip())
    cause = root_cause(exc)
    if cause and _SAYS_NOTHING.search(first) and cause not in first:
        first = f"{first.removesuffix(' Details:').rstrip('. ')}: {cause}"
    return (first or type(exc).__name__), line


def root_cause(exc: BaseException) -> str | None:
    """The deepest cause in the Java exception chain, without class names and error classes
    (`For input string: "N/A"`, `Malformed CSV record: 2`): what a FAILFAST read error is about."""
    messages = []
    java = getattr(exc, "java_exception", None) or getattr(exc, "_origin", None)
    try:
        while java is not None:
            messages.append(str(java.getMessage() or java.toString()))
            java = java.getCause()
    except Exception:  # the gateway may already be gone
        pass
    if len(messages) < 2:
        trace = getattr(exc, "stackTrace", None) or str(exc)
        messages = [ln.strip().removeprefix("Caused by:").strip() for ln in trace.splitlines()
                    if ln.strip().startswith("Caused by:")]
    if not messages:
        return None
    deepest = message_line([ln.strip() for ln in messages[-1].splitlines() if ln.strip()])
    return _ERROR_CLASS.sub("", _CLASS_PREFIX.sub("", deepest)).strip() or None


def message_line(lines: list[str]) -> str:
    """The message in one line: its first line, and when that ends in a colon the lines that finish it
    (Iceberg's "Cannot write incompatible dataset to table with schema:" then the schemas and the
    problems), up to a stack trace or Spark's plan; never a trace or plan line."""
    message = [ln for ln in lines if not ln.startswith(_TRACE)][:1]
    if not message:
        return ""
    if message[0].endswith(":") and not _SAYS_NOTHING.search(message[0]):  # the cause completes those
        for ln in lines[lines.index(message[0]) + 1:]:
            if ln.startswith(_TRACE) or message[-1].endswith(";"):  # Spark's plan follows a ';'
                break
            message.append(ln)
    return joined_lines(message)

