"""The LanceDB table that caches chunks, plus its small JSON sidecars.

Sidecars in the index folder: ``meta.json`` (model id, dimension, schema
version) and ``files.json`` (per source: size, mtime, sha256, chunk count).
The chunk counts let ``open`` notice a silently rolled-back table (a deleted
newest manifest opens an older version without any error).
"""
from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from ..errors import IndexUnavailableError
from ..fsutil import atomic_write_text
from ..paths import PRIVATE_FILE_MODE

SCHEMA_VERSION = 1
TABLE_NAME = "chunks"
# Old table versions stay readable this long after a compaction, so a reader
# that opened the table just before never fails with "Not found".
CLEANUP_AGE = timedelta(minutes=5)
RESULT_COLUMNS = [
    "id", "source", "kind", "heading", "start_line", "end_line", "section_start",
    "section_end", "date", "session", "turn", "transcript", "text",
]


def _lancedb():
    """Import lancedb with its Rust warnings silenced (they would reach the user's terminal)."""
    os.environ.setdefault("LANCEDB_LOG", "error")
    import lancedb

    return lancedb


def sql_literal(value: str) -> str:
    """A SQL string literal; quotes are doubled so user input cannot escape it."""
    if "\x00" in value:
        raise ValueError("NUL byte in a filter value")
    return "'" + value.replace("'", "''") + "'"


def _schema(dim: int):
    import pyarrow as pa

    text_fields = ["id", "source", "kind", "heading"]
    int_fields = ["start_line", "end_line", "section_start", "section_end"]
    more_text = ["date", "session", "turn", "transcript", "text", "fts_text", "embed_hash"]
    return pa.schema(
        [pa.field(n, pa.string()) for n in text_fields]
        + [pa.field(n, pa.int32()) for n in int_fields]
        + [pa.field(n, pa.string()) for n in more_text]
        + [pa.field("vector", pa.list_(pa.float32(), dim))]
    )


@dataclass
class FileRecord:
    size: int
    mtime_ns: int
    sha256: str
    chunks: int

    def to_json(self) -> dict[str, Any]:
        return {"size": self.size, "mtime_ns": self.mtime_ns, "sha256": self.sha256, "chunks": self.chunks}


@dataclass
class IndexMeta:
    model_id: str
    dim: int
    schema_version: int = SCHEMA_VERSION
    fts_config: str = ""
    created: float = field(default_factory=time.time)
    last_indexed: float = 0.0
    merges_since_optimize: int = 0


class ChunkTable:
    """One memory root's index folder: the LanceDB table and its sidecars."""

    def __init__(self, index_dir: Path) -> None:
        self.dir = Path(index_dir)
        self._db = None
        self._table = None
        self.meta: IndexMeta | None = None
        self.files: dict[str, FileRecord] = {}

    # --- sidecars ---------------------------------------------------------
    @property
    def meta_path(self) -> Path:
        return self.dir / "meta.json"

    @property
    def files_path(self) -> Path:
        return self.dir / "files.json"

    def _load_sidecars(self) -> None:
        try:
            meta = json.loads(self.meta_path.read_text())
            self.meta = IndexMeta(**meta)
            files = json.loads(self.files_path.read_text()) if self.files_path.exists() else {}
            self.files = {src: FileRecord(**rec) for src, rec in files.items()}
        except (OSError, ValueError, TypeError) as exc:
            raise IndexUnavailableError(f"index metadata unreadable ({type(exc).__name__})") from None

    def save_sidecars(self) -> None:
        assert self.meta is not None
        atomic_write_text(self.files_path, json.dumps({s: r.to_json() for s, r in sorted(self.files.items())}),
                          mode=PRIVATE_FILE_MODE)
        atomic_write_text(self.meta_path, json.dumps(self.meta.__dict__, indent=1), mode=PRIVATE_FILE_MODE)

    # --- lifecycle --------------------------------------------------------
    def exists(self) -> bool:
        return self.meta_path.exists() and (self.dir / f"{TABLE_NAME}.lance").exists()

    def open(self, *, verify_count: bool = True) -> None:
        """Open an existing index or raise IndexUnavailableError (caller rebuilds)."""
        if not self.exists():
            raise IndexUnavailableError("no index yet")
        self._load_sidecars()
        if self.meta is None or self.meta.schema_version != SCHEMA_VERSION:
            raise IndexUnavailableError("index was built by another memdown version")
        try:
            self._db = _lancedb().connect(self.dir, read_consistency_interval=timedelta(0))
            self._table = self._db.open_table(TABLE_NAME)
            rows = self._table.count_rows()
        except Exception as exc:
            raise IndexUnavailableError(f"index is corrupted ({type(exc).__name__}: {str(exc)[:120]})") from None
        expected = sum(r.chunks for r in self.files.values())
        if verify_count and rows != expected:
            raise IndexUnavailableError(
                f"index holds {rows} chunks but the markdown produced {expected} (damaged or rolled back)"
            )

    def create(self, model_id: str, dim: int, fts_config: str) -> None:
        """Start a fresh, empty index (removing whatever was there)."""
        lancedb = _lancedb()
        if self.dir.exists():
            shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True)
        self._db = lancedb.connect(self.dir, read_consistency_interval=timedelta(0))
        self._table = self._db.create_table(TABLE_NAME, schema=_schema(dim))
        self.meta = IndexMeta(model_id=model_id, dim=dim, fts_config=fts_config)
        self.files = {}
        self.save_sidecars()

    @property
    def table(self):
        if self._table is None:
            raise IndexUnavailableError("index is not open")
        return self._table

    # --- writes -----------------------------------------------------------
    def replace_source(self, source: str, rows: list[dict[str, Any]]) -> None:
        """Make the table hold exactly ``rows`` for ``source``, in one commit."""
        where = f"source = {sql_literal(source)}"
        if not rows:
            self.table.delete(where)
            return
        (
            self.table.merge_insert("id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .when_not_matched_by_source_delete(where)
            .execute(rows)
        )

    def rows_for_source(self, source: str) -> list[dict[str, Any]]:
        return (
            self.table.search()
            .where(f"source = {sql_literal(source)}")
            .select(["id", "start_line", "end_line", "section_start", "section_end", "session", "turn",
                     "transcript", "embed_hash", "vector"])
            .limit(None)
            .to_list()
        )

    def ensure_indexes(self, fts_options: dict[str, Any]) -> None:
        """Create the FTS and scalar indexes (once; later rows fold in on optimize)."""
        from lancedb.index import FTS, BTree

        existing = {idx.name for idx in self.table.list_indices()}
        if "fts_text_idx" not in existing:
            self.table.create_index("fts_text", config=FTS(**fts_options), name="fts_text_idx")
        for column in ("id", "source"):
            if f"{column}_idx" not in existing:
                self.table.create_index(column, config=BTree(), name=f"{column}_idx")

    def optimize(self) -> None:
        self.table.optimize(cleanup_older_than=CLEANUP_AGE)
        if self.meta:
            self.meta.merges_since_optimize = 0

    # --- reads ------------------------------------------------------------
    def count(self) -> int:
        return self.table.count_rows()

    def count_by_kind(self) -> dict[str, int]:
        kinds = self.table.search().select(["kind"]).limit(None).to_arrow().column("kind").to_pylist()
        counts: dict[str, int] = {}
        for kind in kinds:
            counts[kind] = counts.get(kind, 0) + 1
        return dict(sorted(counts.items()))

    def by_id_prefix(self, prefix: str, limit: int = 5) -> list[dict[str, Any]]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return (
            self.table.search()
            .where(f"id LIKE {sql_literal(escaped + '%')}")
            .select(RESULT_COLUMNS)
            .limit(limit)
            .to_list()
        )

    def size_bytes(self) -> int:
        total = 0
        for dirpath, _dirs, files in os.walk(self.dir):
            for name in files:
                try:
                    total += os.path.getsize(os.path.join(dirpath, name))
                except OSError:
                    pass
        return total

