"""Jinja for pipelines and quality tests: sandboxed, strict about undefined names."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.sandbox import SandboxedEnvironment

from ..errors import Problem, RatError


def make_environment() -> SandboxedEnvironment:
    return SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True)


_ENV = make_environment()


@dataclass(frozen=True)
class TemplateCall:
    """A call such as ref('silver.orders') with literal arguments, found by parsing."""

    function: str
    argument: str
    line: int


def template_calls(source: str) -> list[TemplateCall]:
    """Calls of ref/landing_zone with literal string arguments (for validation and the tree)."""
    tree = _ENV.parse(source)
    calls = []
    for call in tree.find_all(nodes.Call):
        if isinstance(call.node, nodes.Name) and call.node.name in ("ref", "landing_zone"):
            if call.args and isinstance(call.args[0], nodes.Const) and isinstance(call.args[0].value, str):
                calls.append(TemplateCall(call.node.name, call.args[0].value, call.lineno))
    return calls


def syntax_problem(source: str, relpath: str) -> Problem | None:
    try:
        _ENV.parse(source)
    except jinja2.TemplateSyntaxError as exc:
        return Problem(relpath, f"Jinja syntax error: {exc.message}", exc.lineno)
    return None


@lru_cache(maxsize=1024)
def _compiled(source: str) -> jinja2.Template:
    """Compiling costs more than rendering; the graph, the lineage and a run render the same text."""
    return _ENV.from_string(source)


def render(source: str, relpath: str, context: Mapping[str, Any]) -> str:
    """Render a template; every Jinja failure becomes a RatError naming the file and line."""
    try:
        return _compiled(source).render(**context)
    except jinja2.TemplateSyntaxError as exc:
        raise RatError(f"Jinja syntax error: {exc.message}", relpath, exc.lineno) from None
    except jinja2.UndefinedError as exc:
        raise RatError(f"undefined template variable: {exc.message}", relpath, _template_line(exc)) from None
    except RatError as exc:
        if exc.path is None:  # its own kind kept: a run tells "nothing new" from a failure by it
            raise type(exc)(exc.message, relpath, _template_line(exc)) from None
        raise
    except jinja2.TemplateError as exc:
        raise RatError(f"template error: {exc}", relpath, _template_line(exc)) from None


def _template_line(exc: BaseException) -> int | None:
    """The template line where the exception happened (Jinja keeps '<template>' frames)."""
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line

