"""The table of script commands: how each parses its arguments and which Workbench method it calls."""
from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.workbench import Workbench


class ArgumentError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would exit the process
        raise ArgumentError(f"{self.prog}: {message}")


Handler = Callable[[Workbench, argparse.Namespace, str | None], dict[str, Any]]


@dataclass(frozen=True)
class ScriptCommand:
    parser: _Parser
    handler: Handler


COMMANDS: dict[str, ScriptCommand] = {}


def command(name: str, *arguments: tuple[tuple, dict]) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        parser = _Parser(prog=name, add_help=False)
        for args, kwargs in arguments:
            parser.add_argument(*args, **kwargs)
        COMMANDS[name] = ScriptCommand(parser, handler)
        return handler

    return register


def arg(*args: Any, **kwargs: Any) -> tuple[tuple, dict]:
    return args, kwargs


@command("ls")
def _ls(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.ls()


@command("validate", arg("pipeline", nargs="?"))
def _validate(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.validate(a.pipeline)
