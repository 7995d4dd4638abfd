"""Embedding cache keyed by (model id, hash of the embedded text).

It lives in the user's data folder, outside the index, so deleting the index
and rebuilding re-embeds nothing that was embedded before. SQLite in WAL mode
lets several processes share it.

Layout (``vectors``): the SHA-256 of the text (the chunk's ``embed_hash``) is
split into a 64-bit integer key (indexed) and a 24-byte check, the model is a
small integer (``models``), and the vector is float32 bytes, on 16 KB pages:
about 1.7 KB a row for 384 dimensions. Rows of the
first layout (``embeddings``: hex text keys, model names on every row) are
still read on a miss, so an existing cache keeps working.

It is only a cache: a damaged file (truncated, overwritten, not a database,
a folder in its place) is moved aside and started afresh with a one-line
notice, and a vector that cannot be right (wrong length, not finite) counts
as a miss. Nothing that reads it ever fails because of it.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .embedder import Embedder, embed_array

if TYPE_CHECKING:
    import numpy as np

_BROKEN_SUFFIX = ".damaged"
_LOOKUP_BATCH = 500  # SQLite's host-parameter limit is far above; big IN lists plan badly


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _describe(exc: BaseException) -> str:
    """One clean line for a SQLite or file error (no paths)."""
    if isinstance(exc, sqlite3.DatabaseError):
        return " ".join(str(exc).split())[:80] or type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return type(exc).__name__


class EmbeddingCache:
    def __init__(self, path: Path, *, on_notice: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.on_notice = on_notice
        self._db: sqlite3.Connection | None = None
        self._disabled = False  # could not even start a fresh cache: run without one
        self._identity: tuple[int, int] | None = None  # (device, inode) of the file we opened
        self._models: dict[str, int] = {}  # model id -> its number in ``models``
        self._legacy = False  # the first layout's ``embeddings`` table is present

    # --- opening and healing ------------------------------------------------
    def _notice(self, text: str) -> None:
        if self.on_notice is not None:
            self.on_notice(text)

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _check_header(self.path)
        # The daemon uses one cache from several threads, always under its own lock.
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            # 16 KB pages hold ten 384-d rows; at SQLite's 4 KB two fit, so a quarter of each page
            # was empty. Only a new (empty) file takes it, and it must come before WAL mode.
            db.execute("PRAGMA page_size=16384")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("CREATE TABLE IF NOT EXISTS models (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL)")
            # Rows are appended in rowid order (full pages); the hashed key has its own small index.
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (key INTEGER NOT NULL, model INTEGER NOT NULL,"
                " tail BLOB NOT NULL, vector BLOB NOT NULL)"
            )
            db.execute("CREATE UNIQUE INDEX IF NOT EXISTS vectors_key ON vectors (key)")
            db.execute("SELECT count(*) FROM (SELECT 1 FROM vectors LIMIT 1)").fetchone()
            self._legacy = db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'embeddings'"
            ).fetchone() is not None
        except BaseException:
            db.close()
            raise
        self._models = {}
        st = os.stat(self.path)
        self._identity = (st.st_dev, st.st_ino)
        return db

    def _model_number(self, db: sqlite3.Connection, model_id: str, *, create: bool) -> int | None:
        number = self._models.get(model_id)
        if number is None:
            if create:
                db.execute("INSERT OR IGNORE INTO models (name) VALUES (?)", (model_id,))
            row = db.execute("SELECT id FROM models WHERE name = ?", (model_id,)).fetchone()
            if row is None:
                return None
            number = self._models[model_id] = int(row[0])
        return number

    def ensure_open(self) -> None:
        """Open now (healing a damaged file), rather than at the first lookup."""
        self._conn()

    def revalidate(self) -> None:
        """For long-lived processes: notice a cache replaced, removed or truncated under us."""
        if self._db is None:
            return
        try:
            st = os.stat(self.path)
            replaced = (st.st_dev, st.st_ino) != self._identity
            _check_header(self.path)
        except (OSError, sqlite3.DatabaseError):
            replaced = True
        if replaced:
            self.close()
            self._conn()

    def _conn(self) -> sqlite3.Connection | None:
        if self._db is None and not self._disabled:
            try:
                self._db = self._connect()
            except sqlite3.OperationalError as exc:
                if _busy(exc):
                    return None  # another process holds it for now: work without it this time
                self._heal(exc)
            except (sqlite3.DatabaseError, OSError) as exc:
                self._heal(exc)
        return self._db

    def _heal(self, exc: BaseException) -> None:
        """Move the damaged cache aside and start an empty one (or run without a cache)."""
        self.close()
        try:
            self._move_aside()
            self._db = self._connect()
        except (sqlite3.DatabaseError, OSError) as again:
            self._disabled = True
            self._notice(f"embedding cache unusable ({_describe(again)}); running without it")
            return
        self._notice(f"embedding cache was damaged ({_describe(exc)}); started a new one")

    def _move_aside(self) -> None:
        """Keep one damaged copy (for a bug report), never more."""
        target = self.path.with_name(self.path.name + _BROKEN_SUFFIX)
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif os.path.lexists(target):
            os.unlink(target)
        for suffix in ("-wal", "-shm", "-journal"):
            try:
                os.unlink(f"{self.path}{suffix}")
            except FileNotFoundError:
                pass
        if os.path.lexists(self.path):
            os.replace(self.path, target)

    def check(self) -> str | None:
        """A full integrity check (``memdown verify``): None if sound, else one line why not."""
        if not os.path.lexists(self.path):
            return None
        try:
            _check_header(self.path)
        except (sqlite3.DatabaseError, OSError) as exc:
            return _describe(exc)
        result = _quick_check(self.path)
        return None if result == "ok" else result[:80]

    def reset(self, why: str = "repair") -> None:
        """Start the cache afresh (``memdown verify --repair``)."""
        self.close()
        self._disabled = False
        self._move_aside()
        self._db = self._connect()

    # --- reads and writes -----------------------------------------------------
    def get_many(self, model_id: str, hashes: Sequence[str], dim: int = 0) -> dict[str, "np.ndarray"]:
        """Cached float32 vectors by text hash; damaged rows (wrong length, not finite) are left out."""
        found: dict[str, np.ndarray] = {}
        db = self._conn()
        if db is None:
            return found
        wanted: dict[int, tuple[str, bytes]] = {}
        try:
            model = self._model_number(db, model_id, create=False)
            for key in hashes if model is not None else ():
                split = _split_key(key, model)
                if split is not None:
                    wanted[split[0]] = (key, split[1])
            ids, hits = list(wanted), []
            for start in range(0, len(ids), _LOOKUP_BATCH):
                batch = ids[start : start + _LOOKUP_BATCH]
                rows = db.execute(
                    f"SELECT key, model, tail, vector FROM vectors WHERE key IN ({','.join('?' * len(batch))})", batch
                )
                for row_id, row_model, tail, blob in rows:
                    key, want_tail = wanted[row_id]
                    if row_model == model and tail == want_tail:
                        hits.append((key, blob))
            found.update(_vectors(hits, dim))
            if self._legacy and len(found) < len(hashes):
                self._get_legacy(db, model_id, [k for k in dict.fromkeys(hashes) if k not in found], dim, found)
        except sqlite3.DatabaseError as exc:
            if not (isinstance(exc, sqlite3.OperationalError) and _busy(exc)):
                self._heal(exc)
            return {}
        return found

    def _get_legacy(self, db: sqlite3.Connection, model_id: str, keys: list[str], dim: int,
                    found: dict[str, "np.ndarray"]) -> None:
        """Misses looked up in the first layout's table (hex keys), which older memdown versions filled."""
        for start in range(0, len(keys), _LOOKUP_BATCH):
            batch = keys[start : start + _LOOKUP_BATCH]
            rows = db.execute(
                f"SELECT hash, vector FROM embeddings WHERE model = ? AND hash IN ({','.join('?' * len(batch))})",
                [model_id, *batch],
            )
            found.update(_vectors(list(rows), dim))

    def put_many(self, model_id: str, items: dict[str, Sequence[float]]) -> None:
        """Store vectors by text hash, all in one transaction."""
        if not items:
            return
        import numpy as np

        for attempt in (1, 2):
            db = self._conn()
            if db is None:
                return
            try:
                db.execute("BEGIN")
                try:
                    model = self._model_number(db, model_id, create=True)
                    rows = []
                    for key, vec in items.items():
                        split = _split_key(key, model)
                        if split is not None:
                            rows.append((split[0], model, split[1], np.asarray(vec, dtype=np.float32).tobytes()))
                    db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    self._models = {}  # a rolled-back model number must not be reused
                    raise
                return
            except sqlite3.DatabaseError as exc:
                if attempt == 2 or (isinstance(exc, sqlite3.OperationalError) and _busy(exc)):
                    return  # a cache that will not take writes: the vectors are still returned
                self._heal(exc)

    def close(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
            self._db = None


def _check_header(path: Path) -> None:
    """Refuse a file that is not SQLite, or shorter than its header says (truncated).

    SQLite itself would only fail once it reads a missing page, maybe much later.
    """
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
            size = os.fstat(handle.fileno()).st_size
    except FileNotFoundError:
        return
    if not header:
        return  # an empty file: SQLite makes it a database
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        raise sqlite3.DatabaseError("file is not a database")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if pages and size < pages * page_size and _quick_check(path) != "ok":
        # (A checkpoint in another process can briefly look like this; the check tells them apart.)
        raise sqlite3.DatabaseError("database file is truncated")


def _quick_check(path: Path) -> str:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:
            row = db.execute("PRAGMA quick_check").fetchone()
            db.execute("SELECT count(*) FROM vectors").fetchone()
        finally:
            db.close()
    except (sqlite3.DatabaseError, OSError) as exc:
        return _describe(exc)
    return str(row[0]) if row else "check failed"


def _busy(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


_MIX = 0x9E3779B97F4A7C15  # odd: multiplying by it spreads small model numbers over 64 bits


def _split_key(key: str, model: int) -> tuple[int, bytes] | None:
    """A SHA-256 hex digest as (signed 64-bit row id, 24-byte check) for one model; None for anything else.

    The row id mixes in the model's number, so each model's vector of a text has its own row.
    """
    try:
        raw = bytes.fromhex(key)
    except (TypeError, ValueError):
        return None
    if len(raw) != 32:
        return None
    row_id = (int.from_bytes(raw[:8], "big") ^ (model * _MIX)) & 0xFFFFFFFFFFFFFFFF
    return row_id - (1 << 64) if row_id >= 1 << 63 else row_id, raw[8:]


def _vectors(hits: list[tuple[str, object]], dim: int = 0) -> dict[str, "np.ndarray"]:
    """The stored vectors by key, as one array per blob length (``verify`` reads a million);
    bytes that cannot be a vector (wrong length, not finite: damage) are left out."""
    import numpy as np

    by_size: dict[int, list[tuple[str, bytes]]] = {}
    for key, blob in hits:
        if isinstance(blob, bytes) and blob and not len(blob) % 4 and (not dim or len(blob) == 4 * dim):
            by_size.setdefault(len(blob), []).append((key, blob))
    found: dict[str, np.ndarray] = {}
    for size, items in by_size.items():
        matrix = np.frombuffer(b"".join(blob for _key, blob in items), dtype=np.float32).reshape(-1, size // 4)
        with np.errstate(all="ignore"):
            finite = np.isfinite(matrix.sum(axis=1, dtype=np.float64))  # a NaN or inf anywhere makes the sum one
        found.update((key, matrix[i]) for i, (key, _blob) in enumerate(items) if finite[i])
    return found


class CachedEmbedder:
    """Wraps an Embedder: cache hits are free; misses are embedded shortest first.

    Sorting by length keeps each batch's padding small, which is most of the
    speed-up on a 2-core machine.
    """

    def __init__(self, inner: Embedder, cache: EmbeddingCache | None) -> None:
        self.inner = inner
        self.cache = cache
        self.embedded = 0  # texts actually sent to the model

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_array(self, texts: Sequence[str], keys: Sequence[str] | None = None) -> "np.ndarray":
        """float32 vectors, one row per text; ``keys`` are the texts' hashes when the caller has them."""
        import numpy as np

        hashes = list(keys) if keys is not None else [text_hash(t) for t in texts]
        found = self.cache.get_many(self.model_id, hashes, self.dim) if self.cache else {}
        missing: dict[str, str] = {}
        for key, text in zip(hashes, texts):
            if key not in found and key not in missing:
                missing[key] = text
        if missing:
            order = sorted(missing, key=lambda k: len(missing[k]))
            vectors = embed_array(self.inner, [missing[k] for k in order])
            self.embedded += len(order)
            fresh = dict(zip(order, vectors))
            if self.cache:
                self.cache.put_many(self.model_id, fresh)
            found.update(fresh)
        if not hashes:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[key] for key in hashes]).astype(np.float32, copy=False)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    def load(self) -> None:
        """Load the wrapped model early if it supports that (fail fast when missing); open the cache."""
        if self.cache is not None:
            self.cache.ensure_open()
        loader = getattr(self.inner, "load", None)
        if loader is not None:
            loader()
