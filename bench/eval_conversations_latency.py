"""Warm search latency on the conversation benchmark's memory (``eval_conversations.py --latency``).

    python bench/eval_conversations.py --split dev --latency

Split out of eval_conversations.py (one job per module); the output is unchanged.
"""
from __future__ import annotations

import statistics
import time

from eval_conversations import SHARED, build_memory


def latency(questions: list[dict], rounds: int = 3) -> dict[str, float]:
    """Warm in-process search, interleaved per query so machine load hits every variant alike (median ms):
    LanceDB's own hybrid query (query vector precomputed, as bench/bench_live.py), memdown's search
    returning units (search.window_chars = 0, the ranking before windows) and returning windows."""
    from lancedb.rerankers import RRFReranker

    from memdown.index.table import RESULT_COLUMNS

    mem, _ = build_memory(SHARED.is_dir(), {})
    mem.ensure_index(refresh=False)
    table = mem.table.table
    vectors = {q["question"]: mem.embedder.embed_query(q["question"]) for q in questions}
    units_config = {**mem.config.values["search"], "window_chars": 0}
    windows_config = dict(mem.config.values["search"])

    def lancedb(q: str, limit: int) -> None:
        (table.search(query_type="hybrid", fts_columns="fts_text").vector(vectors[q]).text(q).distance_type("cosine")
         .rerank(RRFReranker()).select(RESULT_COLUMNS).limit(limit).to_list())

    def search(q: str, config: dict) -> None:
        mem.config.values["search"] = config
        mem.search(q, k=8, refresh=False)

    variants = {
        "lancedb hybrid, limit 10": lambda q: lancedb(q, 10),
        "lancedb hybrid, limit 40": lambda q: lancedb(q, 40),
        "memdown units (before)": lambda q: search(q, units_config),
        "memdown windows (after)": lambda q: search(q, windows_config),
        "query embedding": lambda q: mem.embedder.inner.embed_query(q) if hasattr(mem.embedder, "inner") else None,
    }
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for name, run_one in variants.items():  # warm-up
        run_one(questions[0]["question"])
    names = list(variants)
    for _ in range(rounds):
        for i, q in enumerate(questions):
            for name in names[i % len(names):] + names[: i % len(names)]:  # rotate: the first query of a
                run_one = variants[name]  # new text pays a cold cost, and no variant should always pay it
                t0 = time.perf_counter()
                run_one(q["question"])
                samples[name].append(time.perf_counter() - t0)
    mem.config.values["search"] = windows_config
    return {name: 1000 * statistics.median(v) for name, v in samples.items()}
