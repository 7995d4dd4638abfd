"""Embedding cache keyed by (model id, hash of the embedded text).

It lives in the user's data folder, outside the index, so deleting the index
and rebuilding re-embeds nothing that was embedded before. SQLite in WAL mode
lets several processes share it.
"""
from __future__ import annotations

import hashlib
import sqlite3
from array import array
from collections.abc import Sequence
from pathlib import Path

from .embedder import Embedder


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # The daemon uses one cache from several threads, always under its own lock.
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS embeddings (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))"
        )

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 500):
            batch = unique[start : start + 500]
            marks = ",".join("?" * len(batch))
            rows = self._db.execute(
                f"SELECT hash, vector FROM embeddings WHERE model = ? AND hash IN ({marks})",
                [model_id, *batch],
            )
            for key, blob in rows:
                found[key] = array("f", blob).tolist()
        return found

    def put_many(self, model_id: str, items: dict[str, Sequence[float]]) -> None:
        if not items:
            return
        self._db.execute("BEGIN")
        try:
            self._db.executemany(
                "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                [(model_id, key, array("f", vec).tobytes()) for key, vec in items.items()],
            )
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._db.close()


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
        """Load the wrapped model early if it supports that (fail fast when missing)."""
        loader = getattr(self.inner, "load", None)
        if loader is not None:
            loader()
