"""Chunking a whole memory on every core: what a full build's indexer calls.

markdown-it's parse is pure Python, so one process chunks on one core. When a
build has enough markdown to pay for starting workers (``POOL_MIN_BYTES``),
files are read and chunked in a process pool, a bounded window of groups ahead
of the indexer, and handed back in the indexer's order.

The indexer still reads every file itself (its digest, size limit and warnings
are the rules users see), and takes a worker's chunks only when they came from
the same bytes (same sha256). A file edited between the two reads, a file a
worker could not read or chunk, or a pool that died: the indexer chunks that
file itself, exactly as without a pool, so errors surface as they always did.
"""
from __future__ import annotations

import hashlib
import os
import sys
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .chunker import Chunk, ChunkOptions, chunk_markdown
from .reader import read_memory_file

# Below this much markdown the workers' start (a fresh interpreter importing the
# chunker, ~0.3 s) costs more than the second core saves.
POOL_MIN_BYTES = 4_000_000
GROUP_BYTES = 256_000  # markdown per task: large enough that pickling is a small share
AHEAD_PER_WORKER = 3  # tasks in flight per worker: bounds the memory held ahead of the indexer
_MAIN_SWAP = threading.Lock()


@dataclass
class Chunked:
    source: str
    digest: str  # sha256 of the bytes the chunks came from; "" when the worker failed
    chunks: list[Chunk] | None  # None: sent as ``prepared`` instead, or failed (digest "": the indexer chunks it)
    prepared: Any = None  # ``prepare(chunks)``, sent instead of the chunks, when the caller gave a prepare


# What a caller may have the workers make of a file's chunks, sent back instead of them (the indexer's
# table rows: index/rows.prepare_rows). A module-level function: spawn pickles it by name.
Prepare = Callable[[list[Chunk]], Any]


def chunk_group(root: str, items: Sequence[tuple[str, str]], options: ChunkOptions, max_bytes: int,
                prepare: Prepare | None = None) -> list[Chunked]:
    """Read and chunk ``(source, path)`` items (in a worker, or here when there is no pool)."""
    out: list[Chunked] = []
    for source, path in items:
        try:
            mfile = read_memory_file(Path(root), Path(path), max_bytes=max_bytes)
            chunks = chunk_markdown(source, mfile.text, options)
            for chunk in chunks:
                chunk.embed_hash  # noqa: B018 -- computed (and cached) here, off the indexer's core
            digest = hashlib.sha256(mfile.raw_bytes).hexdigest()
            if prepare is None:
                out.append(Chunked(source, digest, chunks))
            else:
                out.append(Chunked(source, digest, None, prepare(chunks)))
        except Exception:  # the indexer reads and chunks it again and reports what it finds
            out.append(Chunked(source, "", None))
    return out


def _groups(items: Sequence[tuple[str, str]], sizes: Sequence[int]) -> Iterator[list[tuple[str, str]]]:
    group: list[tuple[str, str]] = []
    size = 0
    for item, item_size in zip(items, sizes):
        group.append(item)
        size += item_size
        if size >= GROUP_BYTES:
            yield group
            group, size = [], 0
    if group:
        yield group


def _sizes(items: Sequence[tuple[str, str]]) -> list[int]:
    sizes = []
    for _source, path in items:
        try:
            sizes.append(os.stat(path).st_size)
        except OSError:
            sizes.append(0)
    return sizes


def pool_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def chunk_files(root: str | Path, items: Sequence[tuple[str, str | Path]], options: ChunkOptions, *, max_bytes: int,
                workers: int | None = None, min_bytes: int | None = None) -> Iterator[Chunked]:
    """One :class:`Chunked` per ``(source, path)``, in order; in worker processes when worth it."""
    groups, workers = _plan(items, workers, min_bytes)
    if workers < 2:
        for group in groups:
            yield from chunk_group(str(root), group, options, max_bytes)
        return
    yield from _pooled(str(root), groups, options, max_bytes, workers)


def _plan(items: Sequence[tuple[str, str | Path]], workers: int | None,
          min_bytes: int | None) -> tuple[list[list[tuple[str, str]]], int]:
    """The groups of files per task, and the workers to use (1: no pool, too little markdown or one core)."""
    listed = [(source, str(path)) for source, path in items]
    sizes = _sizes(listed)
    workers = workers or pool_workers()
    enough = sum(sizes) >= (POOL_MIN_BYTES if min_bytes is None else min_bytes)
    return list(_groups(listed, sizes)), (workers if enough else 1)


@contextmanager
def _without_main_module() -> Iterator[None]:
    """spawn runs the caller's ``__main__`` file again in each new worker, so a script without an
    ``if __name__ == "__main__":`` guard would append its entries or index again there. Workers are
    started while ``__main__`` is an empty module: they import memdown's chunker and nothing else."""
    with _MAIN_SWAP:  # two threads starting pools must not save each other's stand-in as the real one
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            sys.modules["__main__"] = main


def _pooled(root: str, groups: list[list[tuple[str, str]]], options: ChunkOptions, max_bytes: int,
            workers: int, prepare: Prepare | None = None) -> Iterator[Chunked]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # spawn, not fork: the indexer holds LanceDB's threads, which a forked child must not inherit.
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    pending: list[tuple[list[tuple[str, str]], Future]] = []
    broken = finished = False
    try:
        for n, group in enumerate(groups):
            if not broken:
                try:
                    with _without_main_module():  # a submit may start a worker
                        pending.append((group, pool.submit(chunk_group, root, group, options, max_bytes, prepare)))
                except Exception:  # the pool is broken: the indexer chunks the rest itself
                    broken = True
            if broken:
                pending.append((group, _failed(group)))
            while pending and (len(pending) >= workers * AHEAD_PER_WORKER or n == len(groups) - 1):
                group_done, future = pending.pop(0)
                try:
                    yield from future.result()
                except Exception:  # a worker died (killed, out of memory): fall back for its files
                    yield from (Chunked(source, "", None) for source, _path in group_done)
        finished = True
    finally:  # all consumed: the idle workers exit at once; abandoned early: do not wait for their work
        pool.shutdown(wait=finished, cancel_futures=not finished)


def _failed(group: list[tuple[str, str]]) -> Future:
    future: Future = Future()
    future.set_result([Chunked(source, "", None) for source, _path in group])
    return future


class ChunkAhead:
    """The indexer's chunking call: ``chunks(source, text, digest)``, served from the pool when it can be.

    ``files`` are the ``(source, path)`` pairs the indexer will go through, in its
    order (empty for an incremental pass: it chunks only what changed, here).
    Files it skips are passed over; the pool stops with this object. ``prepare``
    runs in the workers on each file's chunks, and :meth:`chunked` hands its result over instead.
    """

    def __init__(self, root: str | Path, files: Sequence[tuple[str, str | Path]], options: ChunkOptions, *,
                 max_bytes: int, min_bytes: int | None = None, prepare: Prepare | None = None) -> None:
        self.options = options
        self._ahead: set[str] = set()
        self._results: Iterator[Chunked] | None = None
        groups, workers = _plan(files, None, min_bytes) if files else ([], 1)
        if workers > 1:  # a small build chunks here: no second read of each file, no pool to start
            self._ahead = {source for source, _path in files}
            self._results = _pooled(str(root), groups, options, max_bytes, workers, prepare)

    def chunked(self, source: str, text: str, digest: str) -> tuple[list[Chunk] | None, Any]:
        """``(chunks, None)`` chunked here or by a worker without ``prepare``; ``(None, prepared)``
        from a worker with one. A worker's result counts only when it came from these same bytes."""
        if self._results is not None and source in self._ahead:
            for done in self._results:
                if done.source == source:
                    if done.digest == digest and (done.chunks is not None or done.prepared is not None):
                        return done.chunks, done.prepared
                    break
        return chunk_markdown(source, text, self.options), None

    def chunks(self, source: str, text: str, digest: str) -> list[Chunk]:
        """The chunks (from a worker only when this object has no ``prepare``)."""
        chunks, _prepared = self.chunked(source, text, digest)
        return chunks if chunks is not None else chunk_markdown(source, text, self.options)
