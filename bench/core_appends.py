"""(e) of the core benchmarks: many single-section appends, an index run after each, then hybrid
latency against a freshly built table of the same rows (goal <= 2x). Run through bench_core.py --appends N.
"""
from __future__ import annotations

import random
import shutil
import statistics
import time

from core_common import WORK, Memory, fresh_dir, latency, ms, print_table, table_health, use_home
from core_corpus import _bullets, day_names, prefill_cache, short_corpus
from memdown.index.embedder import FastEmbedder
from memdown.store.layout import init_layout


def bench_appends(n: int, model: FastEmbedder, results: dict) -> None:
    use_home(WORK / "home-cache")
    base = fresh_dir(WORK / "appends")
    root = base / "appended" / ".memdown"
    short_corpus(root, 1000)
    per_file = 25
    days = day_names(5000, start_year=2030)[: (n + per_file - 1) // per_file]
    rng = random.Random(99)
    sections = [
        f"### {8 + (i % per_file) // 3:02d}:{(i * 7) % 60:02d}\n<!-- session:app{i // per_file} turn:t{i} -->\n"
        + "\n".join(_bullets(rng, rng.randint(1, 3), 2000 + i)) + "\n\n"
        for i in range(n)
    ]
    # Pre-embed the appended sections' final embed_texts so each index run is a cache hit:
    # this measures the table, not the model.
    staging = fresh_dir(base / "staging") / ".memdown"
    init_layout(staging)
    for d, day in enumerate(days):
        (staging / "memory" / f"{day}.md").write_text(f"# {day}\n\n" + "".join(sections[d * per_file:(d + 1) * per_file]))
    for src in (root / "memory").glob("*.md"):
        shutil.copy(src, staging / "memory" / src.name)
    prefill_cache(staging, model)

    mem = Memory.open(root, embedder=model)
    mem.index(rebuild=True)
    rows_before = mem.table.count()
    before = latency(Memory.open(root, embedder=model), modes=("hybrid",))["hybrid"]
    run_times, optimize_times, embedded = [], [], 0
    optimize_every = mem.config["index.optimize_every"]
    started = time.perf_counter()
    for i, section in enumerate(sections):
        f = root / "memory" / f"{days[i // per_file]}.md"
        with open(f, "a") as handle:
            if i % per_file == 0:
                handle.write(f"# {days[i // per_file]}\n\n")
            handle.write(section)
        merges = mem.table.meta.merges_since_optimize if mem.table.meta else 0
        report = mem.index()
        # the run that reached optimize_every merges also compacted the table
        (optimize_times if merges + 1 >= optimize_every else run_times).append(report.seconds)
        embedded += report.embedded
        if (i + 1) % 250 == 0:
            print(f"  appends: {i + 1}/{n}  last run with optimize {optimize_times[-1] * 1000:.0f} ms", flush=True)
    total = time.perf_counter() - started
    reader = Memory.open(root, embedder=model)
    after = latency(reader, modes=("hybrid",))["hybrid"]
    health_after = table_health(reader)
    # What the table shrinks to once old versions age past the cleanup window
    # (5 minutes; this burst of appends was faster than that).
    from datetime import timedelta

    cleaned = Memory.open(root, embedder=model)
    cleaned.ensure_index(refresh=False)
    import warnings

    with warnings.catch_warnings():  # "removes every version": intended, nothing else reads this table
        warnings.simplefilter("ignore")
        cleaned.table.table.optimize(cleanup_older_than=timedelta(0))
    health_cleaned = table_health(cleaned)
    after_cleanup = latency(Memory.open(root, embedder=model), modes=("hybrid",))["hybrid"]

    fresh_root = base / "fresh" / ".memdown"
    init_layout(fresh_root)
    for src in (root / "memory").glob("*.md"):
        shutil.copy(src, fresh_root / "memory" / src.name)
    Memory.open(fresh_root, embedder=model).index(rebuild=True)
    fresh_mem = Memory.open(fresh_root, embedder=model)
    fresh = latency(fresh_mem, modes=("hybrid",))["hybrid"]
    health_fresh = table_health(fresh_mem)
    ratio = after / fresh
    results["appends"] = {
        "appends": n, "optimize_every": optimize_every, "embedded_during_appends": embedded,
        "hybrid_ms_before": before, "hybrid_ms_after_appends": after, "hybrid_ms_fresh": fresh,
        "ratio_after_vs_fresh": round(ratio, 2), "index_run_ms_median": ms(statistics.median(run_times)),
        "index_run_ms_p95": ms(sorted(run_times)[int(0.95 * len(run_times)) - 1]),
        "optimize_run_ms_median": ms(statistics.median(optimize_times)) if optimize_times else None,
        "optimize_run_ms_max": ms(max(optimize_times)) if optimize_times else None,
        "rows_before": rows_before, "hybrid_ms_after_cleanup": after_cleanup, "table_after_cleanup": health_cleaned,
        "total_seconds": round(total, 1), "table_after": health_after, "table_fresh": health_fresh,
    }
    print_table(f"(e) {n} single-section appends, one index run each (optimize every {optimize_every})", [
        ("before appends", rows_before, before, "-", "-", "-"),
        ("after appends", health_after["rows"], after, health_after["fragments"], health_after["versions"],
         health_after["disk_mb"]),
        ("after appends + cleanup of old versions", health_cleaned["rows"], after_cleanup, health_cleaned["fragments"],
         health_cleaned["versions"], health_cleaned["disk_mb"]),
        ("fresh build, same rows", health_fresh["rows"], fresh, health_fresh["fragments"], health_fresh["versions"],
         health_fresh["disk_mb"]),
    ], ("table", "rows", "hybrid ms", "fragments", "versions", "disk MB"))
    a = results["appends"]
    print(f"  after/fresh hybrid latency: {ratio:.2f}x (goal <= 2x)")
    print(f"  index run per append: median {a['index_run_ms_median']} ms, p95 {a['index_run_ms_p95']} ms; "
          f"runs that also optimized: median {a['optimize_run_ms_median']} ms, max {a['optimize_run_ms_max']} ms; "
          f"{embedded} embedded by the model (cache pre-filled); loop {a['total_seconds']} s")
