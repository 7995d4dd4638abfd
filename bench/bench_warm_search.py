"""Warm in-process search: memdown's search against LanceDB's own hybrid query, on the same table.

    python bench/bench_warm_search.py                    # the bench_vs_memsearch corpus (built by that script)
    python bench/bench_warm_search.py --root PATH/.memdown --repeats 20
    python bench/bench_warm_search.py --stand-in --root bench/.work/scale/10000/.memdown   # after bench_scale.py --sizes 10000 --steps build

Both sides get the same query vectors (embedded once, before timing), the same k and the same open
table. Rows (medians over queries × repeats, run interleaved, CPU of the whole process, LanceDB's threads included, and wall):
- ``lancedb hybrid``: ``table.search(query_type="hybrid")`` with its ``RRFReranker``, limit k, every
  column (what a caller of LanceDB gets);
- ``lancedb hybrid, memdown's depth``: the same, with memdown's hidden-kind filter and limit (``DEPTH``
  unit hits: windows are ranked from more units than they show);
- ``memdown: ranking``: memdown's ``_rows`` (ids ranked, then their columns taken by row id, with the
  top hits' vectors);
- ``memdown: match``: how strongly the search matched (services/recall/match.py), from those vectors;
- ``memdown: windows``: ``rank_windows`` (services/recall/windows.py);
- ``memdown search_table``: the whole in-process search given the vector (the three above);
- ``memdown Memory.search``: what a warm caller (the daemon, ``memdown.api``) runs: the freshness check,
  embedding the query, search_table.
The ratio is memdown's search_table over LanceDB's own hybrid query (issue 21's goal: ≤ 1.5×).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("LANCEDB_LOG", "error")

sys.path.insert(0, str(HERE))
from bench_vs_memsearch import QUERIES  # noqa: E402  (the same ten questions as the cold comparison)

DEFAULT_ROOT = HERE / ".work" / "vs-memsearch" / "corpus-real" / ".memdown"


def timed(fn: Callable[[], object], repeats: int) -> list[tuple[float, float]]:
    out = []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        out.append((time.perf_counter() - wall, time.process_time() - cpu))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="a memory root with an index")
    parser.add_argument("--repeats", type=int, default=10, help="runs of each query per row (default 10)")
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--stand-in", action="store_true",
                        help="the memory was built by bench/bench_scale.py with its stand-in embedder (bench/scale_memory.py)")
    args = parser.parse_args(argv)
    if not (args.root / "index").is_dir():
        print(f"no index under {args.root}: run bench/bench_vs_memsearch.py --only search first, or pass --root")
        return 2
    if "MEMDOWN_HOME" not in os.environ and args.root == DEFAULT_ROOT:
        os.environ["MEMDOWN_HOME"] = str(HERE / ".work" / "vs-memsearch" / "memdown-home")

    from lancedb.rerankers import RRFReranker

    from memdown.api import Memory
    from memdown.services.recall import windows
    from memdown.services.recall.match import TOP as MATCH_TOP
    from memdown.services.recall.match import assess
    from memdown.services.recall.search import _rows, _to_hit, _today, build_where, search_table
    from memdown.services.recall.timeframe import find_range

    if args.stand_in:
        sys.path.insert(0, str(HERE))
        from scale_memory import HashedBagOfWords

        mem = Memory(args.root, embedder=HashedBagOfWords())
    else:
        mem = Memory(args.root)
    mem.search("warm up", k=args.k)  # model loaded, table open, markdown read once
    table, tbl = mem.table, mem.table.table
    options = mem._options(k=args.k)
    where = build_where(table, options)
    depth = max(options.k + options.k // 2, options.candidate_depth, windows.DEPTH)
    vectors = {q: mem.embedder.embed_query(q) for q in QUERIES}
    print(f"table: {table.count()} rows; k={args.k}; memdown ranks windows from {depth} unit hits; "
          f"{len(QUERIES)} queries × {args.repeats}; load {os.getloadavg()[0]:.2f}", flush=True)

    def hybrid(q: str, limit: int, filtered: bool):
        builder = (tbl.search(query_type="hybrid", fts_columns="fts_text").vector(vectors[q]).text(q)
                   .distance_type("cosine").rerank(RRFReranker()))
        builder = table.ann.tune(builder)
        if filtered and where:
            builder = builder.where(where, prefilter=True)
        return builder.limit(limit).to_list()

    taken: dict[str, dict[str, list[float]]] = {q: {} for q in QUERIES}  # the top hits' vectors, as search_table

    def ranked(q: str) -> list:
        builder = (tbl.search(query_type="hybrid", fts_columns="fts_text").vector(vectors[q]).text(q)
                   .distance_type("cosine").rerank(RRFReranker()))
        return [_to_hit(r, "hybrid") for r in _rows(tbl, table.ann.tune(builder), where, depth, taken[q], MATCH_TOP)]

    hits = {q: ranked(q) for q in QUERIES}
    # rank_windows writes scores, windows and notes into its hits: each run gets fresh copies, made untimed
    fresh = {q: [[replace(h, notes=[], window=None) for h in hits[q]] for _ in range(args.repeats)] for q in QUERIES}

    def build_windows(q: str):
        return windows.rank_windows(fresh[q].pop(), mem.root, table.files, args.k, windows.WindowOptions(
            max_chars=options.window_chars), find_range(q, _today(options.today)))

    paths: dict[str, Callable[[str], object]] = {
        "lancedb hybrid (limit k, all columns)": lambda q: hybrid(q, args.k, False),
        f"lancedb hybrid (filter, limit {depth})": lambda q: hybrid(q, depth, True),
        "memdown: ranking (_rows)": ranked,
        "memdown: match (assess)": lambda q: assess(table, q, vectors[q], hits[q], taken[q]),
        "memdown: windows (rank_windows)": build_windows,
        "memdown search_table": lambda q: search_table(table, mem.embedder, q, mem._options(k=args.k), mem.root,
                                                       query_vector=vectors[q]),
        "memdown Memory.search (refresh, embeds)": lambda q: mem.search(q, k=args.k),
    }
    rows: dict[str, list[tuple[float, float]]] = {name: [] for name in paths}
    for _ in range(args.repeats):  # interleaved: a load that changes during the run reaches every row alike
        for q in QUERIES:
            for name, fn in paths.items():
                rows[name] += timed(lambda: fn(q), 1)

    base = statistics.median(s[0] for s in rows["lancedb hybrid (limit k, all columns)"])
    base_cpu = statistics.median(s[1] for s in rows["lancedb hybrid (limit k, all columns)"])
    print("\n| path | wall (median) | CPU (median) | wall / LanceDB's | CPU / LanceDB's |\n|---|---|---|---|---|")
    for name, samples in rows.items():
        wall = statistics.median(s[0] for s in samples)
        cpu = statistics.median(s[1] for s in samples)
        print(f"| {name} | {wall * 1000:.2f} ms | {cpu * 1000:.2f} ms | {wall / base:.2f} | {cpu / base_cpu:.2f} |")
    print(f"\nload after: {os.getloadavg()[0]:.2f}")
    return 0



if __name__ == "__main__":
    sys.exit(main())
