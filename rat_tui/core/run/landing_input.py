"""What a run reads of its landing zones: new files only (the load history), and "nothing new" as a state.

A pipeline that archives its zones, or appends (append_only), loads a file's content once: a file whose
content it loaded in an earlier successful run is skipped (`skipped a.csv: loaded by run 1a2b3c on …`)
and archived again, unless the run was asked to `--reload-files`. A zone that is not archived keeps its
files, so an append_only pipeline's run says how many it did not read again, in one sentence. A
`--full-refresh` reads every file in the zone, and one of an archiving pipeline is refused while the table
holds rows of files archived out of it (they would be lost).
A zone with nothing to read is not a failure once the pipeline has a table: the zone reads as empty (with the
columns of its `_samples/`), and a run whose zones all had nothing new writes nothing
(phases.py). A preview of such a zone reads its `_samples/` and says so.
"""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import RatError, did_you_mean
from ..landing.checks import file_problem, holds_nothing
from ..landing.quarantine import REJECTED_FOLDER
from ..landing.load_history import EarlierLoad, LoadHistory, hash_bytes, zone_read_settings
from ..landing.file_read import FileRead
from ..landing.sample_sources import latest_samples
from ..landing.arrival import arrival_place
from ..landing.zone_reader import ZoneReader
from ..landing.zone_settings import ZoneReadSettings, changed_keys, zone_entry
from ..notes import RunNote
from ..project.model import Project, active_landing_files

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

    from ..storage import Storage


_logger = logging.getLogger(__name__)


class NothingNew(RatError):
    """A zone had nothing to read and no `_samples/` file tells its columns."""


@dataclass
class Skipped:
    path: Path
    earlier: EarlierLoad | None = None  # the load of its content by an earlier run
    same_as: str | None = None  # else: the file of this run with the same content, loaded instead
    empty: str | None = None  # else: why it holds no data (checks.holds_nothing)

    def sentence(self) -> str:
        if self.earlier is not None:
            return self.earlier.sentence(self.path.name)
        if self.empty is not None:
            return f"skipped {self.path.name}: it {self.empty}; a later run reads it once it holds rows"
        return f"skipped {self.path.name}: same content as {self.same_as}, loaded by this run"


@dataclass
class LandingInput:
    spark: "SparkSession"
    project: Project
    namespace: str
    storage: "Storage"
    pipeline: str
    run_id: str
    table_exists: bool
    history: LoadHistory | None = None  # set for pipelines that load a file's content once
    memory: LoadHistory | None = None  # what the zones' earlier loads read dates as (every pipeline, previews too)
    reload_files: bool = False
    preview: bool = False
    archives: bool = False  # the pipeline moves the files it read to _processed/
    appends: bool = False  # append_only: rows of a file read again add to those it gave before
    rebuild: bool = False  # a --full-refresh run of a pipeline whose table keeps rows across runs
    # The table's text columns (none for a new table, a preview, a --full-refresh): read as text, as the table has
    # them. A late `01234` made the first run's `zip` text; the next run's sample typed it as a number again, and
    # the change of the table's type refused every run before the read could see that value.
    text_in_table: Callable[[], frozenset[str]] = lambda: frozenset()
    readers: dict[str, ZoneReader] = field(default_factory=dict)
    files_read: dict[tuple[str, str], list[FileRead]] = field(default_factory=dict)
    hashes: dict[Path, str] = field(default_factory=dict)
    skipped: dict[str, list[Skipped]] = field(default_factory=dict)
    nothing_new: list[str] = field(default_factory=list)  # labels of zones that had nothing to read
    read_new: list[str] = field(default_factory=list)
    resent: list[RunNote] = field(default_factory=list)  # new contents under the names of archived files
    changed_settings: list[RunNote] = field(default_factory=list)  # zones with nothing new, read otherwise now
    _logged: set[str] = field(default_factory=set)  # zones whose reader's notes were logged

    def label(self, zone: str) -> str:
        return f"{self.namespace}/landing/{zone}"

    def read(self, zone: str, log) -> tuple["DataFrame", "Column"]:
        label = self.label(zone)
        reader = self.readers.get(zone)
        if reader is None:
            reader = self._reader(zone, log)
            self.readers[zone] = reader
        logged = len(reader.notes)
        df, source = reader.read()
        for note in reader.notes[logged if zone in self._logged else 0:] if not self._samples_only(label) else ():
            log(f"{label}: {note}", "warn" if "lack" in note else "info")
        self._logged.add(zone)
        if self._samples_only(label):
            df = df.limit(0)  # a run reads the sample's columns and none of its rows
        return df, source

    def arrival(self) -> "Column | None":
        """Each row's landing file's place in the order the run's files arrived (landing/arrival.py); None when
        the run read no landing file."""
        files = [(f.path, f.mtime) for read in self.files_read.values() for f in read]
        if not files:
            return None
        return arrival_place(files, [t for reader in self.readers.values() for t in reader.twins()])

    def _samples_only(self, label: str) -> bool:
        """A run's zone with nothing new: it read the zone's _samples/ for its columns, and no row."""
        return label in self.nothing_new and not self.preview

    def _reader(self, zone: str, log) -> ZoneReader:
        label = self.label(zone)
        zone_dir = self.project.zone_dir(self.namespace, zone)
        if not zone_dir.is_dir():
            siblings = [p.name for p in zone_dir.parent.iterdir() if p.is_dir()] if zone_dir.parent.is_dir() else []
            raise RatError(f"landing zone {label} does not exist{did_you_mean(zone_dir.name, siblings)}")
        files = []
        for file in active_landing_files(zone_dir):  # the checks upload makes, for files dropped into the folder
            if empty := holds_nothing(file):  # not an error: an empty export, or one being copied in
                self.skipped.setdefault(zone, []).append(Skipped(file, empty=empty))
                log(f"{label}: {self.skipped[zone][-1].sentence()}", "warn")
            elif problem := file_problem(file):
                raise RatError(f"landing file {label}/{file.relative_to(zone_dir).as_posix()} {problem}")
            else:
                files.append(file)
        settings = kept_as_text(zone_read_settings(self.project, self.memory, self.namespace, zone), self.text_in_table())
        present, files = files, self._new_files(zone, files, log)
        read = set(files)
        if files:
            self.read_new.append(label)
            self.files_read[(self.namespace, zone)] = [FileRead.of(f) for f in files]
            return ZoneReader(self.spark, zone_dir, label, files, self.storage.landing_uri, settings,
                              twins_of=_twins_of(zone_dir), run_id=None if self.preview else self.run_id,
                              others=[f for f in present if f not in read])
        if not self.table_exists and not self.preview:  # no table holds earlier loads: none was skipped
            empty = [s.path.name for s in self.skipped.get(zone, ()) if s.empty]
            raise RatError(f"{label} has no files yet" + (f" that hold rows ({', '.join(empty)}: no data)" if empty else ""))
        self.nothing_new.append(label)
        self._note_changed_settings(zone, log)
        samples = latest_samples(zone_dir, active_landing_files(zone_dir / "_samples"))
        if not samples:
            raise NothingNew(f"nothing new in {label}, and no _samples/ file tells its columns")
        if self.preview:
            log(f"{label} holds nothing new: the preview reads its _samples/", "info")
        return ZoneReader(self.spark, zone_dir, label, samples, self.storage.landing_uri, settings, run_id=None)

    def _new_files(self, zone: str, files: list[Path], log) -> list[Path]:
        """The files to read: for a pipeline with a load history, those whose content it has not loaded."""
        if self.history is None:
            for file in _sharing_a_size(files):
                self.hashes[file] = self.memory.content_hash(file) if self.memory else hash_bytes(file)
            return self._one_of_each_content(zone, files, {}, log)
        for file in files:
            self.hashes[file] = self.history.content_hash(file)
        folder = self.project.zone_folder(self.namespace, zone)
        rebuilding = self.rebuild and self.table_exists and not self.preview
        if rebuilding and self.archives:
            self._check_nothing_archived_is_lost(zone, folder, {self.hashes[f] for f in files})
        if self.reload_files or not files:
            return files
        # A rebuild reads every content in the zone, loaded before or not; and no table, no rows of earlier loads
        earlier = {} if rebuilding or not self.table_exists else self.history.earlier_loads(
            self.pipeline, list(dict.fromkeys(self.hashes[f] for f in files)), folder)
        fresh = self._one_of_each_content(zone, files, earlier, log)
        if any(not self._said_alone(s) for s in self.skipped.get(zone, ())):
            log(self._kept_files_sentence(zone), "info")
        if self.appends and not rebuilding and self.table_exists:
            if self.archives:
                self._note_resent(zone, folder, fresh, log)
            else:
                self._refuse_changed_in_place(zone, folder, fresh)
        return fresh

    def _one_of_each_content(self, zone: str, files: list[Path], earlier: dict[str, EarlierLoad], log) -> list[Path]:
        """The files whose content no earlier load read and no older file of this batch holds (a copy under
        another name, a partner's resend, would give its rows twice: the first sent keeps its name in the
        rows, though `orders (1).csv` sorts before `orders.csv`); a file left unhashed is unique."""
        fresh: dict[str, Path] = {}
        for file in sorted(files, key=lambda f: (f.stat().st_mtime_ns, f.name)):
            digest = self.hashes.get(file, str(file))
            if digest not in earlier and digest not in fresh:
                fresh[digest] = file
                continue
            skipped = Skipped(file, earlier.get(digest), None if digest in earlier else self.project.rel(fresh[digest]))
            self.skipped.setdefault(zone, []).append(skipped)
            if self._said_alone(skipped):
                log(skipped.sentence(), "info")
        kept = set(fresh.values())
        return [file for file in files if file in kept]

    def _refuse_changed_in_place(self, zone: str, folder: str, new: list[Path]) -> None:
        """A file of a zone that keeps its files, loaded before and changed since (a partner's correction):
        appending it would add every row it gave before a second time. Which rows are new, only the sender
        knows: refused, before anything is written."""
        for file, load, day in self._loaded_under_the_same_name(folder, new):
            raise RatError(f"{self.label(zone)}/{file.name} changed since run {load.run_id} loaded it on {day}: "
                           f"{self.pipeline} appends, so its earlier rows would be in the table twice; send the "
                           "new rows as a new file and put this one back as it was, or rebuild the table from "
                           f"the zone's files as they are now with a full refresh (rat-tui run {self.pipeline} --full-refresh)")

    def _loaded_under_the_same_name(self, folder: str, new: list[Path]) -> Iterator[tuple[Path, EarlierLoad, str]]:
        """Each new content whose file has the name (path in its zone) of one loaded before: that load, and its day."""
        assert self.history is not None
        by_file = {load.file: load for load in self.history.loaded(self.pipeline, folder).values()}
        for file in new:
            if (load := by_file.get(self.project.rel(file))) is not None:
                yield file, load, time.strftime("%Y-%m-%d", time.localtime(load.loaded_at))

    def _note_changed_settings(self, zone: str, log) -> None:
        """Nothing new, though rat.yaml reads the zone otherwise than when the files were loaded: the user who fixed
        a setting (`null_values: [N/A]`) and ran again was told only "nothing new"."""
        if self.history is None or self.preview:
            return
        last = self.history.last_settings(self.pipeline, self.project.zone_folder(self.namespace, zone))
        now = zone_entry(self.project.settings, self.namespace, zone)
        if last is None or not (changed := changed_keys(last[0], now)):
            return
        label = self.label(zone)
        back = f" after moving its files from {label}/_processed/ back into the zone" if self.archives else ""
        sentence = (f"rat.yaml's {', '.join(changed)} for {label} changed since run {last[1]} loaded its files, which "
                    f"are not read again: to read them as the settings say now, rebuild the table with a full refresh"
                    f"{back} (rat-tui run {self.pipeline} --full-refresh)")
        self.changed_settings.append(RunNote("settings_changed", sentence))
        log(sentence, "warn")

    def _note_resent(self, zone: str, folder: str, new: list[Path], log) -> None:
        """A new content under the name of a file loaded before and archived: a daily `orders.csv` of new rows, or a
        partner's corrected re-send, which appending puts in the table beside the rows it corrects. Only the
        sender knows which: loaded, and said, with the way back."""
        for file, load, day in self._loaded_under_the_same_name(folder, new):
            sentence = (f"{file.name} has the name of a file run {load.run_id} loaded on {day} (archived in "
                        f"{self.label(zone)}/_processed/), with other content: its rows were appended. If it is a "
                        f"corrected re-send, every row it repeats is now in {self.pipeline} twice, which appending "
                        f"cannot mend. To take the correction: roll the table back past this run (t in the TUI, or "
                        f"rat-tui rollback-table {self.pipeline} with the snapshot before it, as rat-tui snapshots "
                        "lists them); make the pipeline @merge_strategy: incremental with a @unique_key, whose "
                        "change takes a --full-refresh (it reads only the zone's files: move the archived ones back "
                        "first); then send the corrected file again: its rows replace their earlier versions")
            self.resent.append(RunNote("resent_files", sentence, self.project.rel(file)))
            log(sentence, "warn")

    def _kept_files_sentence(self, zone: str) -> str:
        """A zone that is not archived keeps every file it was sent: one sentence for those loaded before."""
        loaded = sum(not self._said_alone(s) for s in self.skipped[zone])
        return f"not read again: {loaded} file(s) of {self.label(zone)} loaded by earlier runs"

    def _check_nothing_archived_is_lost(self, zone: str, folder: str, present: set[str]) -> None:
        """A full refresh reads only what is in the zone: refused, before anything is written, while the table
        holds rows of files archived out of it. Not read from `_processed/`: archives purged by age are gone,
        an archived file lost its typed twin (archive.py), and the user can move the files back."""
        assert self.history is not None
        lost = self.history.loaded(self.pipeline, folder).keys() - present
        if lost:
            label = self.label(zone)
            raise RatError(f"a full refresh of {self.pipeline} rebuilds it from the files in {label} only, and would "
                           f"lose the rows of {len(lost)} archived file(s) it loaded before; move them from "
                           f"{label}/_processed/ back into the zone and run the full refresh again, which reads "
                           "every file in the zone")

    def widen(self, exc: BaseException) -> list[str]:
        """After a failed read: notes on the columns widened by a full pass ([] if none would widen)."""
        notes = []
        for zone, reader in self.readers.items():
            try:
                notes += [f"{self.label(zone)}: widened {n}" for n in reader.widen()]
            except RatError:
                raise
            except Exception:  # the files went meanwhile, or cannot be read at all: the first error stands
                _logger.info("no widening for %s after %s", zone, exc, exc_info=True)
        return notes

    def explain(self, exc: BaseException) -> str | None:
        try:
            return next((s for s in (r.explain(exc) for r in self.readers.values()) if s), None)
        except OSError:  # a file went meanwhile: the first error stands
            return None

    def lacking(self, column: str) -> str | None:
        """Where a column the query names went, when this run's files lack it and the zone's last load had it (a
        partner renamed a header: `client` for `customer`); None when no zone tells (the query's own name)."""
        wanted = column.lower()
        for zone, reader in self.readers.items():
            label = self.label(zone)
            last = self.memory.last_columns(self.project.zone_folder(self.namespace, zone)) if self.memory else None
            if self._samples_only(label) or last is None or wanted not in {c.lower() for c in last[0]}:
                continue
            for group in reader.groups:
                names = group.dialect.names if group.dialect is not None else ()
                if names and wanted not in {n.lower() for n in names}:
                    return (f"{group.names()} of {label} {'has' if len(group.files) == 1 else 'have'} no column "
                            f"{column} (header: {', '.join(names)}), which the zone's files had when run {last[1]} "
                            f"loaded them; if the sender renamed it, rename it back or select the new name")
        return None

    @property
    def notes(self) -> list[str]:
        return [f"{self.label(z)}: {n}" for z, r in self.readers.items() for n in r.notes]

    @property
    def rejected_rows(self) -> int:
        return sum(r.rejected_rows for r in self.readers.values())

    def loaded(self, files_read: dict[tuple[str, str], list[FileRead]]) -> list[tuple[str, str]]:
        """(file path in the project, content hash) of the files the build read, for the load history; a
        zone read only by a quality test's landing_zone() is neither archived nor loaded."""
        return [(self.project.rel(f.path), self.hashes[f.path]) for files in files_read.values() for f in files
                if f.path in self.hashes]

    def columns_loaded(self, files_read: dict[tuple[str, str], list[FileRead]]) -> dict[str, list[str]]:
        """Zone folder (in the project, ending in /) -> the columns every file the build read from it had,
        so upload still knows a zone's columns once its files are archived."""
        return {self.project.zone_folder(namespace, zone): self.readers[zone].columns
                for namespace, zone in files_read if zone in self.readers and self.readers[zone].columns}

    def settings_loaded(self, files_read: dict[tuple[str, str], list[FileRead]]) -> dict[str, dict]:
        """Zone folder -> rat.yaml's entry for the zone as this run read it (a later run with nothing new says
        when it changed)."""
        return {self.project.zone_folder(namespace, zone): zone_entry(self.project.settings, namespace, zone)
                for namespace, zone in files_read if zone in self.readers}

    def dates_loaded(self, files_read: dict[tuple[str, str], list[FileRead]]) -> dict[str, list[tuple[str, str]]]:
        """Zone folder -> the day/month order the build read its dates in, so a later file that reads
        either way is read alike (load_history.py's date_orders)."""
        return {self.project.zone_folder(namespace, zone): self.readers[zone].date_orders()
                for namespace, zone in files_read if zone in self.readers}

    def skipped_sentences(self) -> list[str]:
        return [note.text for note in self._skipped_notes()]

    def _skipped_notes(self) -> list[RunNote]:
        notes = []
        for zone, skipped in self.skipped.items():
            notes += [RunNote("skipped_files", s.sentence(), self.project.rel(s.path)) for s in skipped if self._said_alone(s)]
            if any(not self._said_alone(s) for s in skipped):
                notes.append(RunNote("skipped_files", self._kept_files_sentence(zone)))
        return notes

    def _said_alone(self, skipped: Skipped) -> bool:
        """Whether a skipped file gets a sentence of its own: in a zone that keeps its files, those loaded before
        under their own name are counted in one (every run would list them all), but a copy sent under another
        name (`orders (1).csv`) is news."""
        return (self.archives or skipped.earlier is None
                or skipped.earlier.file != self.project.rel(skipped.path))

    def run_notes(self) -> list[RunNote]:
        """What reading the zones did to the data, for the run's notes (under its build phase): files skipped,
        zones with nothing new, rows set aside, and what each zone's reader noted."""
        notes = self._skipped_notes() + self.resent + self.changed_settings
        notes += [RunNote("nothing_new", f"nothing new in {label}") for label in self.nothing_new]
        for zone, reader in self.readers.items():
            label = self.label(zone)
            if self._samples_only(label):  # what reading its _samples/ for the columns found is no news of data
                continue
            typed = {note.text for note in reader.run_notes}  # the reader logs each of these as a string too
            notes += [RunNote(_kind_of(note), f"{label}: {note}") for note in reader.notes
                      if not _set_aside(note) and note not in typed]
            notes += reader.run_notes
            rejected = self.rejected_folder(zone) if reader.rejected_rows else None
            if rejected is not None:
                notes += quarantined_notes(self.project, label, rejected)
        return notes

    def rejected_folder(self, zone: str) -> Path | None:
        """Where this run's rows of the zone that did not parse went (None: none did)."""
        folder = self.project.zone_dir(self.namespace, zone) / REJECTED_FOLDER / self.run_id
        return folder if not self.preview and folder.is_dir() else None


# What the zone readers' notes say, by the words that say it (the rows set aside are told from the rejects file).
_KINDS = (("did not parse and were set aside", "quarantined"), (": NULL in their rows", "null_column"),
          ("widened ", "schema"))


def _kind_of(note: str) -> str:
    return next((kind for words, kind in _KINDS if words in note), "other")


def _set_aside(note: str) -> bool:
    return _kind_of(note) == "quarantined"


def quarantined_notes(project: Project, label: str, folder: Path) -> list[RunNote]:
    """One note per file whose rows were set aside: how many, where to, and the first one's line."""
    by_file: dict[str, list[int | None]] = {}
    for line in (folder / "rejected.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        by_file.setdefault(row["file"], []).append(row["line"])
    rejects = project.rel(folder / "rejected.jsonl")
    return [RunNote("quarantined", f"{len(lines)} row(s) of {label}/{name} did not parse and were set aside in "
                    f"{rejects}", project.rel(folder.parent.parent / name), lines[0])
            for name, lines in by_file.items()]


def _twins_of(zone_dir: Path):
    from ..landing.twins import twins_for

    return lambda files, dialect: twins_for(zone_dir, files, dialect)


def _sharing_a_size(files: list[Path]) -> list[Path]:
    """Only files of one size can hold the same bytes: the others need no reading to tell."""
    by_size: dict[int, list[Path]] = {}
    for file in files:
        by_size.setdefault(file.stat().st_size, []).append(file)
    return [file for same in by_size.values() if len(same) > 1 for file in same]


def kept_as_text(settings: ZoneReadSettings, text: frozenset[str]) -> ZoneReadSettings:
    """The zone's settings with `text` pinned as strings, under what rat.yaml pins."""
    if not text:
        return settings
    return replace(settings, types={**{name: "string" for name in sorted(text)}, **(settings.types or {})})
