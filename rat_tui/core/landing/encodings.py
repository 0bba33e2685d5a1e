"""Which encoding each landing file is read with, and the refusal of a file that is not valid in it.

A byte-order mark settles its own file (UTF-8, UTF-16 little or big endian): a zone whose `encoding`
is cp1252 still reads a UTF-8 file with a BOM as UTF-8 (read as cp1252 it named a column `ï»¿id` and
wrote `Nguyá»…n`). So does a file without a BOM that is valid UTF-8 and holds letters beyond ASCII when the
zone's encoding is one where every byte is a character (latin-1, cp1252): that encoding would read any UTF-8
file without an error, `José` as `JosÃ©`, and a text in it is almost never also valid UTF-8 with such letters.
The zone's encoding (UTF-8 when unset) applies to the other files. Every byte of a
file must decode in the encoding it is read with: a bad byte is one sentence naming the file, the byte
offset and the line, and the encoding charset-normalizer takes the file for (named, never used to read).
"""
from __future__ import annotations

import codecs
import gzip
import threading
from collections import OrderedDict
from pathlib import Path

from ..errors import RatError
from .identity import FileIdentity

CHUNK = 1 << 20
# (BOM, Python's codec): "utf-16" reads either byte order from the BOM, and so does Java's "UTF-16"
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_SHOWN = {"utf-8": "UTF-8", "utf-16": "UTF-16", "utf-16-le": "UTF-16LE", "utf-16-be": "UTF-16BE"}
_GUESS_BYTES = 64 << 10
_checked: OrderedDict[tuple, bool] = OrderedDict()
_lock = threading.Lock()


def _open(path: Path):
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")


def bom_encoding(head: bytes) -> str | None:
    """The encoding the file's byte-order mark names; None without one."""
    return next((codec for bom, codec in _BOMS if head.startswith(bom)), None)


def file_encoding(path: Path, head: bytes, zone_encoding: str | None) -> str:
    """What a file starting with `head` is read with: its BOM's encoding; UTF-8 when it is UTF-8 with letters
    beyond ASCII and the zone's is a byte-a-character one; else the zone's, else UTF-8."""
    found = bom_encoding(head)
    if found is not None:
        return found
    if zone_encoding is not None and _every_byte_decodes(zone_encoding) and utf8_beyond_ascii(path):
        return "utf-8"
    return zone_encoding or "utf-8"


def _every_byte_decodes(encoding: str) -> bool:
    """latin-1 and its kin: no byte is an error, so `check_text` can never refuse a file in them. cp1252,
    which leaves five bytes undefined, counts: a UTF-8 file's bytes almost never hit those five."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return False
    return name.startswith(("iso8859", "latin", "cp125")) or name in ("cp437", "cp850", "mac-roman")


def utf8_beyond_ascii(path: Path) -> bool:
    """Whether every byte of the file decodes as UTF-8 and one is not ASCII. Cached by the file's identity."""
    key = (str(path), FileIdentity.of(path), "utf-8 beyond ascii")
    with _lock:
        if key in _checked:
            return _checked[key]
    decoder = codecs.getincrementaldecoder("utf-8")()
    beyond = False
    try:
        with _open(path) as fh:
            while chunk := fh.read(CHUNK):
                beyond = beyond or not chunk.isascii()
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        beyond = False
    except (OSError, EOFError) as exc:
        raise RatError(f"{path.name} cannot be read: {exc}") from None
    _remember(key, beyond)
    return beyond


def _remember(key: tuple, value: bool) -> None:
    with _lock:
        _checked[key] = value
        while len(_checked) > 4096:
            _checked.popitem(last=False)


def shown(encoding: str) -> str:
    return _SHOWN.get(encoding, encoding)


def wide(encoding: str) -> bool:
    """Two or more bytes a character: Spark's line reader, which splits at the byte 0x0A, cannot read it."""
    return encoding.replace("_", "-").startswith(("utf-16", "utf-32"))


def check_text(path: Path, encoding: str, label: str) -> None:
    """Every byte of the file decodes in `encoding`; RatError naming file, byte offset and line when one
    does not. Cached by the file's identity: a run and the upload before it scan a file once."""
    key = (str(path), FileIdentity.of(path), encoding)
    with _lock:
        if key in _checked:
            return
    decoder = codecs.getincrementaldecoder(encoding)()
    offset = 0
    try:
        with _open(path) as fh:
            while chunk := fh.read(CHUNK):
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError as exc:
                    raise _refusal(path, encoding, label, offset + exc.start - _pending(exc, chunk)) from None
                offset += len(chunk)
            try:
                decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                raise _refusal(path, encoding, label, offset - 1) from None
    except (OSError, EOFError) as exc:
        raise RatError(f"{path.name} cannot be read: {exc}") from None
    _remember(key, True)


def _pending(exc: UnicodeDecodeError, chunk: bytes) -> int:
    """Bytes the incremental decoder kept from the chunk before (a character cut by the chunk's end): the
    error's position counts them."""
    return max(len(exc.object) - len(chunk), 0)


def refusal(path: Path, encoding: str, label: str, data: bytes, start: int) -> RatError:
    """The sentence for a bad byte at `start` of `data` (the file's first bytes)."""
    line = data[:start].decode(encoding, errors="replace").count("\n") + 1
    return _sentence(path, encoding, label, start, line, data[start:start + 1], data[:_GUESS_BYTES])


def _refusal(path: Path, encoding: str, label: str, offset: int) -> RatError:
    with _open(path) as fh:
        before = fh.read(offset)
        after = fh.read(_GUESS_BYTES)
    line = before.decode(encoding, errors="replace").count("\n") + 1
    return _sentence(path, encoding, label, offset, line, after[:1], before[-_GUESS_BYTES:] + after)


def _sentence(path: Path, encoding: str, label: str, offset: int, line: int, bad: bytes, sample: bytes) -> RatError:
    likely = likely_encodings(sample, exclude=encoding)
    guess = f"; it looks like {' or '.join(likely)}" if likely else ""
    setting = likely[0] if likely else "cp1252"
    byte = f"0x{bad[0]:02x} " if bad else ""
    return RatError(
        f"{path.name} is not {shown(encoding)} text (bad byte {byte}at byte offset {offset:,}, line {line:,}){guess}; "
        f"save it as UTF-8, or set the zone's encoding in rat.yaml (zones: {{{label}: {{csv: {{encoding: {setting}}}}}}})")


def likely_encodings(sample: bytes, exclude: str) -> list[str]:
    """Up to two encodings charset-normalizer takes the bytes for (to name in a refusal, never to read with)."""
    from charset_normalizer import from_bytes

    names: list[str] = []
    for match in from_bytes(sample):
        try:
            name = codecs.lookup(match.encoding).name
        except LookupError:
            continue
        if name != exclude and name not in names:
            names.append(name)
    # A short sample reads as well in many single-byte codecs (cp1250, cp1006 for `Zoë`): cp1252, the
    # Windows export's encoding, is named first whenever it reads every byte
    if exclude != "cp1252" and _reads(sample, "cp1252"):
        names = ["cp1252", *(n for n in names if n != "cp1252")]
    return names[:2]


def _reads(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
        return True
    except UnicodeDecodeError:
        return False
