"""Embedding cache keyed by (model id, hash of the embedded text).

It lives in the user's data folder, outside the index, so deleting the index
and rebuilding re-embeds nothing that was embedded before. SQLite in WAL mode
lets several processes share it.

It is only a cache: a damaged file (truncated, overwritten, not a database,
a folder in its place) is moved aside and started afresh with a one-line
notice, and a vector that cannot be right (wrong length, not finite) counts
as a miss. Nothing that reads it ever fails because of it.
"""
from __future__ import annotations

import hashlib
import math
import os
import shutil
import sqlite3
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path

from .embedder import Embedder

_BROKEN_SUFFIX = ".damaged"


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
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS embeddings (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))"
            )
            db.execute("SELECT count(*) FROM (SELECT 1 FROM embeddings LIMIT 1)").fetchone()
        except BaseException:
            db.close()
            raise
        st = os.stat(self.path)
        self._identity = (st.st_dev, st.st_ino)
        return db

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
    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        unique = list(dict.fromkeys(hashes))
        db = self._conn()
        if db is None:
            return found
        try:
            for start in range(0, len(unique), 500):
                batch = unique[start : start + 500]
                marks = ",".join("?" * len(batch))
                rows = db.execute(
                    f"SELECT hash, vector FROM embeddings WHERE model = ? AND hash IN ({marks})",
                    [model_id, *batch],
                )
                for key, blob in rows:
                    vector = _vector(blob)
                    if vector is not None:
                        found[key] = vector
        except sqlite3.DatabaseError as exc:
            if not (isinstance(exc, sqlite3.OperationalError) and _busy(exc)):
                self._heal(exc)
            return {}
        return found

    def put_many(self, model_id: str, items: dict[str, Sequence[float]]) -> None:
        if not items:
            return
        rows = [(model_id, key, array("f", vec).tobytes()) for key, vec in items.items()]
        for attempt in (1, 2):
            db = self._conn()
            if db is None:
                return
            try:
                db.execute("BEGIN")
                try:
                    db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)", rows)
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
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
            db.execute("SELECT count(*) FROM embeddings").fetchone()
        finally:
            db.close()
    except (sqlite3.DatabaseError, OSError) as exc:
        return _describe(exc)
    return str(row[0]) if row else "check failed"


def _busy(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def _vector(blob: object) -> list[float] | None:
    """The stored vector, or None when the bytes cannot be one (damage)."""
    if not isinstance(blob, bytes) or not blob or len(blob) % 4:
        return None
    values = array("f", blob).tolist()
    return values if math.isfinite(sum(values)) else None  # a NaN or inf anywhere makes the sum one


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
        hashes = [text_hash(t) for t in texts]
        found = self.cache.get_many(self.model_id, hashes) if self.cache else {}
        if found and self.dim:
            found = {key: vec for key, vec in found.items() if len(vec) == self.dim}  # damaged rows are misses
        missing: dict[str, str] = {}
        for key, text in zip(hashes, texts):
            if key not in found and key not in missing:
                missing[key] = text
        if missing:
            order = sorted(missing, key=lambda k: len(missing[k]))
            vectors = self.inner.embed([missing[k] for k in order])
            self.embedded += len(order)
            fresh = dict(zip(order, vectors))
            if self.cache:
                self.cache.put_many(self.model_id, fresh)
            found.update(fresh)
        return [found[key] for key in hashes]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    def load(self) -> None:
        """Load the wrapped model early if it supports that (fail fast when missing); open the cache."""
        if self.cache is not None:
            self.cache.ensure_open()
        loader = getattr(self.inner, "load", None)
        if loader is not None:
            loader()
