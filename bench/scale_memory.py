"""The scale benchmark's memory: the stand-in embedder and the daily-file generator.

Used by bench_scale.py (10k / 100k / 1M chunks) and bench_incremental.py.
Embedding a million texts with the packaged model takes hours here, so those
runs use a documented stand-in: a hashed bag of words, 384 dimensions like the
real model (each word adds +-1 to one of 384 slots chosen by its blake2b hash;
the sum is L2-normalised). Texts sharing words get similar vectors, so searches
and ANN recall behave like a real workload in cost, not in quality.
"""
from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path

DAYS = 730
QUERIES = [
    "redis cache ttl after deploy", "circuit breaker for the carrier api", "flaky tests in CI",
    "decimal rounding of tax amounts", "alembic migration composite index", "webhook deliveries duplicated",
    "memory leak in the worker", "server-side cursor for exports", "exponential backoff with jitter",
    "who owns the retries", "terraform state lock", "kubernetes pod restarts", "sentry alert noise",
    "postgres slow query on shipments", "celery task idempotent dedupe key", "label printer timeout",
    "billing ledger transaction", "search indexer cold start", "notification hub pool size",
    "rate shopper deadline", "github actions cache", "docker compose healthcheck", "ruff and mypy config",
    "fastapi dependency injection", "react vite build", "s3 presigned url", "dynamodb throughput",
    "grafana dashboard latency", "auth gateway tls certificate", "report builder batches of 500",
    "invoice worker race between writers", "order service n+1 query", "priya decision on redis",
    "marco reviewed the refactor", "stale cache entries", "pinned the dependency", "regression test",
    "pool size config changed", "open question about ownership", "root cause without a deadline",
]



class HashedBagOfWords:
    """The stand-in embedder: 384-d hashed bag of words (see this module's docstring)."""

    model_id = "bench/hashed-bag-of-words-384"
    dim = 384
    _word = re.compile(r"[a-z0-9_]+")

    def __init__(self) -> None:
        self._slots: dict[str, int] = {}  # word -> (slot + 1) * sign

    def _slot(self, word: str) -> int:
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
        found = self._slots[word] = (h % self.dim + 1) * (1 if (h >> 32) & 1 else -1)
        return found

    def embed_array(self, texts):
        import numpy as np

        slots, rows = [], []
        known, find = self._slots, self._word.findall
        for row, text in enumerate(texts):
            words = find(text.lower())
            slots.extend([known[w] if w in known else self._slot(w) for w in words])
            rows.extend([row] * len(words))
        signed = np.asarray(slots, dtype=np.int64)
        flat = np.asarray(rows, dtype=np.int64) * self.dim + np.abs(signed) - 1
        out = np.bincount(flat, weights=np.sign(signed), minlength=len(texts) * self.dim)
        out = out.reshape(len(texts), self.dim).astype(np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms

    def embed(self, texts):
        return self.embed_array(texts).tolist()

    def embed_query(self, text):
        return self.embed_array([text])[0].tolist()


# --- the memory on disk ----------------------------------------------------------

def write_memory(root: Path, target: int, seed: int = 13) -> int:
    """About ``target`` chunks in DAYS daily files; returns the files' total size in bytes.

    Entries come from bench_core's daily-log generator. The number of entries
    per day is calibrated on a sample (chunking every file just to count would
    cost minutes at 1M); the exact count is what the build reports.
    """
    from bench_core import daily_log, day_names  # noqa: E402  (bench/ is on sys.path when run as a script)
    from memdown.config import load_config
    from memdown.services.upkeep.indexing import chunk_options
    from memdown.store.chunker import chunk_markdown

    options = chunk_options(load_config(None))
    rng = random.Random(seed)
    sample = daily_log("2024-01-01", rng, 40, (2, 5))
    per_entry = len(chunk_markdown("memory/2024-01-01.md", sample, options)) / 40
    per_day = max(1, round(target / DAYS / per_entry))
    memdir = root / "memory"
    memdir.mkdir(parents=True, exist_ok=True)
    (root / "logs").mkdir(exist_ok=True)
    size = 0
    rng = random.Random(seed)
    for day in day_names(DAYS):
        text = daily_log(day, rng, per_day, (2, 5))
        (memdir / f"{day}.md").write_text(text)
        size += len(text)
    return size
