"""Discovering a project folder: namespaces, layers, pipelines and landing zones."""
from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Problem, RatError, did_you_mean
from ..fileio import resolved
from .names import LAYERS, layer_problem, name_problem
from .settings import load_settings, read_settings

# Delimited text of any separator (.tsv, .txt, TPC-H's .tbl) is "csv": its dialect is detected per file.
LANDING_EXTENSIONS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".tbl": "csv", ".parquet": "parquet",
                      ".json": "json", ".jsonl": "json", ".ndjson": "json"}
COMPRESSED_SUFFIX = ".gz"  # Spark and DuckDB read gzip text by this extension
# Typed Parquet copies of a zone's CSV files (landing/twins.py): `_`-prefixed, so never read as data.
TYPED_TWIN_FOLDER = "_typed"
SOURCE_FILES = ("pipeline.sql", "pipeline.py")
# A pipeline's versioned files, relative to its folder (what read_pipeline_files returns).
_VERSIONED_FILE = re.compile(r"^(pipeline\.sql|pipeline\.py|config\.yaml|tests/quality/[^/]+\.sql)$")
_NAMESPACE_MARKERS = ("pipelines", "landing", "warehouse")


@dataclass(frozen=True, order=True)
class PipelineRef:
    namespace: str
    layer: str
    name: str

    @property
    def fqn(self) -> str:
        return f"{self.namespace}.{self.layer}.{self.name}"

    @property
    def relpath(self) -> Path:
        return Path(self.namespace, "pipelines", self.layer, self.name)

    @classmethod
    def parse(cls, text: str, default_namespace: str | None = None) -> "PipelineRef":
        parts = text.split(".")
        if len(parts) == 2 and default_namespace:
            parts = [default_namespace, *parts]
        if len(parts) != 3 or not all(parts):
            raise RatError(f"'{text}' is not a pipeline name of the form namespace.layer.name")
        return cls(*parts)

    def resolve(self, name: str) -> PipelineRef | None:
        """What `ref(name)` in this pipeline names: `layer.name` is in its own namespace, `ns.layer.name`
        names it fully; None when the name has neither form."""
        parts = str(name).split(".")
        if len(parts) == 2:
            return PipelineRef(self.namespace, *parts)
        return PipelineRef(*parts) if len(parts) == 3 else None

    def unknown_ref(self, name: str, known: Iterable[PipelineRef]) -> str:
        """The sentence for a `ref(name)` in this pipeline that names no pipeline, with the closest name
        written the way this pipeline would write it."""
        names = [p.fqn if p.namespace != self.namespace else f"{p.layer}.{p.name}" for p in known]
        return f"ref('{name}') names no pipeline in this project{did_you_mean(name, names)}"


@dataclass(frozen=True)
class LandingZone:
    namespace: str
    name: str
    path: Path

    def active_files(self) -> list[Path]:
        return active_landing_files(self.path)


@dataclass
class Namespace:
    name: str
    pipelines: list[PipelineRef] = field(default_factory=list)
    zones: list[LandingZone] = field(default_factory=list)


@dataclass
class ProjectScan:
    namespaces: list[Namespace]
    problems: list[Problem]

    def pipelines(self) -> list[PipelineRef]:
        return [p for ns in self.namespaces for p in ns.pipelines]

    def zones(self) -> list[LandingZone]:
        return [z for ns in self.namespaces for z in ns.zones]


def in_namespace(name: str, namespace: str | None) -> bool:
    """Whether `ns.layer.name` or `ns/...` belongs to `namespace` (None: every namespace)."""
    return namespace is None or name.split(".")[0].split("/")[0] == namespace


def _visible_dirs(path: Path) -> list[Path]:
    if not path.is_dir():
        return []
    return sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def landing_format(path: Path | str) -> str | None:
    """csv, parquet or json by the file's extension (`a.csv.gz` is csv); None for other files."""
    name = os.path.basename(path).lower()  # string work: a run asks this of every file, thrice
    if name.endswith(COMPRESSED_SUFFIX):
        fmt = LANDING_EXTENSIONS.get(_suffix(name[: -len(COMPRESSED_SUFFIX)]))
        return fmt if fmt != "parquet" else None  # Parquet compresses inside the file
    return LANDING_EXTENSIONS.get(_suffix(name))


def _suffix(name: str) -> str:
    """Path(name).suffix without building a Path: `.csv` is a name without a suffix, as there."""
    i = name.rfind(".")
    return name[i:] if 0 < i < len(name) - 1 else ""


def active_landing_files(zone_dir: Path) -> list[Path]:
    """Files a run reads: data extensions only, skipping `_*`/`.*` files and folders at any depth."""
    found: list[Path] = []
    if not zone_dir.is_dir():
        return found
    for entry in sorted(zone_dir.iterdir()):
        if entry.name.startswith(("_", ".")):
            continue
        if entry.is_dir():
            found += active_landing_files(entry)
        elif landing_format(entry) is not None:
            found.append(entry)
    return found


class Project:
    """A project folder. Cheap to create; `scan()` reads the disk each time it is called."""

    def __init__(self, root: Path | str):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise RatError("project folder does not exist", self.root)
        self.settings, self.settings_problems = load_settings(self.root)
        self.state_dir = self.root / ".rat"

    def reload_settings(self) -> bool:
        """rat.yaml read again: False when it cannot be read as a whole (settings_problems says why), and the
        settings in use stay as they were."""
        settings, self.settings_problems = read_settings(self.root)
        if settings is not None:
            self.settings = settings
        return settings is not None

    def rel(self, path: Path) -> str:
        try:
            return resolved(path).relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def scan(self) -> ProjectScan:
        problems: list[Problem] = list(self.settings_problems)
        namespaces: list[Namespace] = []
        for ns_dir in _visible_dirs(self.root):
            if not any((ns_dir / marker).is_dir() for marker in _NAMESPACE_MARKERS):
                continue
            issue = name_problem("namespace", ns_dir.name)
            if issue:
                problems.append(Problem(self.rel(ns_dir), issue))
                continue
            namespaces.append(self._scan_namespace(ns_dir, problems))
        return ProjectScan(namespaces, problems)

    def _scan_namespace(self, ns_dir: Path, problems: list[Problem]) -> Namespace:
        ns = Namespace(ns_dir.name)
        for layer_dir in _visible_dirs(ns_dir / "pipelines"):
            issue = layer_problem(layer_dir.name)
            if issue:
                problems.append(Problem(self.rel(layer_dir), issue))
                continue
            for pipe_dir in _visible_dirs(layer_dir):
                issue = name_problem("pipeline", pipe_dir.name)
                if issue:
                    problems.append(Problem(self.rel(pipe_dir), issue))
                    continue
                ns.pipelines.append(PipelineRef(ns.name, layer_dir.name, pipe_dir.name))
        ns.pipelines.sort(key=lambda p: (LAYERS.index(p.layer), p.name))
        for zone_dir in _visible_dirs(ns_dir / "landing"):
            issue = name_problem("landing zone", zone_dir.name)
            if issue:
                problems.append(Problem(self.rel(zone_dir), issue))
                continue
            ns.zones.append(LandingZone(ns.name, zone_dir.name, zone_dir))
        return ns

    def pipeline_dir(self, ref: PipelineRef) -> Path:
        return self.root / ref.relpath

    def zone_dir(self, namespace: str, zone: str) -> Path:
        return self.root / namespace / "landing" / zone

    def zone_folder(self, namespace: str, zone: str) -> str:
        """The zone's path in the project, ending in /: how the load history names it."""
        return self.rel(self.zone_dir(namespace, zone)) + "/"

    def warehouse_dir(self, namespace: str) -> Path:
        return self.root / namespace / "warehouse"

    def table_dir(self, ref: PipelineRef) -> Path:
        return self.warehouse_dir(ref.namespace) / ref.layer / ref.name

    def find_pipeline(self, text: str) -> PipelineRef:
        ref = PipelineRef.parse(text)
        if not (self.pipeline_dir(ref)).is_dir():
            known = [p.fqn for p in self.scan().pipelines()]
            raise RatError(f"no pipeline {ref.fqn}: folder {ref.relpath.as_posix()} does not exist"
                           f"{did_you_mean(ref.fqn, known)}")
        return ref

    def read_pipeline_files(self, ref: PipelineRef) -> dict[str, bytes]:
        """The pipeline's own files (relative path -> bytes): source, config.yaml, quality tests."""
        base = self.pipeline_dir(ref)
        files: dict[str, bytes] = {}
        for name in (*SOURCE_FILES, "config.yaml"):
            if (base / name).is_file():
                files[name] = (base / name).read_bytes()
        quality = base / "tests" / "quality"
        if quality.is_dir():
            for test in sorted(quality.glob("*.sql")):
                files[f"tests/quality/{test.name}"] = test.read_bytes()
        return files


def pipeline_file_owner(relpath: str) -> PipelineRef | None:
    """The pipeline whose versioned file (source, config.yaml, quality test) this project path is."""
    parts = relpath.split("/")
    if len(parts) >= 5 and parts[1] == "pipelines" and _VERSIONED_FILE.match("/".join(parts[4:])):
        return PipelineRef(parts[0], parts[2], parts[3])
    return None
