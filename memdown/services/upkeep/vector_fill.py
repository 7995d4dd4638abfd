"""Vectors filled in after a text-first build, newest first, in the background.

A full build that would send more than ``index.defer_vectors_above`` chunks to
the model (chunks whose vectors are not in the embedding cache) writes those
rows with a NULL vector and returns: full-text and hybrid search work at once
(a row without a vector is matched by full text only). ``meta.json``'s
``vectors_missing`` counts them; while it is above 0 the memory is "filling".

The filler, ``python -m memdown.services.upkeep.vector_fill --dir ROOT``, runs
detached (its own session, output in ``logs/vector-fill.log``), one per memory
(``.vector-fill.lock``, held for its whole life). It embeds the missing rows
newest first (files by their newest entry date), through the embedding cache,
FILL_BATCH at a time. The model runs without any index lock; each batch is
then committed under the index lock in one ``merge_insert`` on ``id`` (one
atomic commit: a kill between batches loses nothing, the next filler resumes)
that only sets a vector where the row still has none and the same text, so a
row changed or replaced by an indexing run meanwhile is never overwritten.
Rows of a file changed since the build are left to the next ``memdown
index``, which embeds them (services/upkeep/indexing.py).

Any index run, search or SessionStart restarts a filler that died
(``text_first.ensure_filler``: a try-lock and a spawn; its pid is in the lock file). The ANN index waits until the
vectors are complete; the filler then builds it if it is due.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ... import paths
from .text_first import LOG_NAME, lock_path

TYPE_CHECKING = False  # not `import typing` at run time: every hook pays for it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    import numpy as np

    from ...config import Config
    from ...index.cache import CachedEmbedder
    from ...index.table import ChunkTable

FILL_BATCH = 512  # rows per committed batch: ~17 s of the packaged model here, ~0.1 s of commit at 100k
OPTIMIZE_EVERY = 64  # batches between compactions (updated rows are folded into the full-text index)


# --- the filler --------------------------------------------------------------------------

class FillResult:
    __slots__ = ("filled", "missing", "skipped", "outcome")

    def __init__(self, filled: int = 0, missing: int = 0, skipped: int = 0, outcome: str = "") -> None:
        self.filled, self.missing, self.skipped, self.outcome = filled, missing, skipped, outcome


def fill_vectors(root: Path, config: Config, embedder: CachedEmbedder, *, batch: int = FILL_BATCH,
                 on_commit: Callable[[int, int], None] | None = None) -> FillResult:
    """Fill every missing vector (one filler per memory); ``on_commit(filled, missing)`` after each batch."""
    from ...fsutil import try_lock

    root = Path(root)
    fd = try_lock(lock_path(root))
    if fd is None:
        return FillResult(outcome="another filler is running")
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())  # who holds it (a person, or a test, may want to know)
    try:
        return _fill(root, config, embedder, batch, on_commit)
    finally:
        os.close(fd)


def _fill(root: Path, config: Config, embedder: CachedEmbedder, batch: int,
          on_commit: Callable[[int, int], None] | None) -> FillResult:
    from ...index.table import ChunkTable
    from .indexing import chunk_options, memory_files

    result = FillResult()
    table = ChunkTable(paths.index_dir(root))
    table.open(verify_count=False)
    meta = table.meta
    assert meta is not None
    if meta.model_id != embedder.model_id:
        result.outcome = f"not filled: the index uses {meta.model_id}, this process {embedder.model_id}"
        return result
    built = meta.created
    todo = _missing_by_source(table)
    where = dict(memory_files(root))
    options = chunk_options(config)
    max_bytes = int(config["index.max_file_mb"] * 1_000_000)
    ids: list[str] = []
    texts: list[str] = []
    hashes: list[str] = []
    commits = 0
    for source, rows in todo:
        for chunk_id, embed_text, embed_hash in _texts(root, source, where.get(source), rows, options, max_bytes,
                                                       result):
            ids.append(chunk_id)
            texts.append(embed_text)
            hashes.append(embed_hash)
            if len(ids) >= batch:
                if not _commit_batch(root, built, ids, embedder.embed_array(texts, hashes), result):
                    return result
                commits += 1
                if on_commit:
                    on_commit(result.filled, result.missing)
                if commits % OPTIMIZE_EVERY == 0:
                    _optimize(root)
                ids, texts, hashes = [], [], []
    if ids and not _commit_batch(root, built, ids, embedder.embed_array(texts, hashes), result):
        return result
    if on_commit and ids:
        on_commit(result.filled, result.missing)
    result.missing = _finish(root, config)
    result.outcome = (f"filled {result.filled} vectors; {result.missing} missing"
                      + (f" ({result.skipped} of changed files, left to the next index run)" if result.skipped else ""))
    return result


def _missing_by_source(table: ChunkTable) -> list[tuple[str, dict[str, str]]]:
    """``(source, {id: embed_hash})`` of the rows without a vector, the file with the newest entry first."""
    found = (table.table.search().where("vector IS NULL").select(["id", "source", "date", "embed_hash"])
             .limit(None).to_arrow())
    by_source: dict[str, dict[str, str]] = {}
    newest: dict[str, str] = {}
    for chunk_id, source, date, embed_hash in zip(*(found.column(n).to_pylist()
                                                    for n in ("id", "source", "date", "embed_hash"))):
        by_source.setdefault(source, {})[chunk_id] = embed_hash
        if (date or "") > newest.get(source, ""):
            newest[source] = date
    order = sorted(by_source, key=lambda s: (newest.get(s, ""), s), reverse=True)
    return [(source, by_source[source]) for source in order]


def _texts(root: Path, source: str, path: Any, rows: dict[str, str], options: Any, max_bytes: int,
           result: FillResult):
    """``(id, embed_text, embed_hash)`` of ``rows`` from the file as it is now (the table keeps no embed text)."""
    from ...store.chunker import chunk_markdown
    from ...store.reader import UnreadableFile, read_memory_file

    chunks = []
    if path is not None:
        try:
            chunks = chunk_markdown(source, read_memory_file(root, Path(path), max_bytes=max_bytes).text, options)
        except UnreadableFile:
            chunks = []
    matched = 0
    for chunk in chunks:
        if rows.get(chunk.id) == chunk.embed_hash:
            matched += 1
            yield chunk.id, chunk.embed_text, chunk.embed_hash
    result.skipped += len(rows) - matched  # the file changed (or went): the next index run embeds it


def _commit_batch(root: Path, built: float, ids: list[str], vectors: np.ndarray, result: FillResult) -> bool:
    """Give ``ids`` their vectors in one commit under the index lock; False when the index was rebuilt."""
    import pyarrow as pa

    from ...fsutil import file_lock
    from ...index.table import ChunkTable, sql_literal

    by_id = dict(zip(ids, range(len(ids))))
    with file_lock(paths.lock_file(root, "index"), timeout=120):
        table = ChunkTable(paths.index_dir(root))
        table.open()  # counts and table files checked: a damaged index is left to the next index run
        meta = table.meta
        assert meta is not None
        if meta.created != built:
            result.outcome = "the index was rebuilt meanwhile; the next index run starts a new filler"
            return False
        rows = (table.table.search().where(f"id IN ({', '.join(sql_literal(i) for i in ids)}) AND vector IS NULL")
                .limit(None).to_arrow())
        if rows.num_rows:
            order = [by_id[i] for i in rows.column("id").to_pylist()]
            flat = pa.array(vectors[order].reshape(-1), pa.float32())
            index = rows.schema.get_field_index("vector")
            rows = rows.set_column(index, rows.schema.field(index),
                                   pa.FixedSizeListArray.from_arrays(flat, meta.dim))
            done = (table.table.merge_insert("id")
                    .when_matched_update_all(where="target.vector IS NULL AND target.embed_hash = source.embed_hash")
                    .execute(rows))
            updated = int(done.num_updated_rows)
            result.filled += updated
            meta.vectors_missing = max(0, meta.vectors_missing - updated)
            table.save_sidecars()
        result.missing = meta.vectors_missing
    return True


def _optimize(root: Path) -> None:
    """Compact and fold the updated rows into the full-text and scalar indexes (under the index lock)."""
    from ...fsutil import file_lock
    from ...index.table import ChunkTable

    with file_lock(paths.lock_file(root, "index"), timeout=120):
        table = ChunkTable(paths.index_dir(root))
        table.open()
        table.optimize()
        table.save_sidecars()


def _finish(root: Path, config: Config) -> int:
    """Recount what is still missing, compact, and build the ANN index once the vectors are complete."""
    from ...fsutil import file_lock
    from ...index.table import ChunkTable
    from .vector_index import build_vector_index

    with file_lock(paths.lock_file(root, "index"), timeout=120):
        table = ChunkTable(paths.index_dir(root))
        table.open()
        assert table.meta is not None
        table.meta.vectors_missing = table.table.count_rows("vector IS NULL")
        table.optimize()
        table.save_sidecars()
        missing = table.meta.vectors_missing
    min_rows = config["index.ann_min_rows"]
    if not missing and min_rows > 0:
        build_vector_index(root, min_rows)  # this process is already in the background
    return missing


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m memdown.services.upkeep.vector_fill")
    parser.add_argument("--dir", required=True, type=Path)
    args = parser.parse_args(argv)
    from ...config import load_config
    from ...errors import MemdownError
    from ...index.cache import EmbeddingCache
    from ...index.embedder import embedder_from_config
    from .neighbours import index_embedder

    root = args.dir
    from ...logfiles import log_to_file

    log_to_file(paths.logs_dir(root) / LOG_NAME)  # rotated by size; stdout (started appended to it) follows
    started = time.perf_counter()

    def log(line: str) -> None:
        print(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} vector fill: {line}", flush=True)

    try:
        config = load_config(root)
        embedder = index_embedder(config, embedder_from_config(config),
                                  EmbeddingCache(paths.embedding_cache_file(), on_notice=log))
        embedder.load()
        batch = int(os.environ.get("MEMDOWN_VECTOR_FILL_BATCH") or FILL_BATCH)  # tests and tuning
        result = fill_vectors(root, config, embedder, batch=max(1, batch),
                              on_commit=lambda filled, missing: log(f"{filled} filled, {missing} missing"))
        outcome = result.outcome
    except (MemdownError, RuntimeError, OSError, ValueError) as exc:
        outcome = f"failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    log(f"{outcome} ({time.perf_counter() - started:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
