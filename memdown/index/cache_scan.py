"""One front-to-back pass over the embedding cache for ``memdown verify``: a fingerprint per cached vector.

Looking up a million vectors one key at a time reads pages all over a
1.7 GB file (22 s of CPU at 1.09M rows, most of ``verify``). Reading the cache
once in row order and keeping only (key, fingerprint) costs 16 bytes a row;
a table row whose fingerprint (of its hash's check bytes and its vector's
bytes) equals the cache's holds exactly the cached vector. Every other row is
looked up the ordinary way (``EmbeddingCache.get_many``), with the tolerance
``verify`` allows, so what it catches is unchanged.

Fingerprint: a weighted sum of the row's 32-bit words modulo 2**64 with odd
weights, so a change in any one word always changes it (and damage in
several words collides with odds of about 2**-64).
"""
from __future__ import annotations

import sqlite3
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from .cache import _MIX  # the cache layout's key mixing (one definition, in cache.py)

if TYPE_CHECKING:
    import numpy as np

    from .cache import EmbeddingCache

_SCAN_ROWS = 8192
_TAIL_BYTES = 24  # the check bytes stored beside the 64-bit key


@cache
def _hex_values() -> "np.ndarray":
    """Byte -> its hex digit's value, 255 for any other byte."""
    import numpy as np

    table = np.full(256, 255, dtype=np.uint8)
    for digits, first in ((b"0123456789", 0), (b"abcdef", 10), (b"ABCDEF", 10)):
        table[np.frombuffer(digits, np.uint8)] = np.arange(first, first + len(digits), dtype=np.uint8)
    return table


@cache
def _weights(words: int) -> "np.ndarray":
    import numpy as np

    return np.random.default_rng(13).integers(1, 1 << 62, size=words, dtype=np.uint64) * 2 + 1  # odd


def fingerprints(words: "np.ndarray") -> "np.ndarray":
    """(rows, n) uint32 words -> one uint64 per row (wraps modulo 2**64 by design)."""
    import numpy as np

    return (words.astype(np.uint64) * _weights(words.shape[1])).sum(axis=1, dtype=np.uint64)


def split_hashes(hashes: list[str], model: int) -> tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
    """``cache._split_key`` for many hex SHA-256 digests: (valid, int64 keys, check bytes as (n, 6) uint32)."""
    import numpy as np

    n = len(hashes)
    valid = np.fromiter((isinstance(h, str) and len(h) == 64 for h in hashes), dtype=bool, count=n)
    text = "".join(h if ok else "0" * 64 for h, ok in zip(hashes, valid))
    nibbles = _hex_values()[np.frombuffer(text.encode("ascii", "replace"), dtype=np.uint8).reshape(n, 64)]
    valid &= (nibbles != 255).all(axis=1)
    raw = ((nibbles[:, 0::2] & 15) << 4 | (nibbles[:, 1::2] & 15)).astype(np.uint8)  # (n, 32) bytes
    head = np.ascontiguousarray(raw[:, :8]).view(">u8").ravel().astype(np.uint64)
    keys = (head ^ np.uint64((model * _MIX) & 0xFFFFFFFFFFFFFFFF)).view(np.int64)
    return valid, keys, np.ascontiguousarray(raw[:, 8:]).view("<u4")


class CachedFingerprints:
    """The fingerprints of every vector the cache holds for one model, sorted by key."""

    def __init__(self, model: int, keys: "np.ndarray", prints: "np.ndarray") -> None:
        import numpy as np

        order = np.argsort(keys, kind="stable")
        self.model, self.keys, self.prints = model, keys[order], prints[order]

    def identical(self, hashes: list[str], vectors: "np.ndarray") -> "np.ndarray":
        """Per row: True when the cache holds exactly this float32 vector for this text hash."""
        import numpy as np

        valid, keys, tails = split_hashes(hashes, self.model)
        words = np.hstack([tails, np.ascontiguousarray(vectors, dtype=np.float32).view("<u4")])
        if not len(self.keys):
            return np.zeros(len(hashes), dtype=bool)
        slot = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return valid & (self.keys[slot] == keys) & (self.prints[slot] == fingerprints(words))


def scan(path: Path, model_id: str, dim: int) -> CachedFingerprints | None:
    """Read the cache once (read-only, in row order); None when it cannot be read (verify then looks rows up)."""
    import numpy as np

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return None
    keys: list["np.ndarray"] = []
    prints: list["np.ndarray"] = []
    size = _TAIL_BYTES + 4 * dim
    try:
        found = db.execute("SELECT id FROM models WHERE name = ?", (model_id,)).fetchone()
        if found is None:
            return CachedFingerprints(0, np.zeros(0, np.int64), np.zeros(0, np.uint64))
        cursor = db.execute("SELECT key, tail, vector FROM vectors WHERE model = ?", (found[0],))
        while rows := cursor.fetchmany(_SCAN_ROWS):
            good = [(key, tail + blob) for key, tail, blob in rows
                    if isinstance(tail, bytes) and isinstance(blob, bytes) and len(tail) == _TAIL_BYTES
                    and len(blob) == size - _TAIL_BYTES]
            if good:
                keys.append(np.fromiter((key for key, _ in good), dtype=np.int64, count=len(good)))
                words = np.frombuffer(b"".join(data for _, data in good), dtype="<u4").reshape(len(good), -1)
                prints.append(fingerprints(words))
    except sqlite3.Error:
        return None
    finally:
        db.close()
    if not keys:
        return CachedFingerprints(int(found[0]), np.zeros(0, np.int64), np.zeros(0, np.uint64))
    return CachedFingerprints(int(found[0]), np.concatenate(keys), np.concatenate(prints))


class VectorCheck:
    """Which vectors differ from the embedding cache's for the same text (``memdown verify``).

    Rows byte-identical to the cache are told by fingerprint, from one pass
    over the cache (:func:`scan`); only the others are looked up by key and
    compared with ``np.allclose``'s tolerance.
    """

    def __init__(self, cache: "EmbeddingCache", model_id: str, dim: int) -> None:
        self.lookup = lambda hashes: cache.get_many(model_id, hashes)
        self.prints = scan(cache.path, model_id, dim)  # None: look every row up

    def unlike(self, hashes: list[str], vectors: "np.ndarray", candidates: "np.ndarray") -> "np.ndarray":
        """Per row: True when the cache holds another vector for its hash (only ``candidates`` are checked)."""
        import numpy as np

        rows = np.flatnonzero(candidates)
        if self.prints is not None and len(rows):
            rows = rows[~self.prints.identical([hashes[i] for i in rows], vectors[rows])]
        out = np.zeros(len(hashes), dtype=bool)
        known = self.lookup([hashes[i] for i in rows]) if len(rows) else {}
        dim = vectors.shape[1]
        compared = [i for i in rows if known.get(hashes[i]) is not None and len(known[hashes[i]]) == dim]
        if compared:  # np.allclose(row, cached, atol=1e-4) for all rows at once
            want = np.asarray([known[hashes[i]] for i in compared], dtype=np.float32)
            with np.errstate(all="ignore"):
                close = (np.abs(vectors[compared] - want) <= 1e-4 + 1e-5 * np.abs(want)).all(axis=1)
            out[np.asarray(compared)[~close]] = True
        return out
