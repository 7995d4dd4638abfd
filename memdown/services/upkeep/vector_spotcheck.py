"""``verify``'s spot check: do the cached vectors belong to their text?

The full scan compares the index's vectors with the embedding cache's, by text hash. If the cache itself
is wrong (its vectors shifted by a row: each hash now holds another text's vector), an index built from it
agrees with it, and only the text can tell. So a small, fixed sample of chunks is embedded again with the
model, bypassing the cache, and compared with what the cache holds for the same text. The sample is spread
over the files (every n-th file, first chunks), so the same memory checks the same chunks each time.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...store.chunker import chunk_markdown
from ...store.reader import UnreadableFile, read_memory_file
from .indexing import chunk_options, memory_files

if TYPE_CHECKING:
    from .memory import Memory

SAMPLE = 24  # chunks embedded again; a shifted cache gets nearly every one wrong
MIN_COSINE = 0.98  # the same model on the same text (int8 weights, another batch): above 0.999 in practice


def _sample(mem: "Memory", files: list[tuple[str, str | Path]]) -> list[tuple[str, str]]:
    """``(embed text, embed hash)`` of up to ``SAMPLE`` chunks, from files spread over the list."""
    options = chunk_options(mem.config)
    max_bytes = int(mem.config["index.max_file_mb"] * 1_000_000)
    step = max(1, len(files) // SAMPLE)
    picked: list[tuple[str, str]] = []
    for source, path in files[::step]:
        try:
            text = read_memory_file(mem.root, Path(path), max_bytes=max_bytes, source=source).text
        except UnreadableFile:
            continue
        for chunk in chunk_markdown(source, text, options)[:2]:
            picked.append((chunk.embed_text, chunk.embed_hash))
        if len(picked) >= SAMPLE:
            break
    return picked[:SAMPLE]


def mismatched(mem: "Memory", files: list[tuple[str, str | Path]]) -> tuple[int, int]:
    """``(cached vectors unlike a fresh embedding of their text, vectors compared)``; (0, 0) when the cache
    or the model is not available (verify reports those on their own)."""
    import numpy as np

    from ...index.embedder import embed_array

    cache = getattr(mem.embedder, "cache", None)
    inner = getattr(mem.embedder, "inner", None)
    if cache is None or inner is None:
        return 0, 0
    sample = _sample(mem, files)
    cached = cache.get_many(mem.embedder.model_id, [h for _t, h in sample], mem.embedder.dim)
    sample = [(t, h) for t, h in sample if h in cached]
    if not sample:
        return 0, 0
    try:
        fresh = embed_array(inner, [t for t, _h in sample])  # the model itself, not the cache
    except Exception:  # no model here (offline, not installed): nothing to compare with
        return 0, 0
    stored = np.stack([cached[h] for _t, h in sample]).astype(np.float32)
    norms = np.linalg.norm(stored, axis=1) * np.linalg.norm(fresh, axis=1)
    with np.errstate(all="ignore"):
        cosine = np.einsum("ij,ij->i", stored, fresh) / np.where(norms == 0, 1, norms)
    return int((cosine < MIN_COSINE).sum()), len(sample)


def spot_check(mem: "Memory", report: Any) -> None:
    """Cached vectors that are not their text's: the cache is reset and the index rebuilt by ``--repair``.

    ``report`` is verify's ``VerifyReport`` (not imported: verify imports this module).
    """
    if report.model_mismatch or report.embedding_cache != "ok" or getattr(mem.embedder, "cache", None) is None:
        return  # another model's vectors, or a cache already found damaged: reported on their own
    wrong, compared = mismatched(mem, memory_files(mem.root))
    if wrong:
        report.embedding_cache = f"{wrong} of {compared} sampled vectors do not match their text"
        report.corrupted.append(f"embedding cache: {report.embedding_cache}; vectors built from it are suspect")
