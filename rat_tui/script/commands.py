"""The table of script commands: how each parses its arguments and which service method it calls."""
from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..core.errors import RatError, Reported
from ..core.lineage.model import ColumnRef
from .lineage_json import column_trace_json
from .parser import FreeText

if TYPE_CHECKING:  # the shell client parses commands without loading the command layer (attach needs no Spark)
    from ..core.compose import Workbench


class ArgumentError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would exit the process
        raise ArgumentError(f"{self.prog}: {message}")


class ScreenHost(Protocol):
    """The real app, headless: what `press`, `screenshot` and `expect-screen` need of it."""

    def press(self, keys: list[str]) -> None: ...

    def screenshot(self, path: str) -> str: ...

    def wait_for_text(self, text: str, timeout: float) -> bool: ...


SCREEN_COMMANDS = frozenset({"press", "screenshot", "expect-screen"})


@dataclass
class ScriptContext:
    """What a command may use: the Workbench, and the headless app when the script drives the screen."""

    wb: Workbench
    screen: ScreenHost | None = None
    cwd: Path | None = None  # the script's own folder when an engine host runs it for another process

    def local_path(self, text: str) -> str:
        """A path the script names on its machine (an upload's file), from the folder the script runs in."""
        return str(self.cwd / text) if self.cwd is not None else text

    def need_screen(self, cmd: str) -> ScreenHost:
        if self.screen is None:
            raise ArgumentError(f"{cmd} needs the app; it is only available in `rat-tui --script`")
        return self.screen


# a typed result (as_json.result_fields prints it) or, for the groups not typed yet, the fields themselves
Handler = Callable[[ScriptContext, argparse.Namespace, str | None], Reported | dict[str, Any]]


@dataclass(frozen=True)
class ScriptCommand:
    parser: _Parser
    handler: Handler
    free_text: FreeText | None = None
    check: Callable[[argparse.Namespace], str | None] | None = None  # why arguments that parsed do not go together

    def parse_args(self, cmd: str, args: list[str], rest: str | None) -> argparse.Namespace:
        parsed = self.parser.parse_args(args)
        clash = self.check(parsed) if self.check is not None else None
        if clash:
            raise ArgumentError(f"{cmd}: {clash}")
        if self.free_text is not None:
            if not rest:
                raise ArgumentError(f"{cmd} needs {self.free_text.what} after the command, as in: "
                                    f"{self.free_text.example}")
            setattr(parsed, self.free_text.dest, rest)
        return parsed


COMMANDS: dict[str, ScriptCommand] = {}


def command(name: str, *arguments: tuple[tuple, dict], free_text: FreeText | None = None,
            check: Callable[[argparse.Namespace], str | None] | None = None) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        parser = _Parser(prog=name, add_help=False)
        for args, kwargs in arguments:
            parser.add_argument(*args, **kwargs)
        COMMANDS[name] = ScriptCommand(parser, handler, free_text, check)
        return handler

    return register


def arg(*args: Any, **kwargs: Any) -> tuple[tuple, dict]:
    return args, kwargs


@command("ls")
def _ls(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """List the project: namespaces, layers, pipelines, landing zones."""
    return ctx.wb.browse.ls()


@command("validate", arg("pipeline", nargs="?"))
def _validate(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Check names, annotations, config, templates and refs (of one pipeline, or all), every problem at once."""
    return ctx.wb.browse.validate(a.pipeline)


@command("run", arg("pipeline", help="NS.LAYER.NAME, or a selector: NAME+, +NAME, +NAME+"),
         arg("--full-refresh", action="store_true",
             help="rebuild the table from the query (beside main): every row, exactly the query's columns"),
         arg("--published", action="store_true", help="run the current published version, not the working copy"),
         arg("--reload-files", action="store_true",
             help="read landing files the pipeline loaded before again (one pipeline, not a selector)"),
         arg("--review", action="store_true", help="hold the run on its branch for approve/reject, not publish it"),
         arg("--dry-run", action="store_true", help="a partitioned pipeline: list the intervals the run would build"))
def _run(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Run a pipeline on its own branch; main moves only when its quality tests pass. NAME+, +NAME and +NAME+
    also run what is downstream, upstream, or both."""
    if a.dry_run:  # a partitioned pipeline's intervals the run would build
        return ctx.wb.intervals.run_plan(a.pipeline, a.full_refresh)
    return ctx.wb.runs.run(a.pipeline, full_refresh=a.full_refresh, published=a.published, reload_files=a.reload_files,
                      review=a.review)


@command("approve", arg("run_id"))
def _approve(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Publish a run awaiting review (main moves to its branch)."""
    return ctx.wb.review.approve(a.run_id)


@command("reject", arg("run_id"))
def _reject(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Drop a run awaiting review (main stays)."""
    return ctx.wb.review.reject(a.run_id)


@command("preview", arg("pipeline", help="NS.LAYER.NAME"),
         arg("--limit", type=int, default=20, help="rows to show (20)"))
def _preview(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Compile and execute a pipeline's query, writing nothing (its first rows)."""
    return ctx.wb.console.preview(a.pipeline, a.limit)


@command("test", arg("selector", nargs="?", help="NS.LAYER.NAME or a selector (default: every pipeline)"))
def _test(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Run pipelines' unit tests (tests/unit/*.yaml), never touching the project's lake."""
    return ctx.wb.unit_tests.unit_test(a.selector)


@command("test-fixture", arg("pipeline", help="NS.LAYER.NAME"),
         arg("--rows", type=int, default=None, help="input rows to take"))
def _test_fixture(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Write a unit test for a pipeline from a preview of its inputs and result."""
    return ctx.wb.unit_tests.unit_fixture(a.pipeline, a.rows)


@command("query", free_text=FreeText("sql", "SQL", "query SELECT 1"))
def _query(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Run one read-only Spark SQL query over the lakehouse (also SHOW, DESCRIBE, EXPLAIN)."""
    return ctx.wb.console.query(a.sql)


@command("export", arg("path"), free_text=FreeText("sql", "SQL", "export out/orders.csv SELECT * FROM ns.silver.orders",
                                                  leading=1))
def _export(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Write the full result of one read-only query to a file (.csv, .parquet, .json by its extension)."""
    return ctx.wb.console.export(a.path, a.sql)


@command("tables")
def _tables(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """List the Iceberg tables."""
    return ctx.wb.tables.tables()


@command("snapshots", arg("pipeline", help="NS.LAYER.NAME"),
         arg("--all", action="store_true", help="every raw Iceberg snapshot, those inside runs too"))
def _snapshots(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """A table's history: one entry per state main had (a run, a compaction, a rollback, the creation)."""
    return ctx.wb.tables.snapshots(a.pipeline) if a.all else ctx.wb.tables.history(a.pipeline)


@command("runs", arg("pipeline", nargs="?", help="NS.LAYER.NAME (default: every pipeline)"),
         arg("--limit", type=int, default=20, help="runs to show (20)"))
def _runs(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Run history, newest first."""
    return ctx.wb.browse.runs(a.pipeline, a.limit)


@command("write", arg("path"))
def _write(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Write a project file from the script's heredoc (in the TUI this triggers the watcher)."""
    if body is None:
        raise ArgumentError("write needs a heredoc body: write PATH <<EOF … EOF")
    return ctx.wb.files.write(a.path, body)


@command("watch", arg("state", choices=("on", "off")))
def _watch(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    """Turn the script's file watcher on or off."""
    """Scripts start with the watcher off, so `write` then `run` runs once; `watch on` opts in."""
    return {"watching": ctx.wb.watching.set(a.state == "on")}


@command("wait-idle", arg("--timeout", type=float, default=None, help="seconds to wait at most"))
def _wait_idle(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Wait until no run is queued or running."""
    from ..core.commands.run_results import RunList

    return RunList(ctx.wb.watching.wait_idle(a.timeout))


@command("version-diff", arg("pipeline", help="NS.LAYER.NAME"),
         arg("version", type=int, help="a published version's number"))
def _version_diff(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """A published version of a pipeline against its working copy, as a unified diff."""
    from ..core.commands.version_diff import version_diff

    return version_diff(ctx.wb.project, ctx.wb.version_store, ctx.wb.browse.resolve(a.pipeline), a.version)


@command("publish", arg("pipeline", help="NS.LAYER.NAME"), arg("-m", "--message", default="", help="what changed"))
def _publish(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Pin the current versions of a pipeline's files as a new published version."""
    return ctx.wb.versions.publish(a.pipeline, a.message)


@command("versions", arg("pipeline"))
def _versions(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """A pipeline's published versions."""
    return ctx.wb.versions.list_versions(a.pipeline)


@command("rollback", arg("pipeline", help="NS.LAYER.NAME"),
         arg("version", nargs="?", type=int, help="the version to pin again (default: the one before the current)"),
         arg("--restore", action="store_true", help="also write that version's files to the working folder"))
def _rollback(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Re-pin an earlier published version (as a new version); --restore also writes its files back."""
    return ctx.wb.versions.rollback(a.pipeline, a.version, a.restore)


@command("rollback-table", arg("pipeline", help="NS.LAYER.NAME"),
         arg("snapshot_id", type=int, help="a state main had (see snapshots)"),
         arg("--rebuild", action="store_true", help="then rebuild the downstream tables built from the removed data"),
         arg("--raw", action="store_true", help="allow a snapshot inside a run (never seen by readers)"))
def _rollback_table(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Move a table's main back to an earlier snapshot; --rebuild rebuilds the stale downstream tables."""
    return ctx.wb.tables.rollback_table(a.pipeline, a.snapshot_id, a.rebuild, raw=a.raw)


@command("table-preview", arg("pipeline", help="NS.LAYER.NAME"),
         arg("--snapshot", type=int, help="a snapshot id (default: main)"),
         arg("--limit", type=int, default=20, help="rows to show (20)"))
def _table_preview(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported | dict:
    """A table's rows at main or at a snapshot."""
    return ctx.wb.tables.table_preview(a.pipeline, a.snapshot, a.limit)


def two_snapshots_or_a_run(a: argparse.Namespace) -> str | None:
    if a.run is not None:
        return "takes either two snapshot ids or --run RUN_ID, not both" if a.old is not None else None
    return "needs two snapshot ids (diff NS.LAYER.NAME OLD NEW) or --run RUN_ID" if a.new is None else None


@command("diff", arg("pipeline", help="NS.LAYER.NAME"), arg("old", type=int, nargs="?", help="the older snapshot id"),
         arg("new", type=int, nargs="?", help="the newer snapshot id"),
         arg("--run", help="a run id: the diff over that run"),
         arg("--limit", type=int, default=20, help="changed rows to show (20)"),
         arg("--key", help="columns that identify a row, comma-separated (default: the unique key)"),
         check=two_snapshots_or_a_run)
def _diff(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Rows added, removed and changed between two snapshots of a table, or over a whole run."""
    # --key a,b matches rows by those columns; --key '' by every column; without it, the table's unique key
    key = None if a.key is None else [k.strip() for k in a.key.split(",") if k.strip()]
    if a.run is not None:
        return ctx.wb.tables.diff_run(a.pipeline, a.run, a.limit, key)
    return ctx.wb.tables.diff_snapshots(a.pipeline, a.old, a.new, a.limit, key)


@command("purge", arg("--dry-run", action="store_true", help="list what would go, remove nothing"),
         arg("--namespace", help="only this namespace"))
def _purge(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Remove old state: expired snapshots, orphan files, processed landing files, old run logs."""
    return ctx.wb.upkeep.purge(a.dry_run, namespace=a.namespace)


@command("sample", arg("namespace"), arg("zone"),
         arg("file", nargs="?", help="a file of the zone (default: its sample)"),
         arg("--limit", type=int, default=20, help="rows to show (20)"))
def _sample(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Preview a landing file (its sample, if the zone has one)."""
    return ctx.wb.landing.sample(a.namespace, a.zone, a.file, a.limit)


@command("press", arg("keys", nargs="+"))
def _press(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    """Send keys to the headless app."""
    ctx.need_screen("press").press(a.keys)
    return {}


@command("screenshot", arg("path"))
def _screenshot(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    """Save the headless app's screen as an SVG."""
    return {"path": ctx.need_screen("screenshot").screenshot(a.path)}


@command("expect-screen", arg("--timeout", type=float, default=10.0),
         free_text=FreeText("text", "the text to wait for", "expect-screen SUCCESS", trailing=("--timeout",)))
def _expect_screen(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> dict:
    """Succeed only if the text shows on the headless app's screen within the timeout."""
    text = a.text
    if not ctx.need_screen("expect-screen").wait_for_text(text, a.timeout):
        raise RatError(f"'{text}' did not appear on the screen within {a.timeout:g} s")
    return {}


@command("compact", arg("pipeline"))
def _compact(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Rewrite a table's small data files into fewer (a new snapshot; no row changes)."""
    return ctx.wb.tables.compact(a.pipeline)


@command("doctor", arg("--fix", action="store_true", help="repair what can be repaired"),
         arg("--namespace", help="only this namespace"))
def _doctor(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Check the project's state, tables and landing zones for inconsistencies; --fix repairs them."""
    return ctx.wb.upkeep.doctor(a.fix, a.namespace)


@command("upload", arg("namespace"), arg("zone"), arg("paths", nargs="+", help="files to upload"),
         arg("--as", dest="as_name", help="the name to give the (one) file in the zone"),
         arg("--replace", action="store_true", help="replace a file of the same name"))
def _upload(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Upload files into a landing zone (created if needed): checked, atomic, with samples."""
    return ctx.wb.landing.upload(a.namespace, a.zone, [ctx.local_path(p) for p in a.paths], a.as_name, a.replace)


def _bool(text: str) -> bool:
    if text.lower() not in ("true", "false", "yes", "no", "on", "off"):
        raise argparse.ArgumentTypeError(f"expected true or false, not {text!r}")
    return text.lower() in ("true", "yes", "on")


@command("zone-settings", arg("namespace"), arg("zone"),
         arg("--processed-max-age-days", type=float, help="days processed files are kept before purge removes them"),
         arg("--auto-purge", type=_bool, help="true or false: purge the zone's processed files by itself"))
def _zone_settings(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Show, or change, a landing zone's purge settings in rat.yaml."""
    changes = {key: value for key, value in (("processed_max_age_days", a.processed_max_age_days),
                                             ("auto_purge", a.auto_purge)) if value is not None}
    if not changes:
        return ctx.wb.landing.zone_settings(a.namespace, a.zone)
    return ctx.wb.landing.set_zone_settings(a.namespace, a.zone, **changes)


@command("pin-dialect", arg("namespace"), arg("zone"), arg("file", nargs="?", help="the file to detect it from"))
def _pin_dialect(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Write a zone's detected CSV dialect into rat.yaml, so every later file is read the same way."""
    """The TUI's `E`: FILE's detected dialect (else the zone's first detected one) becomes the zone's `csv:`."""
    return ctx.wb.landing.pin_dialect(a.namespace, a.zone, a.file)


@command("remote-status")
def _remote_status(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """What the project's bucket has that this folder lacks."""
    return ctx.wb.bucket.remote_status()


@command("pull", arg("paths", nargs="*", help="only these project paths"),
         arg("--force", action="store_true", help="overwrite local changes"))
def _pull(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Pull newer files from the project's bucket."""
    return ctx.wb.bucket.pull(a.paths or None, a.force)


@command("push")
def _push(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Upload the pipelines and landing zones to the project's bucket."""
    return ctx.wb.bucket.push()


@command("build", arg("namespaces", nargs="*", help="only these namespaces (default: all)"),
         arg("--full-refresh", action="store_true", help="rebuild every table from its query"))
def _build(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported:
    """Run every pipeline (of the namespaces given) in dependency order."""
    return ctx.wb.runs.build(a.namespaces or None, full_refresh=a.full_refresh)


@command("lineage", arg("pipeline", nargs="?", help="NS.LAYER.NAME: its upstream and downstream (default: all)"),
         arg("--column", help="NS.LAYER.NAME.COLUMN: that column's lineage"),
         arg("--up", action="store_true", help="with --column: what it is made from"),
         arg("--down", action="store_true", help="with --column: what is made from it"),
         arg("--depth", type=int, help="with --column: steps to follow"))
def _lineage(ctx: ScriptContext, a: argparse.Namespace, body: str | None) -> Reported | dict:
    """The dependency graph (of one pipeline), or with --column a column's upstream or downstream."""
    """Without --column: the pipelines' graph. With it: the columns it reads (--up, the default) or that read it."""
    if a.column is None:
        return ctx.wb.lineage.lineage(a.pipeline)
    if a.up and a.down:
        raise ArgumentError("lineage --column: choose --up (the columns it reads, the default) or --down "
                            "(the columns that read it)")
    if a.pipeline:  # `lineage --column amount shop.bronze.orders`
        if "." in a.column:
            raise ArgumentError(f"lineage --column {a.column} {a.pipeline}: give the column's name alone with "
                                "a pipeline, or its whole name (namespace.layer.name.column) without one")
        column = ColumnRef(ctx.wb.browse.resolve(a.pipeline).fqn, a.column)
    else:
        try:
            column = ColumnRef.parse(a.column)
        except ValueError:
            raise ArgumentError(f"lineage --column {a.column}: name its table too, as `lineage --column {a.column} "
                                f"PIPELINE` or `lineage --column namespace.layer.name.{a.column}`") from None
    return column_trace_json(ctx.wb.column_lineage.trace(column, up=not a.down, depth=a.depth))


from . import automation_commands  # noqa: E402,F401  (registers triggers, tick, ticks, webhook-token)
from . import freshness_commands  # noqa: E402,F401  (registers freshness)
from . import interval_commands  # noqa: E402,F401  (registers intervals, backfill)
