"""verify's one pass over the embedding cache (index/cache_scan.py): keys as the cache makes them,
fingerprints that tell identical vectors from changed ones, and a real cache scanned read-only."""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from memdown.index.cache import EmbeddingCache, _split_key
from memdown.index.cache_scan import VectorCheck, scan, split_hashes


def _hashes(n: int) -> list[str]:
    return [hashlib.sha256(f"text {i}".encode()).hexdigest() for i in range(n)]


def test_split_hashes_agrees_with_the_cache_key_and_flags_what_is_not_a_digest() -> None:
    hashes = _hashes(50) + ["not hex" * 9 + "x", "ab" * 31, "é" * 64, "AB" * 32]
    valid, keys, tails = split_hashes(hashes, 3)
    for i, h in enumerate(hashes):
        split = _split_key(h, 3)
        assert bool(valid[i]) == (split is not None), h
        if split is not None:
            assert int(keys[i]) == split[0]
            assert tails[i].tobytes() == split[1]


def test_scan_finds_identical_vectors_and_only_those(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "cache.sqlite")
    hashes = _hashes(300)
    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((300, 8)).astype(np.float32)
    cache.put_many("m", dict(zip(hashes, vectors)))
    cache.put_many("other", {hashes[0]: np.ones(8, np.float32)})
    check = VectorCheck(cache, "m", 8)
    assert check.prints is not None and len(check.prints.keys) == 300
    assert check.prints.identical(hashes, vectors).all()
    changed = vectors.copy()
    changed[7, 2] = np.nextafter(changed[7, 2], np.float32(9))  # one bit
    changed[9, 0] += 1.0
    assert list(np.flatnonzero(~check.prints.identical(hashes, changed))) == [7, 9]
    # a one-bit change is within verify's tolerance; a whole unit is not
    assert list(np.flatnonzero(check.unlike(hashes, changed, np.ones(300, bool)))) == [9]
    unknown = _hashes(301)[300:]
    assert not check.prints.identical(unknown, vectors[:1]).any()


def test_scan_of_a_missing_or_garbage_cache_is_none(tmp_path: Path) -> None:
    assert scan(tmp_path / "absent.sqlite", "m", 8) is None
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"\x00not sqlite" * 100)
    assert scan(garbage, "m", 8) is None
