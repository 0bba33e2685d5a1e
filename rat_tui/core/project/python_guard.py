"""An AST guard for `pipeline.py`: it stops accidents in pipelines you trust.

It is not a security boundary: Python offers too many ways around any static check.
"""
from __future__ import annotations

import ast

from ..errors import Problem

FORBIDDEN_MODULES = frozenset({
    "os", "sys", "subprocess", "socket", "shutil", "pathlib", "importlib", "ctypes", "pickle",
    "multiprocessing", "threading", "signal", "builtins", "io", "tempfile", "glob", "marshal",
    "shelve", "code", "codeop", "inspect", "gc", "resource", "pty", "fcntl", "mmap", "asyncio",
    "concurrent", "urllib", "http", "ftplib", "smtplib", "requests", "runpy", "zipimport",
    # The modules behind os and subprocess, and the app's own state database (.rat/state.db).
    "posix", "nt", "_posixsubprocess", "_subprocess", "_winapi", "sqlite3", "_sqlite3", "py4j", "_thread",
})
# PySpark's handles on the JVM: through them a pipeline reaches any Java class or stops the
# shared session (the session a run gets refuses stop() itself).
FORBIDDEN_ATTRIBUTES = frozenset({"_jvm", "_jsc", "_jsparkSession", "_gateway", "_sc", "_jconf"})
FORBIDDEN_CALLS = frozenset({
    "eval", "exec", "compile", "open", "__import__", "input", "breakpoint", "globals", "locals", "vars",
})
_ATTRIBUTE_CALLS = frozenset({"getattr", "setattr", "delattr", "hasattr"})


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


class _Guard(ast.NodeVisitor):
    def __init__(self, relpath: str):
        self.relpath = relpath
        self.problems: list[Problem] = []

    def _reject(self, node: ast.AST, what: str) -> None:
        self.problems.append(Problem(self.relpath, f"{what} is not allowed in a Python pipeline", getattr(node, "lineno", None)))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] in FORBIDDEN_MODULES:
                self._reject(node, f"import of '{alias.name}'")
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module and node.module.split(".")[0] in FORBIDDEN_MODULES:
            self._reject(node, f"import from '{node.module}'")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name):
            if node.func.id in FORBIDDEN_CALLS:
                self._reject(node, f"call of {node.func.id}()")
            elif node.func.id in _ATTRIBUTE_CALLS and len(node.args) > 1:
                name = node.args[1]
                if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                    self._reject(node, f"{node.func.id}() with a computed attribute name")
                elif _is_dunder(name.value) or name.value in FORBIDDEN_ATTRIBUTES:
                    self._reject(node, f"{node.func.id}() on '{name.value}'")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if _is_dunder(node.attr) or node.attr in FORBIDDEN_ATTRIBUTES:
            self._reject(node, f"access to '{node.attr}'")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in ("__builtins__", "__loader__", "__spec__"):
            self._reject(node, f"use of '{node.id}'")
        self.generic_visit(node)


def python_problems(source: str, relpath: str) -> list[Problem]:
    """Syntax errors, forbidden constructs and a missing `run(spark, ctx)`."""
    try:
        tree = ast.parse(source, filename=relpath)
    except SyntaxError as exc:
        return [Problem(relpath, f"Python syntax error: {exc.msg}", exc.lineno)]
    guard = _Guard(relpath)
    guard.visit(tree)
    has_run = any(isinstance(n, ast.FunctionDef) and n.name == "run" for n in tree.body)
    if not has_run:
        guard.problems.append(Problem(relpath, "a Python pipeline must define run(spark, ctx)"))
    return guard.problems
