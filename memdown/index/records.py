"""The index's file records (``files.json``): the one reader, writer, stat diff and row comparison.

One record per indexed source: size, mtime, sha256, chunk count and a
fingerprint of the rows written for it (``rows``: a digest of every row's
comparable fields, so ``verify`` can check the table without re-chunking an
unchanged file; records written before it existed have ``""``). The
indexer writes them; the freshness check before a search, the watch daemon's
full pass and ``verify`` read them, all through this module, so all of them
agree on what a record is and on when a file or a row has changed.

A ``files.json`` that is not exactly what it must be (garbage, ``[]``, a
record with a missing or mistyped field) raises :class:`RecordsDamaged` with a
one-line reason; callers treat that as "index unavailable" and rebuild from
the markdown (which is never touched).
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

from .. import fsutil
from ..fsutil import atomic_write_text
from ..paths import PRIVATE_FILE_MODE

RECORDS_FILE = "files.json"
_FIELDS = {"size", "mtime_ns", "sha256", "chunks"}
_OPTIONAL = {"rows"}
# What decides whether a stored row is still what the markdown produces now.
ROW_FIELDS = ("id", "start_line", "end_line", "section_start", "section_end", "embed_hash",
              "session", "turn", "transcript", "text")
INT_ROW_FIELDS = frozenset({"start_line", "end_line", "section_start", "section_end"})


class RecordsDamaged(ValueError):
    """``files.json`` exists but is not a valid set of records (the message is one line)."""


@dataclass
class FileRecord:
    size: int
    mtime_ns: int
    sha256: str
    chunks: int
    rows: str = ""  # rows_digest of the rows written for this file ("" = unknown)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"size": self.size, "mtime_ns": self.mtime_ns, "sha256": self.sha256,
                                "chunks": self.chunks}
        if self.rows:
            data["rows"] = self.rows
        return data

    def same_stat(self, st: os.stat_result) -> bool:
        """Size and mtime as recorded: the file is taken as unchanged without reading it."""
        return self.size == st.st_size and self.mtime_ns == st.st_mtime_ns


def records_path(index_dir: Path) -> Path:
    return Path(index_dir) / RECORDS_FILE


def parse_records(data: object) -> dict[str, FileRecord]:
    """Decoded ``files.json`` checked field by field: anything else is damage."""
    if not isinstance(data, dict):
        raise RecordsDamaged("files.json is not an object")
    records: dict[str, FileRecord] = {}
    for source, rec in data.items():
        if not isinstance(rec, dict) or not _FIELDS <= set(rec) <= _FIELDS | _OPTIONAL:
            raise RecordsDamaged("files.json holds a malformed record")
        ints = (rec["size"], rec["mtime_ns"], rec["chunks"])
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in ints) or rec["chunks"] < 0:
            raise RecordsDamaged("files.json holds a malformed record")
        if not isinstance(rec["sha256"], str) or not isinstance(rec.get("rows", ""), str):
            raise RecordsDamaged("files.json holds a malformed record")
        records[source] = FileRecord(**rec)
    return records


def load_records(index_dir: Path) -> dict[str, FileRecord]:
    """The records, {} when there is no ``files.json`` yet.

    Raises RecordsDamaged (invalid content) or OSError (unreadable file).
    """
    path = records_path(index_dir)
    try:
        text = fsutil.read_text(path)
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise RecordsDamaged("files.json is not text") from None
    try:
        data = json.loads(text)
    except ValueError:
        raise RecordsDamaged("files.json is not valid JSON") from None
    return parse_records(data)


def read_records(index_dir: Path) -> dict[str, FileRecord] | None:
    """The records for a cheap check; None when missing, unreadable or damaged (the index then rebuilds)."""
    if not records_path(index_dir).exists():
        return None
    try:
        return load_records(index_dir)
    except (OSError, RecordsDamaged):
        return None


def save_records(index_dir: Path, records: Mapping[str, FileRecord]) -> None:
    atomic_write_text(records_path(index_dir), json.dumps({s: r.to_json() for s, r in sorted(records.items())}),
                      mode=PRIVATE_FILE_MODE)


# --- the stat diff ------------------------------------------------------------
@dataclass
class StatDiff:
    """What differs between the files on disk and their records, by size and mtime only."""

    changed: list[Path] = field(default_factory=list)  # new files, or size/mtime differ (or stat failed)
    deleted: list[str] = field(default_factory=list)  # recorded sources with no file any more

    @property
    def clean(self) -> bool:
        return not self.changed and not self.deleted


def stat_diff(records: Mapping[str, FileRecord], files: Iterable[tuple[str, str | Path]]) -> StatDiff:
    """Compare ``(source, path)`` pairs (every file that should be indexed) with ``records``."""
    diff = StatDiff()
    present: set[str] = set()
    for source, path in files:
        present.add(source)
        rec = records.get(source)
        try:
            st = os.stat(path)
        except OSError:
            diff.changed.append(Path(path))  # vanished or unreadable: the indexer decides
            continue
        if rec is None or not rec.same_stat(st):
            diff.changed.append(Path(path))
    diff.deleted = sorted(set(records) - present)
    return diff


# --- row comparison -----------------------------------------------------------
def row_key(row: Mapping[str, Any]) -> tuple:
    """A stored row's comparable fields (missing or null read as 0 / "")."""
    return tuple(row.get(name) or (0 if name in INT_ROW_FIELDS else "") for name in ROW_FIELDS)


_CHUNK_FIELDS = attrgetter(*ROW_FIELDS)


def chunk_key(chunk: object) -> tuple:
    """The same fields for a chunk the markdown produces now (a ``store.chunker.Chunk``).

    A Chunk's fields are str and int, never None, so they are the key as they are (row_key's
    "missing reads as 0 or ''" changes nothing); a build reads a million of them.
    """
    values = _CHUNK_FIELDS(chunk)
    return values if None not in values else row_key(dict(zip(ROW_FIELDS, values)))


def rows_digest(keys: Iterable[tuple]) -> str:
    """One fingerprint for a file's rows: their :func:`row_key` tuples, in id order (the first field)."""
    ordered = sorted(keys)  # then one encode and one update: a million rows in verify and in a build
    lines = "\n".join(map(repr, ordered)) + "\n" if ordered else ""
    return hashlib.sha256(lines.encode("utf-8", "surrogatepass")).hexdigest()
