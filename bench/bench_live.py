"""Live index benchmark: warm (daemon) vs cold (in-process) `memdown search`,
LanceDB's own query time in the same run, and time from a file write to
searchable.

    python bench/bench_live.py                    # 1k and 10k chunks, 7 runs each
    python bench/bench_live.py --sizes 1000 --runs 5

Uses the real packaged model, real LanceDB and a real `memdown watch`
subprocess. The corpus is bench_core.py's short-entry generator (same seed, so
figures compare with the core benchmark). Scratch data lives in
bench/.work/live/ (gitignored); embeddings are cached there, so only the first
run embeds. Results also go to bench/.work/live/results.json.

Measured, per corpus size:

- cold: `python -m memdown search <q> --json`, a fresh process each run, no
  daemon (the CLI finds no socket and answers in-process);
- warm: the same commands while the daemon runs (a fresh process each run:
  interpreter start + click + a socket round trip);
- socket: `ask_daemon` from this process (the daemon's answer time without
  the interpreter start);
- in-process: `Memory.search` in this process, table and model loaded (what
  the daemon does per query);
- lancedb: the hybrid query LanceDB runs for a search (vector + FTS + RRF,
  same columns and limit), query vector precomputed;
- python floor: `python -m memdown --help` (interpreter + click, no query);
- write→searchable: a new file written to memory/ until a daemon search
  finds it (default debounce, watch.debounce_ms).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work" / "live"
sys.path.insert(0, str(HERE))

from bench_core import QUERIES, fresh_dir, ms, prefill_cache, print_table, short_corpus, use_home  # noqa: E402

from memdown import paths  # noqa: E402
from memdown.api import Memory  # noqa: E402
from memdown.live import lifecycle  # noqa: E402
from memdown.live.client import ask_daemon  # noqa: E402
from memdown.index.embedder import FastEmbedder  # noqa: E402
from memdown.index.table import RESULT_COLUMNS  # noqa: E402

HOME = WORK / "home-cache"
RUNTIME = WORK / "rt"


def env_for(root: Path) -> dict[str, str]:
    return {**os.environ, "MEMDOWN_DIR": str(root), "MEMDOWN_HOME": str(HOME), "PYTHONPATH": str(REPO),
            "XDG_RUNTIME_DIR": str(RUNTIME), "LANCEDB_LOG": "error",
            "MEMDOWN_CONFIG": str(WORK / "no-global-config.toml")}


def build(size: int, model: FastEmbedder) -> tuple[Path, int]:
    root = WORK / f"corpus-{size}" / ".memdown"
    marker = root.parent / "chunks.txt"
    if marker.exists() and (root / "index" / "meta.json").exists():
        lifecycle.stop(root)
        if Memory.open(root, embedder=model).stats()["chunks"] == int(marker.read_text()):
            return root, int(marker.read_text())
    lifecycle.stop(root)
    root = fresh_dir(root.parent) / ".memdown"
    short_corpus(root, size)
    prefill_cache(root, model)
    report = Memory.open(root, embedder=model).index(rebuild=True)
    assert report.embedded == 0, report
    marker.write_text(str(report.chunks_total))
    return root, report.chunks_total


def cli_search(root: Path, query: str) -> float:
    cmd = [sys.executable, "-m", "memdown", "search", query, "--json"]
    started = time.perf_counter()
    proc = subprocess.run(cmd, env=env_for(root), capture_output=True, text=True)
    took = time.perf_counter() - started
    assert proc.returncode == 0 and json.loads(proc.stdout), proc.stderr
    return took


def median_ms(samples: list[float]) -> float:
    return ms(statistics.median(samples))


def lancedb_raw(root: Path, model: FastEmbedder, queries: list[str], rounds: int = 3) -> tuple[float, float]:
    import lancedb
    from lancedb.rerankers import RRFReranker

    table = lancedb.connect(paths.index_dir(root)).open_table("chunks")
    embed = []
    vectors = {}
    for q in queries:
        started = time.perf_counter()
        vectors[q] = model.embed_query(q)
        embed.append(time.perf_counter() - started)

    def one(q: str) -> list:
        return (table.search(query_type="hybrid", fts_columns="fts_text").vector(vectors[q]).text(q)
                .distance_type("cosine").rerank(RRFReranker()).select(RESULT_COLUMNS).limit(10).to_list())

    for q in queries[:3]:
        one(q)
    samples = []
    for _ in range(rounds):
        for q in queries:
            started = time.perf_counter()
            assert one(q)
            samples.append(time.perf_counter() - started)
    return median_ms(samples), median_ms(embed)


def in_process(root: Path, model: FastEmbedder, queries: list[str], rounds: int = 3) -> float:
    mem = Memory.open(root, embedder=model)
    mem.ensure_index(refresh=False)
    for q in queries[:3]:
        mem.search(q, refresh=False)
    samples = []
    for _ in range(rounds):
        for q in queries:
            started = time.perf_counter()
            mem.search(q, refresh=False)
            samples.append(time.perf_counter() - started)
    return median_ms(samples)


def start_daemon(root: Path) -> None:
    os.environ.update({"MEMDOWN_HOME": str(HOME), "XDG_RUNTIME_DIR": str(RUNTIME)})
    proc = subprocess.run([sys.executable, "-m", "memdown", "watch"], env=env_for(root), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        info = lifecycle.ping(root)
        if info and info["warm"] and not info["writing"] and not info["pending_files"]:
            return
        time.sleep(0.1)
    raise SystemExit("the daemon did not warm up within 60 s")


def write_to_searchable(root: Path, trials: int) -> list[float]:
    samples = []
    for n in range(trials):
        token = f"zqlive{n}x{int(time.time() * 1000) % 100000}"
        path = root / "memory" / f"zz-live-{n}.md"
        started = time.perf_counter()
        path.write_text(f"# live {n}\n\n## Note\n\nA fresh note about {token} written during the benchmark.\n")
        while True:
            reply = ask_daemon(root, "search", {"query": token, "mode": "text"})
            if reply and reply.get("ok") and reply["result"]:
                break
            if time.perf_counter() - started > 30:
                raise SystemExit("a written file did not become searchable within 30 s")
            time.sleep(0.01)
        samples.append(time.perf_counter() - started)
        time.sleep(0.3)
    for n in range(trials):
        (root / "memory" / f"zz-live-{n}.md").unlink(missing_ok=True)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per measurement (median)")
    parser.add_argument("--write-trials", type=int, default=5)
    args = parser.parse_args()

    WORK.mkdir(parents=True, exist_ok=True)
    use_home(HOME)
    RUNTIME.mkdir(mode=0o700, exist_ok=True)
    os.environ["XDG_RUNTIME_DIR"] = str(RUNTIME)
    model = FastEmbedder()
    queries = QUERIES[: max(args.runs, 5)]
    results: dict = {"runs": args.runs, "python": sys.version.split()[0], "cpus": os.cpu_count(), "sizes": {}}
    rows = []
    for size in args.sizes:
        print(f"corpus ~{size} chunks …", flush=True)
        root, chunks = build(size, model)
        lifecycle.stop(root)
        floor = []
        for _ in range(args.runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "memdown", "--help"], env=env_for(root), capture_output=True,
                           check=True)
            floor.append(time.perf_counter() - started)
        cli_search(root, queries[0])  # page cache warm
        cold = [cli_search(root, q) for q in queries[: args.runs]]
        start_daemon(root)
        before = lifecycle.ping(root)["requests"]
        warm = [cli_search(root, q) for q in queries[: args.runs]]
        assert lifecycle.ping(root)["requests"] == before + args.runs, "some searches did not reach the daemon"
        socket_samples = []
        for _ in range(3):
            for q in queries:
                started = time.perf_counter()
                reply = ask_daemon(root, "search", {"query": q})
                socket_samples.append(time.perf_counter() - started)
                assert reply and reply["ok"]
        writes = write_to_searchable(root, args.write_trials) if args.write_trials else []
        lifecycle.stop(root)
        raw, embed = lancedb_raw(root, model, queries)
        inproc = in_process(root, model, queries)
        entry = {
            "chunks": chunks,
            "cold_cli_ms": median_ms(cold), "cold_runs_ms": [ms(s) for s in cold],
            "warm_cli_ms": median_ms(warm), "warm_runs_ms": [ms(s) for s in warm],
            "socket_ms": median_ms(socket_samples),
            "in_process_search_ms": inproc,
            "lancedb_hybrid_ms": raw, "query_embed_ms": embed,
            "python_floor_ms": median_ms(floor),
            "write_to_searchable_ms": median_ms(writes) if writes else None,
            "write_runs_ms": [ms(s) for s in writes],
        }
        results["sizes"][str(chunks)] = entry
        rows.append((chunks, entry["cold_cli_ms"], entry["warm_cli_ms"], entry["socket_ms"], inproc, raw, embed,
                     entry["python_floor_ms"], entry["write_to_searchable_ms"]))
    (WORK / "results.json").write_text(json.dumps(results, indent=2))
    print_table(
        f"live index: median ms ({args.runs} fresh processes per CLI figure; {os.cpu_count()} CPUs)",
        rows,
        ("chunks", "cold CLI", "warm CLI", "socket", "in-process", "lancedb hybrid", "embed query",
         "memdown --help", "write→searchable"),
    )
    print(f"results: {WORK / 'results.json'}")


if __name__ == "__main__":
    main()
