"""Shared by the core benchmarks (bench_core.py, core_appends.py; bench_live.py and bench_scale.py
import from bench_core): scratch folders, the memdown environment, latency sampling and tables.

Importing this sets the environment memdown resolves its paths from, so it comes before any
memdown import.
"""
from __future__ import annotations

import os
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work" / "core"

# The environment memdown resolves paths from, set before memdown is imported.
os.environ.setdefault("LANCEDB_LOG", "error")
os.environ["MEMDOWN_CONFIG"] = str(WORK / "no-global-config.toml")
os.environ.pop("MEMDOWN_DIR", None)
for _name in list(os.environ):
    if _name.startswith("MEMDOWN_") and _name not in ("MEMDOWN_CONFIG",):
        os.environ.pop(_name)
sys.path.insert(0, str(REPO))

from memdown.api import Memory  # noqa: E402


def use_home(home: Path) -> None:
    """Point memdown's per-user data (embedding cache, model folder) at ``home``."""
    home.mkdir(parents=True, exist_ok=True)
    os.environ["MEMDOWN_HOME"] = str(home)


def fresh_dir(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def ms(seconds: float) -> float:
    return round(1000 * seconds, 1)


QUERIES = [
    "why did we add a circuit breaker for carriers", "Redis pool size timeout", "flaky tests in CI",
    "memory leak in the worker", "Decimal rounding of tax amounts", "duplicate webhook deliveries",
    "Terraform staging certificates", "who owns retries for the InvoiceWorker", "server-side cursor Postgres",
    "N+1 query on the list endpoint", "Alembic composite index shipments", "exponential backoff with jitter",
    "idempotent job dedupe key", "Kubernetes cold starts", "Sentry alert for AuthGateway",
    "decision with Priya about Celery", "SearchIndexer batches of 500", "LabelPrinter stale cache after deploy",
    "GitHub Actions ruff version", "open question about BillingLedger",
]


def latency(mem: Memory, modes=("hybrid", "vector", "text"), rounds: int = 3) -> dict[str, float]:
    mem.ensure_index(refresh=False)
    out: dict[str, float] = {}
    for mode in modes:
        for q in QUERIES[:5]:  # warm-up
            mem.search(q, mode=mode, refresh=False)
        samples = []
        for _ in range(rounds):
            for q in QUERIES:
                started = time.perf_counter()
                mem.search(q, mode=mode, refresh=False)
                samples.append(time.perf_counter() - started)
        out[mode] = ms(statistics.median(samples))
    samples = []
    for q in QUERIES:
        started = time.perf_counter()
        mem.embedder.embed_query(q)
        samples.append(time.perf_counter() - started)
    out["query_embed"] = ms(statistics.median(samples))
    return out


def table_health(mem: Memory) -> dict:
    tbl = mem.table.table
    stats = tbl.stats()
    return {
        "rows": tbl.count_rows(),
        "fragments": stats["fragment_stats"]["num_fragments"],
        "versions": len(tbl.list_versions()),
        "disk_mb": round(mem.table.size_bytes() / 1e6, 1),
    }


def print_table(title: str, rows: list[tuple], headers: tuple) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    print(f"\n{title}")
    print("  " + "  ".join(str(h).ljust(w) for h, w in zip(headers, widths)))
    print("  " + "  ".join("-" * w for w in widths))
    for row in rows:
        print("  " + "  ".join(str(x).ljust(w) for x, w in zip(row, widths)))
