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


@command("run", arg("pipeline"), arg("--full-refresh", action="store_true"), arg("--published", action="store_true"))
def _run(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.run(a.pipeline, full_refresh=a.full_refresh, published=a.published)


@command("preview", arg("pipeline"), arg("--limit", type=int, default=20))
def _preview(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.preview(a.pipeline, a.limit)


@command("query", arg("sql", nargs="+"))
def _query(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.query(" ".join(a.sql))


@command("tables")
def _tables(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.tables()


@command("snapshots", arg("pipeline"))
def _snapshots(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.snapshots(a.pipeline)


@command("runs", arg("pipeline", nargs="?"), arg("--limit", type=int, default=20))
def _runs(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.runs(a.pipeline, a.limit)


@command("write", arg("path"))
def _write(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    if body is None:
        raise ArgumentError("write needs a heredoc body: write PATH <<EOF … EOF")
    return wb.write(a.path, body)


@command("wait-idle", arg("--timeout", type=float, default=None))
def _wait_idle(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.wait_idle(a.timeout)


@command("publish", arg("pipeline"), arg("-m", "--message", default=""))
def _publish(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.publish(a.pipeline, a.message)


@command("versions", arg("pipeline"))
def _versions(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.list_versions(a.pipeline)


@command("rollback", arg("pipeline"), arg("version", nargs="?", type=int), arg("--restore", action="store_true"))
def _rollback(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.rollback(a.pipeline, a.version, a.restore)


@command("rollback-table", arg("pipeline"), arg("snapshot_id", type=int))
def _rollback_table(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.rollback_table(a.pipeline, a.snapshot_id)


@command("table-preview", arg("pipeline"), arg("--snapshot", type=int), arg("--limit", type=int, default=20))
def _table_preview(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.table_preview(a.pipeline, a.snapshot, a.limit)


@command("diff", arg("pipeline"), arg("old", type=int), arg("new", type=int), arg("--limit", type=int, default=20))
def _diff(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.diff_snapshots(a.pipeline, a.old, a.new, a.limit)


@command("purge", arg("--dry-run", action="store_true"), arg("--namespace"))
def _purge(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.purge(a.dry_run, namespace=a.namespace)


@command("sample", arg("namespace"), arg("zone"), arg("file", nargs="?"), arg("--limit", type=int, default=20))
def _sample(wb: Workbench, a: argparse.Namespace, body: str | None) -> dict:
    return wb.sample(a.namespace, a.zone, a.file, a.limit)
