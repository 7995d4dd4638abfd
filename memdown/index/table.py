"""The LanceDB table that caches chunks, plus its small JSON sidecars.

Sidecars in the index folder: ``meta.json`` (model id, dimension, schema
version) and ``files.json`` (per source: size, mtime, sha256, chunk count).
The chunk counts and the table version recorded in ``meta.json`` let ``open``
notice a silently rolled-back table (a deleted newest manifest opens an older
version without any error). Sidecars that are not what they must be (``[]``,
garbage, wrong types) make the index unavailable, which callers heal by
rebuilding from the markdown; LanceDB's own errors are turned into one clean
line by :func:`damage_reason` (no Rust paths reach the user).
"""
from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from .. import fsutil
from ..errors import IndexUnavailableError
from ..paths import PRIVATE_FILE_MODE
from .lance_import import import_lancedb  # every import of lancedb goes through it
from .records import ROW_FIELDS, FileRecord, RecordsDamaged, load_records, records_path, save_records

if TYPE_CHECKING:
    from .ann import VectorIndex

# 2: entry_fts (one full-text document per entry beside the chunks); 3: entry_fts taken out again (cost without
# gain, docs/retrieval.md "Session 8"), a new number so an index built with the column rebuilds without it.
SCHEMA_VERSION = 3
TABLE_NAME = "chunks"
# Old table versions stay readable this long after a compaction, so a reader
# that opened the table just before never fails with "Not found".
CLEANUP_AGE = timedelta(minutes=5)
NO_INDEX_YET = "no index yet"  # the reason of a first build (not a rebuild: nothing was lost)
MAX_ID_FILTER = 500  # ids in one delete filter; more and the whole source is rewritten
RESULT_COLUMNS = [
    "id", "source", "kind", "heading", "start_line", "end_line", "section_start",
    "section_end", "date", "session", "turn", "transcript", "text",
]
# Scalar indexes every table gets, by column (each named ``<column>_idx``): BTree for the id and
# source lookups of incremental writes; a bitmap for ``kind`` (a dozen values), which search's
# always-on hidden-kind filter reads instead of every row's kind (docs/scale.md).
SCALAR_INDEXES = {"id": "BTREE", "source": "BTREE", "kind": "BITMAP"}
_SCALAR_INDEX_NAMES = frozenset(f"{column}_idx" for column in SCALAR_INDEXES)


def damage_reason(exc: BaseException) -> str:
    """One clean line for an error raised by LanceDB on damaged files (LanceDB has no classes of its own)."""
    text = str(exc)
    lowered = text.lower()
    if isinstance(exc, (NotADirectoryError, IsADirectoryError)):
        return "a file is where a folder should be"
    if "was not found" in lowered and "table" in lowered:
        return "the table's version history is missing"
    if "not found" in lowered or isinstance(exc, FileNotFoundError):
        return "a table file is missing"
    if any(word in lowered for word in ("fill whole buffer", "eof", "truncat", "out of range", "too small")):
        return "a table file is truncated"
    if any(word in lowered for word in ("corrupt", "invalid", "decode", "protobuf", "utf-8", "checksum")):
        return "a table file holds garbage"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return f"unreadable table files ({type(exc).__name__})"


def sql_literal(value: str) -> str:
    """A SQL string literal; quotes are doubled so user input cannot escape it."""
    if "\x00" in value:
        raise ValueError("NUL byte in a filter value")
    return "'" + value.replace("'", "''") + "'"


def table_schema(dim: int):
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
class IndexMeta:
    model_id: str
    dim: int
    schema_version: int = SCHEMA_VERSION
    fts_config: str = ""
    created: float = field(default_factory=time.time)
    last_indexed: float = 0.0
    merges_since_optimize: int = 0
    table_version: int = 0  # LanceDB version after our last write; lower on open = rolled back
    # Size and mtime of every data and index file at ``table_version``. Lance never
    # rewrites these files, so at that version any difference is damage.
    table_files: dict[str, list[int]] = field(default_factory=dict)
    # Rows written without a vector by a text-first build, not filled in yet (services/upkeep/vector_fill.py).
    # 0: every row has its vector, and a NULL vector is damage.
    vectors_missing: int = 0
    scalar_indexes: list[str] = field(default_factory=list)  # made by ensure_indexes; older indexes lack some

    @classmethod
    def from_json(cls, data: object) -> "IndexMeta":
        if not isinstance(data, dict):
            raise TypeError("meta.json is not an object")
        meta = cls(**data)
        if not isinstance(meta.model_id, str) or not isinstance(meta.dim, int) or meta.dim <= 0:
            raise TypeError("meta.json has wrong types")
        for name in ("schema_version", "merges_since_optimize", "table_version", "vectors_missing"):
            if not isinstance(getattr(meta, name), int):
                raise TypeError(f"meta.json: {name} is not a number")
        if not isinstance(meta.fts_config, str):
            raise TypeError("meta.json: fts_config is not text")
        if not isinstance(meta.table_files, dict) or not all(
            isinstance(v, list) and len(v) == 2 and all(isinstance(n, int) for n in v) for v in meta.table_files.values()
        ):
            raise TypeError("meta.json: table_files has wrong types")
        if not isinstance(meta.scalar_indexes, list) or not all(isinstance(n, str) for n in meta.scalar_indexes):
            raise TypeError("meta.json: scalar_indexes has wrong types")
        return meta


class ChunkTable:
    """One memory root's index folder: the LanceDB table and its sidecars."""

    def __init__(self, index_dir: Path) -> None:
        self.dir = Path(index_dir)
        self._db = None
        self._table = None
        self.meta: IndexMeta | None = None
        self.files: dict[str, FileRecord] = {}
        self._ann: VectorIndex | None = None
        self.files_unchanged = False  # open() found every table file as recorded at our last write

    # --- sidecars ---------------------------------------------------------
    @property
    def meta_path(self) -> Path:
        return self.dir / "meta.json"

    @property
    def files_path(self) -> Path:
        return records_path(self.dir)

    def _load_sidecars(self) -> None:
        try:
            self.meta = IndexMeta.from_json(json.loads(fsutil.read_text(self.meta_path)))
            self.files = load_records(self.dir)
        except (TypeError, RecordsDamaged) as exc:
            raise IndexUnavailableError(f"index metadata damaged ({exc})") from None
        except (OSError, ValueError) as exc:
            raise IndexUnavailableError(f"index metadata unreadable ({type(exc).__name__})") from None

    def save_sidecars(self) -> None:
        assert self.meta is not None
        if self._table is not None:
            self.meta.table_version = int(self._table.version)
            self.meta.table_files = self._table_files()
        save_records(self.dir, self.files)
        fsutil.atomic_write_text(self.meta_path, json.dumps(self.meta.__dict__, indent=1), mode=PRIVATE_FILE_MODE)

    # --- lifecycle --------------------------------------------------------
    def exists(self) -> bool:
        return self.meta_path.exists() and (self.dir / f"{TABLE_NAME}.lance").exists()

    def open(self, *, verify_count: bool = True) -> None:
        """Open an existing index or raise IndexUnavailableError (caller rebuilds)."""
        if not self.exists():
            raise IndexUnavailableError(NO_INDEX_YET)
        self._load_sidecars()
        if self.meta is None or self.meta.schema_version != SCHEMA_VERSION:
            raise IndexUnavailableError("index was built by another memdown version")
        try:
            self._db = import_lancedb().connect(self.dir, read_consistency_interval=timedelta(0))
            self._table = self._db.open_table(TABLE_NAME)
            rows = self._table.count_rows()
            version = int(self._table.version)
        except Exception as exc:  # LanceDB has no exception classes of its own
            self._table = None
            raise IndexUnavailableError(f"index is corrupted ({damage_reason(exc)})") from None
        expected = sum(r.chunks for r in self.files.values())
        if verify_count and version < self.meta.table_version:
            raise IndexUnavailableError(
                f"index rolled back to an older version ({version} < {self.meta.table_version}; a manifest is missing)"
            )
        if verify_count and rows != expected:
            raise IndexUnavailableError(
                f"index holds {rows} chunks but the markdown produced {expected} (damaged or rolled back)"
            )
        self.files_unchanged = False
        if verify_count and version == self.meta.table_version and self.meta.table_files:
            now = self._table_files()
            changed = [name for name, sig in self.meta.table_files.items() if now.get(name) != sig]
            if changed:
                raise IndexUnavailableError(
                    f"index is corrupted ({len(changed)} table file(s) changed or deleted since they were written)"
                )
            # Every file is as our last write left it: reading every id (probe) would find nothing more.
            self.files_unchanged = now == self.meta.table_files

    def unchanged_since_write(self) -> bool:
        """The sidecars load and the table's files are exactly as our last write left them.

        Decided without importing LanceDB (seconds on a loaded machine), so a
        no-op ``memdown index`` need not open the table: damage from a crash,
        a sync or a person changes some file's size or mtime, or the newest
        manifest, and then the caller opens and checks the table fully.
        """
        if not self.exists():
            return False
        try:
            self._load_sidecars()
        except IndexUnavailableError:
            return False
        meta = self.meta
        if meta is None or meta.schema_version != SCHEMA_VERSION or not meta.table_files:
            return False
        if self.files and not _SCALAR_INDEX_NAMES <= set(meta.scalar_indexes):
            return False  # an index from before a scalar index existed: the full pass adds it
        return self._newest_manifest() == meta.table_version and self._table_files() == meta.table_files

    def _newest_manifest(self) -> int | None:
        """The newest version in ``_versions`` (lance's V2 names count down from 2**64-1)."""
        try:
            names = os.listdir(self.dir / f"{TABLE_NAME}.lance" / "_versions")
        except OSError:
            return None
        versions = []
        for name in names:
            stem, _dot, ext = name.partition(".")
            if ext == "manifest" and stem.isdigit():
                number = int(stem)
                versions.append(number if number < 1 << 63 else (1 << 64) - 1 - number)
        return max(versions, default=None)

    def _table_files(self) -> dict[str, list[int]]:
        """(size, mtime) of the table's data, deletion and index files, by path inside the table folder."""
        base = self.dir / f"{TABLE_NAME}.lance"
        found: dict[str, list[int]] = {}
        for sub in ("data", "_indices", "_deletions"):
            for dirpath, _dirs, names in os.walk(base / sub):
                for name in names:
                    path = os.path.join(dirpath, name)
                    try:
                        st = os.stat(path)
                    except OSError:
                        continue
                    found[os.path.relpath(path, base)] = [st.st_size, st.st_mtime_ns]
        return found

    def rolled_back(self) -> bool:
        """The open table is older than our last write recorded (a long-lived reader's cheap check)."""
        if self._table is None or self.meta is None:
            return False
        try:
            return int(self._table.version) < self.meta.table_version
        except Exception:  # LanceDB has no exception classes of its own
            return True

    def probe(self) -> None:
        """Read every row's id (cheap: one small column); damaged data files fail here."""
        try:
            for _batch in self.table.search().select(["id"]).limit(None).to_batches(65536):
                pass
        except Exception as exc:  # LanceDB has no exception classes of its own
            raise IndexUnavailableError(f"index is corrupted ({damage_reason(exc)})") from None

    def create(self, model_id: str, dim: int, fts_config: str) -> None:
        """Start a fresh, empty index (removing whatever was there)."""
        lancedb = import_lancedb()
        if self.dir.is_symlink() or (self.dir.exists() and not self.dir.is_dir()):
            self.dir.unlink()  # a stray file where the index folder belongs (the index is ours to replace)
        elif self.dir.exists():
            shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True)
        self._db = lancedb.connect(self.dir, read_consistency_interval=timedelta(0))
        self._table = self._db.create_table(TABLE_NAME, schema=table_schema(dim))
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
        """Make the table hold exactly ``rows`` for ``source``: delete its rows, then append.

        Both steps find their rows through the ``source`` BTree index, so the
        cost follows the change, not the table (a merge over ``id`` joined the
        whole table: 9 s at 1.2M rows). A crash between the two commits leaves
        fewer rows than ``files.json`` counts, which ``open`` takes as damage
        and rebuilds from the markdown.
        """
        self.table.delete(f"source = {sql_literal(source)}")
        if rows:
            self.table.add(rows)

    def update_source(self, source: str, drop_ids: Collection[str], rows: list[dict[str, Any]]) -> None:
        """Delete ``source``'s rows with ``drop_ids``, then append ``rows`` (its new and changed chunks).

        Appending a section to a long daily file touches only the new chunks.
        """
        if len(drop_ids) > MAX_ID_FILTER:
            raise ValueError("too many ids for one filter; use replace_source")
        if drop_ids:
            ids = ", ".join(sql_literal(i) for i in sorted(drop_ids))
            self.table.delete(f"source = {sql_literal(source)} AND id IN ({ids})")
        if rows:
            self.table.add(rows)

    def rows_for_source(self, source: str, *, vectors: bool = True, ids: Collection[str] | None = None) -> list[dict[str, Any]]:
        """``source``'s rows (only those with ``ids``, at most MAX_ID_FILTER, when given); their
        vectors too unless ``vectors`` is False (a 1,500-chunk file's vectors as lists cost more than the rest)."""
        where = f"source = {sql_literal(source)}"
        if ids is not None:
            if len(ids) > MAX_ID_FILTER:
                raise ValueError("too many ids for one filter")
            where += f" AND id IN ({', '.join(sql_literal(i) for i in sorted(ids))})"
        columns = [*ROW_FIELDS, "vector"] if vectors else list(ROW_FIELDS)
        return self.table.search().where(where).select(columns).limit(None).to_list()

    def ensure_indexes(self, fts_options: dict[str, Any]) -> None:
        """Create the FTS and scalar indexes (once; later rows fold in on optimize).

        An index made before one of SCALAR_INDEXES existed gets it here, on its next index run.
        """
        from lancedb.index import FTS, BTree, Bitmap

        configs = {"BTREE": BTree, "BITMAP": Bitmap}
        existing = {idx.name for idx in self.table.list_indices()}
        if "fts_text_idx" not in existing:
            self.table.create_index("fts_text", config=FTS(**fts_options), name="fts_text_idx")
        for column, kind in SCALAR_INDEXES.items():
            if f"{column}_idx" not in existing:
                self.table.create_index(column, config=configs[kind](), name=f"{column}_idx")
        if self.meta is not None:
            self.meta.scalar_indexes = sorted(_SCALAR_INDEX_NAMES)

    @property
    def ann(self) -> "VectorIndex":
        """The ANN vector index of this table (index/ann.py)."""
        if self._ann is None:
            from .ann import VectorIndex

            self._ann = VectorIndex(self)
        return self._ann

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

