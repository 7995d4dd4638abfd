"""Text first: the part of a full build that leaves vectors to the background filler, and the
filler's state as hooks, searches and index runs see it (services/upkeep/vector_fill.py is the filler).

Standard library only at import time (SessionStart imports this on a hook's path).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ... import fsutil, paths

TYPE_CHECKING = False  # not `import typing` at run time: every hook pays for it
if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from ...index.cache import CachedEmbedder

LOG_NAME = "vector-fill.log"


# --- state, cheap enough for a hook --------------------------------------------------

def pending_vectors(root: Path) -> int:
    """Rows waiting for a vector by ``meta.json`` (0 when complete, or no readable index)."""
    try:
        value = json.loads(fsutil.read_bytes(paths.index_dir(root) / "meta.json")).get("vectors_missing", 0)
    except (OSError, ValueError, AttributeError):
        return 0
    return value if isinstance(value, int) and value > 0 else 0


def lock_path(root: Path) -> Path:
    return paths.lock_file(root, "vector-fill")


def filler_running(root: Path) -> bool:
    from ...fsutil import try_lock

    try:
        fd = try_lock(lock_path(root))
    except OSError:
        return False
    if fd is None:
        return True
    os.close(fd)
    return False


def start_filler(root: Path) -> None:
    from ..capture.spawn import spawn_detached

    spawn_detached(root, ["-m", "memdown.services.upkeep.vector_fill", "--dir", str(root)], LOG_NAME)


def ensure_filler(root: Path) -> bool:
    """Start a filler when vectors are pending and none runs (a killed one resumes); True when started."""
    if pending_vectors(root) and root.is_dir() and not filler_running(root):
        start_filler(root)
        return True
    return False


def progress_line(missing: int, total: int) -> str:
    return (f"vectors: {total - missing:,} of {total:,} chunks embedded, filling newest first; "
            "older entries are matched by full text only")


# --- used by the build ---------------------------------------------------------------

class TextFirst:
    """A full build's model budget: past ``limit`` chunks to embed, the rest waits for the filler.

    Batches are decided as they come (the build streams; nobody knows the total
    up front): a batch whose uncached chunks would take the model past the
    budget, and every batch after it, keeps only the cache's vectors.
    """

    def __init__(self, embedder: CachedEmbedder, limit: int, dim: int) -> None:
        self.embedder, self.limit, self.dim = embedder, limit, dim
        self.model_chunks = 0  # chunks sent to the model so far
        self.deferring = False
        self.missing = 0  # rows written without a vector

    def vectors(self, hashes: list[str], embed_texts: Callable[[], list[str]]) -> tuple[np.ndarray, np.ndarray | None]:
        """The vectors of a batch's rows (by embed hash) and the mask of rows left without one (None: all
        embedded). ``embed_texts()`` gives the texts the model reads, asked for only when it embeds."""
        if self.limit > 0:
            cached, missing = cached_vectors(self.embedder, hashes, self.dim)
            uncached = len({h for h, m in zip(hashes, missing) if m})
            if self.deferring or self.model_chunks + uncached > self.limit:
                self.deferring = True
                self.missing += int(missing.sum())
                return cached, missing if missing.any() else None
            self.model_chunks += uncached
        texts = embed_texts()
        # Shortest first inside the batch: similar lengths share a model batch (less padding).
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = self.embedder.embed_array([texts[i] for i in order], [hashes[i] for i in order])
        if texts:
            vectors = vectors[_inverse(order)]
        return vectors, None


def _inverse(order: list[int]) -> list[int]:
    """The permutation that undoes ``order`` (row i of the result is item i of the input)."""
    inverse = [0] * len(order)
    for position, index in enumerate(order):
        inverse[index] = position
    return inverse


def cached_vectors(embedder: CachedEmbedder, hashes: list[str], dim: int) -> tuple[np.ndarray, np.ndarray]:
    """(vectors, missing): the cache's vectors (zeros where it has none) and the rows it has none for."""
    import numpy as np

    found = embedder.cache.get_many(embedder.model_id, hashes, dim) if embedder.cache else {}
    vectors = np.zeros((len(hashes), dim), dtype=np.float32)
    missing = np.ones(len(hashes), dtype=bool)
    for i, key in enumerate(hashes):
        vector = found.get(key)
        if vector is not None:
            vectors[i] = vector
            missing[i] = False
    return vectors, missing

