"""Chunking throughput: the per-chunk CPU work of a build, single process and pooled.

    python bench/bench_chunking.py --root /work/bench-scale-100k/100000/mem
    python bench/bench_chunking.py --root bench/retrieval/corpus --repeat 3     # small, anywhere

``--root`` is a memory root (any folder of markdown); by default the 100k memory of
``bench_scale.py`` under ``$MEMDOWN_BENCH_SCALE_DIR`` (else bench/.work/scale), else
the retrieval corpus. Files are read once up front (not timed). Figures, each the
best of ``--repeat`` runs:

- ``chunk``: ``chunk_markdown`` over every file in this process (CPU and wall);
- ``parse``: of which the block parse alone (``parse_markdown``: the daily-log line reader,
  store/fastblocks.py, with markdown-it for files outside its subset);
- ``rows``: ``embed_hash`` + ``fts_text`` + ``arrow_rows`` for those chunks (zero vectors);
- ``pooled``: ``chunk_files`` (what a full build uses: reading and chunking in a
  process pool), wall, and CPU of this process plus its workers.

chunks/s = chunks / seconds. CPU figures are what a loaded machine moves least.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memdown.store import chunker  # noqa: E402
from memdown.store.reader import read_memory_file, walk_markdown  # noqa: E402


def _default_root() -> Path:
    base = Path(os.environ.get("MEMDOWN_BENCH_SCALE_DIR") or REPO / "bench" / ".work" / "scale")
    built = base / "100000" / "mem"
    return built if built.is_dir() else REPO / "bench" / "retrieval" / "corpus"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(fn) -> tuple[float, float, object]:
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, out


def _line(name: str, chunks: int, cpu: float, wall: float) -> None:
    print(f"{name:8s} {chunks:>9,} chunks  CPU {cpu:7.2f} s = {chunks / max(cpu, 1e-9):>8,.0f} chunks/s   "
          f"wall {wall:7.2f} s = {chunks / max(wall, 1e-9):>8,.0f} chunks/s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--limit", type=int, default=0, help="only the first N files")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--workers", type=int, default=0, help="pool size (default: one per core)")
    args = ap.parse_args()
    root = (args.root or _default_root()).resolve()
    files = [(rel, path) for path, rel, _link in walk_markdown(root)]
    files = files[: args.limit] if args.limit else files
    texts = [(rel, read_memory_file(root, Path(path), max_bytes=10**9).text) for rel, path in files]
    size = sum(len(t) for _, t in texts)
    print(f"{root}: {len(files)} files, {size / 1e6:.1f} M characters, chunker version {chunker.CHUNKER_VERSION}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", flush=True)
    options = chunker.ChunkOptions()

    def chunk_all() -> list:
        return [c for rel, text in texts for c in chunker.chunk_markdown(rel, text, options)]

    best: dict[str, tuple[float, float]] = {}
    chunks: list = []
    for _ in range(args.repeat):
        cpu, wall, chunks = _timed(chunk_all)
        best["chunk"] = min(best.get("chunk", (cpu, wall)), (cpu, wall))
        cpu, wall, _ = _timed(lambda: [chunker.parse_markdown(text) for _, text in texts])
        best["parse"] = min(best.get("parse", (cpu, wall)), (cpu, wall))
    n = len(chunks)
    _line("chunk", n, *best["chunk"])
    _line("parse", n, *best["parse"])

    import numpy as np

    from memdown.index.rows import arrow_rows

    def rows() -> None:
        for start in range(0, n, 4096):
            batch = chunks[start : start + 4096]
            [c.embed_hash for c in batch]
            arrow_rows(batch, np.zeros((len(batch), 384), np.float32), 384)

    for _ in range(args.repeat):
        for c in chunks:  # a fresh chunk each run: a hash cached on the chunk is not free
            c.__dict__.pop("embed_hash", None)
        cpu, wall, _ = _timed(rows)
        best["rows"] = min(best.get("rows", (cpu, wall)), (cpu, wall))
    _line("rows", n, *best["rows"])

    pool = getattr(__import__("memdown.store.chunkpool").store, "chunkpool", None) if _has_pool() else None
    if pool is None:
        print("pooled   (no memdown.store.chunkpool in this version)")
        return
    items = [(rel, path) for rel, path in files]
    for _ in range(args.repeat):
        children = _children_cpu()
        cpu, wall, got = _timed(lambda: sum(len(r.chunks or []) for r in pool.chunk_files(
            root, items, options, max_bytes=10**9, workers=args.workers or None, min_bytes=0)))
        total = cpu + _children_cpu() - children
        if "pooled" not in best or wall < best["pooled"][1]:
            best["pooled"], best["pooled+"] = (cpu, wall), (total, wall)
        assert got == n, (got, n)
    _line("pooled", n, *best["pooled"])
    print("         (CPU above: this process only; below: with its workers, which also read each file)")
    _line("pooled+", n, *best["pooled+"])


def _has_pool() -> bool:
    import importlib.util

    return importlib.util.find_spec("memdown.store.chunkpool") is not None


if __name__ == "__main__":
    main()
