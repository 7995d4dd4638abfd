"""Change-sized work on a large memory: incremental append, no-op index, freshness check, verify.

    python bench/bench_incremental.py --chunks 100000            # build once (cached under --dir), then measure
    python bench/bench_incremental.py --chunks 100000 --repeat 5
    python bench/bench_incremental.py --scale-dir /tmp/scale/1000000 --repeat 3   # a copy of bench_scale's 1M memory

The memory is synthetic: ``--files`` daily logs (default 730, two years) of
sessions with short bullet notes drawn from a fixed vocabulary, sized to
about ``--chunks`` chunks. Vectors come from a documented stand-in embedder
(``HashedBagOfWords`` from ``bench_scale.py``, the one stand-in both
scale benchmarks share), because the packaged model embeds ~30 chunks/s here
and a million chunks would take hours; every measured path here is
independent of what the vectors hold. The stand-in has its own model id, so
its index never mixes with a real one. Timings are in process (the library
call each CLI command makes), medians of ``--repeat`` runs.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from scale_memory import HashedBagOfWords  # bench/ is on sys.path when run as a script

WORDS = (
    "cache redis ttl queue retry worker index chunk vector search hybrid fusion daemon watcher socket hook "
    "session transcript summary signal learning rule review promote config loader schema migration table "
    "column scalar btree merge append delete compact optimize manifest version rollback verify repair "
    "embedding model onnx tokenizer batch stream memory bounded array numpy arrow parquet lance fragment "
    "deploy release tag branch merge rebase conflict test fixture mutation benchmark figure latency median "
    "billing webhook outbox stripe payment invoice customer account login token secret redact fence label"
).split()


def section(rng: random.Random, hour: int, minute: int, bullets: int) -> str:
    lines = [f"## Session {hour:02d}:{minute:02d}", ""]
    for _ in range(bullets):
        lines.append("- " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(25, 40))) + ".")
    return "\n".join(lines) + "\n\n"


def write_memory(root: Path, files: int, chunks: int) -> None:
    rng = random.Random(13)
    memory = root / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    # One bullet of ~200 characters is about one chunk at the default 250-character unit.
    per_file = max(1, chunks // files)
    for n in range(files):
        day = time.strftime("%Y-%m-%d", time.gmtime(1_700_000_000 + n * 86400))
        parts = [f"# {day}\n\n"]
        left, hour = per_file, 0
        while left > 0:
            take = min(left, 8)
            parts.append(section(rng, hour % 24, (hour * 7) % 60, take))
            left -= take
            hour += 1
        (memory / f"{day}.md").write_text("".join(parts))


def timed(fn, repeat: int) -> tuple[float, object]:
    """Median wall seconds of ``repeat`` calls (the median CPU seconds go to ``timed.cpu``)."""
    times, cpus, result = [], [], None
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        result = fn()
        times.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    timed.cpu = statistics.median(cpus)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=730)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "memdown-bench-incremental")
    parser.add_argument("--fresh", action="store_true", help="rebuild the memory even if cached")
    parser.add_argument("--skip-verify", action="store_true")
    parser.add_argument("--scale-dir", type=Path, help="measure a memory bench_scale.py built (its <size> folder, "
                        "e.g. $MEMDOWN_BENCH_SCALE_DIR/1000000; a copy: appends write to it) instead of building one")
    args = parser.parse_args()

    base = args.scale_dir or args.dir / f"{args.chunks}"
    home = base / "home"
    os.environ["MEMDOWN_HOME"] = str(home)
    os.environ["CLAUDE_CONFIG_DIR"] = str(home / "claude")
    os.environ.setdefault("LANCEDB_LOG", "error")
    root = base / "mem" if args.scale_dir else base / "project" / ".memdown"
    os.environ["MEMDOWN_DIR"] = str(root)
    from memdown.api import Memory
    from memdown.services.upkeep.indexing import changed_sources
    from memdown.services.upkeep.verify import verify

    if args.fresh and base.exists() and not args.scale_dir:
        shutil.rmtree(base)
    built_now = not (root / "index" / "files.json").exists()
    if built_now:
        write_memory(root, args.files, args.chunks)
        started = time.perf_counter()
        report = Memory.open(root, embedder=HashedBagOfWords()).index()
        print(f"built {report.chunks_total} chunks from {report.files_indexed} files in "
              f"{time.perf_counter() - started:.1f}s (stand-in embedder)")
    mem = Memory.open(root, embedder=HashedBagOfWords())
    total = mem.stats()["chunks"]
    print(f"memory: {total} chunks, {args.files} daily files, load {os.getloadavg()[0]:.1f}")

    fresh_s, stale = timed(lambda: changed_sources(root), max(args.repeat, 5))
    print(f"freshness check (changed_sources, nothing changed, no daemon: stat walk): {fresh_s * 1000:.1f} ms"
          f" (CPU {timed.cpu * 1000:.1f} ms; stale={stale})")
    noop_s, report = timed(lambda: Memory.open(root, embedder=HashedBagOfWords()).index(), args.repeat)
    print(f"no-op index (fresh Memory each time): {noop_s:.3f} s, CPU {timed.cpu:.3f} s ({report.files_unchanged} unchanged)")

    newest = sorted((root / "memory").glob("*.md"))[-1]
    rng = random.Random(time.time_ns())
    append_times, append_cpu = [], []
    mem.ensure_index(refresh=False)  # lancedb imported before the clock: an import is not the append's cost
    for n in range(args.repeat):
        with open(newest, "a") as handle:
            handle.write(section(rng, 23, n % 60, 1))
        started, cpu = time.perf_counter(), time.process_time()
        report = Memory.open(root, embedder=HashedBagOfWords()).index()
        append_times.append(time.perf_counter() - started)
        append_cpu.append(time.process_time() - cpu)
        assert report.files_indexed == 1 and report.chunks_added >= 1, report
    print(f"append one section to one file, then index (fresh Memory): median {statistics.median(append_times):.3f} s,"
          f" CPU {statistics.median(append_cpu):.3f} s (runs: {', '.join(f'{t:.2f}' for t in append_times)})")
    hits = mem.search("cache redis ttl", k=5, mode="text")
    assert hits, "search after the appends finds nothing"
    if not args.skip_verify:
        started, cpu = time.perf_counter(), time.process_time()
        checked = verify(Memory.open(root, embedder=HashedBagOfWords()))
        print(f"verify: {time.perf_counter() - started:.1f} s, CPU {time.process_time() - cpu:.1f} s"
              f" (ok={checked.ok}; {checked.problems[:2]})")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
