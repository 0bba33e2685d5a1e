"""Writing small pipelines and landing files into a namespace of the shared test lake."""
from __future__ import annotations

import itertools
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from devkit.sample import pristine_sample
from rat_tui.core.commands.workbench import Workbench

_counter = itertools.count(1)


@dataclass
class Scratch:
    wb: Workbench
    ns: str

    @classmethod
    def create(cls, wb: Workbench, test_name: str) -> "Scratch":
        slug = re.sub(r"[^a-z0-9_]", "_", test_name.lower())[:40].strip("_")
        ns = f"t{next(_counter)}_{slug}"
        (wb.project.root / ns / "pipelines").mkdir(parents=True)
        return cls(wb, ns)

    @property
    def root(self) -> Path:
        return self.wb.project.root / self.ns

    def pipeline(self, layer: str, name: str, sql: str, tests: dict[str, str] | None = None,
                 filename: str = "pipeline.sql", config: str | None = None) -> str:
        base = self.root / "pipelines" / layer / name
        base.mkdir(parents=True, exist_ok=True)
        (base / filename).write_text(textwrap.dedent(sql).lstrip())
        if config is not None:
            (base / "config.yaml").write_text(textwrap.dedent(config))
        for test_name, test_sql in (tests or {}).items():
            (base / "tests" / "quality").mkdir(parents=True, exist_ok=True)
            (base / "tests" / "quality" / f"{test_name}.sql").write_text(textwrap.dedent(test_sql).lstrip())
        return f"{self.ns}.{layer}.{name}"

    def landing(self, zone: str, relpath: str, content: str) -> Path:
        path = self.root / "landing" / zone / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content).lstrip())
        return path

    def run(self, fqn: str, **kwargs) -> dict:
        """A run's record, whether it succeeded or not."""
        return self.wb.submit(fqn, **kwargs).wait().as_dict()

    def rows(self, sql: str) -> list[list]:
        return self.wb.query(sql)["rows"]

    def refs(self, fqn: str) -> dict[str, int]:
        return self.wb.snapshots(fqn)["refs"]

    def table_exists(self, layer: str, name: str) -> bool:
        return (self.root / "warehouse" / layer / name / "metadata").is_dir()


def copy_sample_namespace(scratch: Scratch) -> None:
    """The sample's ecommerce pipelines and landing files, inside the scratch namespace."""
    import shutil

    source = pristine_sample() / "ecommerce"
    shutil.copytree(source / "pipelines", scratch.root / "pipelines", dirs_exist_ok=True)
    shutil.copytree(source / "landing", scratch.root / "landing", dirs_exist_ok=True)


def disk_state(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` (size, mtime), so a test can prove a refusal wrote nothing."""
    return {p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}
