"""The core benchmarks' deterministic daily-log generator (seeded), and the corpora built from it.

Used by bench_core.py, core_appends.py, bench_live.py and bench_scale.py.
"""
from __future__ import annotations

import random
from pathlib import Path

import core_common  # noqa: F401  (sets memdown's environment before memdown is imported)
from memdown.config import load_config
from memdown.index.embedder import FastEmbedder
from memdown.services.upkeep.indexing import chunk_options
from memdown.store.chunker import chunk_markdown
from memdown.store.layout import init_layout

SERVICES = ["OrderService", "ShipmentService", "RateShopper", "InvoiceWorker", "AuthGateway", "SearchIndexer",
            "NotificationHub", "LabelPrinter", "CarrierSync", "BillingLedger", "WebhookRelay", "ReportBuilder"]
TOOLS = ["Redis", "Postgres", "Celery", "Terraform", "Kubernetes", "Sentry", "GitHub Actions", "Docker Compose",
         "pytest", "ruff", "mypy", "Alembic", "FastAPI", "React", "Vite", "S3", "DynamoDB", "Grafana"]
PEOPLE = ["Priya", "Marco", "Lena", "Tomasz", "Aiko", "Jonas", "Fatima", "Dev"]
PROBLEMS = [
    "timeouts under load", "a race between two writers", "stale cache entries after a deploy",
    "an N+1 query on the list endpoint", "flaky tests in CI", "a memory leak in the worker",
    "wrong rounding of tax amounts", "duplicate webhook deliveries", "slow cold starts",
    "a missing index on shipments.created_at", "expired TLS certificates in staging", "unbounded retries",
]
FIXES = [
    "added a per-carrier circuit breaker", "moved the lookup behind a read-through cache",
    "switched to a server-side cursor", "pinned the dependency and added a regression test",
    "made the job idempotent with a dedupe key", "added exponential backoff with jitter",
    "wrapped the writes in one transaction", "replaced float math with Decimal.quantize",
    "added the composite index in an Alembic migration", "split the task into batches of 500",
]
VERBS = ["Investigated", "Fixed", "Refactored", "Reviewed", "Documented", "Benchmarked", "Debugged", "Migrated"]


def _bullets(rng: random.Random, n: int, ticket: int) -> list[str]:
    out = []
    for _ in range(n):
        svc, tool, prob, fix = rng.choice(SERVICES), rng.choice(TOOLS), rng.choice(PROBLEMS), rng.choice(FIXES)
        kind = rng.randrange(5)
        if kind == 0:
            out.append(f"- {rng.choice(VERBS)} {prob} in `{svc}` (POR-{ticket}); {fix}.")
        elif kind == 1:
            out.append(f"- Decision with {rng.choice(PEOPLE)}: keep {tool} for {svc.lower()} and {fix}; "
                       f"revisit if {prob} come back.")
        elif kind == 2:
            out.append(f"- `{tool}` config changed: `{svc.upper()}_TIMEOUT={rng.randrange(1, 120)}s`, "
                       f"pool size {rng.randrange(2, 64)}; {prob} no longer reproduce locally.")
        elif kind == 3:
            out.append(f"- Root cause of {prob}: {svc} called {tool} without a deadline; {fix}. "
                       f"Tests: `pytest -q tests/{svc.lower()}` green.")
        else:
            out.append(f"- Open question for {rng.choice(PEOPLE)}: should {svc} own {tool} retries, "
                       f"given {prob}? Left a note in docs/{svc.lower()}.md.")
    return out


def daily_log(day: str, rng: random.Random, entries: int, bullets: tuple[int, int]) -> str:
    parts = [f"# {day}\n"]
    hour, minute, session = 8 + rng.randrange(3), rng.randrange(60), None
    for n in range(entries):
        if session is None or rng.random() < 0.25:
            session = f"{rng.getrandbits(32):08x}-{day[5:7]}{day[8:10]}"
            parts.append(f"\n## Session {hour:02d}:{minute:02d}\n")
        minute += 7 + rng.randrange(40)
        hour, minute = hour + minute // 60, minute % 60
        turn = f"{rng.getrandbits(32):08x}"
        body = "\n".join(_bullets(rng, rng.randint(*bullets), 400 + rng.randrange(600)))
        parts.append(f"\n### {hour % 24:02d}:{minute:02d}\n<!-- session:{session} turn:{turn} "
                     f"transcript:~/.claude/projects/p/{session}.jsonl -->\n{body}\n")
    return "".join(parts)


def day_names(count: int, start_year: int = 2024) -> list[str]:
    import datetime as dt

    first = dt.date(start_year, 1, 1)
    return [(first + dt.timedelta(days=i)).isoformat() for i in range(count)]


def write_corpus(root: Path, target_chunks: int, *, seed: int, entries: tuple[int, int],
                 bullets: tuple[int, int]) -> int:
    """Daily files under root/memory until about ``target_chunks`` chunks; returns the count."""
    rng = random.Random(seed)
    options = chunk_options(load_config(None))
    memdir = root / "memory"
    memdir.mkdir(parents=True, exist_ok=True)
    total = 0
    for day in day_names(5000):
        if total >= target_chunks:
            break
        text = daily_log(day, rng, rng.randint(*entries), bullets)
        source = f"memory/{day}.md"
        total += len(chunk_markdown(source, text, options))
        (memdir / f"{day}.md").write_text(text)
    return total


def embed_texts(root: Path) -> list[str]:
    options = chunk_options(load_config(root))
    out = []
    for path in sorted((root / "memory").glob("*.md")):
        out.extend(c.embed_text for c in chunk_markdown(f"memory/{path.name}", path.read_text(), options))
    return out


def short_corpus(root: Path, target: int) -> int:
    init_layout(root)
    return write_corpus(root, target, seed=11, entries=(20, 40), bullets=(1, 2))


def prefill_cache(root: Path, model: FastEmbedder) -> int:
    """Embed whatever the cache lacks (once; later runs hit the cache)."""
    from memdown import paths
    from memdown.index.cache import CachedEmbedder, EmbeddingCache

    cached = CachedEmbedder(model, EmbeddingCache(paths.embedding_cache_file()))
    texts = embed_texts(root)
    for start in range(0, len(texts), 1000):
        cached.embed(texts[start : start + 1000])
        if cached.embedded:
            print(f"  embedding for the cache: {min(start + 1000, len(texts))}/{len(texts)}", flush=True)
    return cached.embedded
