"""Reuse neighbours' vectors: each text embedded once, a unit's vector mixed from its parts.

With ``chunking.neighbour_weight`` > 0 the chunker gives every unit a recipe
(``store/mixrecipe.py``) instead of its text with its neighbours' text and heading
around it. ``NeighbourMixer`` sits between the embedding cache and the cached model:
the outer cache keeps each unit's mixed vector under the recipe's hash (so unchanged
rows, ``verify`` and rebuilds work as before); the parts (every unit's own text and
each heading phrase) go through the inner cache, so a text shared by three recipes
is embedded once.

    vector = normalize(own + neighbour_weight * (previous + following) + heading_weight * heading)
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...config import Config
from ...index.cache import CachedEmbedder, EmbeddingCache
from ...index.embedder import Embedder
from ...store.mixrecipe import Recipe, parse

if TYPE_CHECKING:
    import numpy as np


class NeighbourMixer:
    """An Embedder whose recipe texts become mixed vectors; plain texts pass through."""

    def __init__(self, parts: CachedEmbedder) -> None:
        self.parts = parts

    @property
    def model_id(self) -> str:
        return self.parts.model_id

    @property
    def dim(self) -> int:
        return self.parts.dim

    def load(self) -> None:
        self.parts.load()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.parts.embed_query(text)

    def embed_array(self, texts: Sequence[str]) -> "np.ndarray":
        import numpy as np

        recipes = [parse(t) for t in texts]
        wanted: dict[str, int] = {}  # each distinct part once, in first-seen order
        for text, recipe in zip(texts, recipes):
            for part in _parts(text, recipe):
                wanted.setdefault(part, len(wanted))
        vectors = self.parts.embed_array(list(wanted))
        out = np.empty((len(texts), vectors.shape[1] if len(wanted) else self.dim), dtype=np.float32)
        for i, (text, recipe) in enumerate(zip(texts, recipes)):
            if recipe is None:
                out[i] = vectors[wanted[text]]
                continue
            mixed = vectors[wanted[recipe.own]].astype(np.float64)
            for side in (recipe.previous, recipe.following):
                if side:
                    mixed += recipe.neighbour_weight * vectors[wanted[side]]
            if recipe.heading and recipe.heading_weight:
                mixed += recipe.heading_weight * vectors[wanted[recipe.heading]]
            norm = float(np.linalg.norm(mixed))
            out[i] = mixed / norm if norm > 0 else mixed
        return out


def _parts(text: str, recipe: Recipe | None) -> list[str]:
    if recipe is None:
        return [text]
    parts = [recipe.own, *(side for side in (recipe.previous, recipe.following) if side)]
    if recipe.heading and recipe.heading_weight:
        parts.append(recipe.heading)
    return parts


def index_embedder(config: Config, inner: Embedder, cache: EmbeddingCache | None) -> CachedEmbedder:
    """The embedder every index writer uses (Memory, the vector filler): cached, and mixing neighbours'
    vectors when ``chunking.neighbour_weight`` > 0, so a recipe is never embedded as plain text."""
    if config["chunking.neighbour_weight"] <= 0:
        return CachedEmbedder(inner, cache)
    # ``embedded`` (and so IndexReport.embedded) counts units whose mixed vector was computed.
    return CachedEmbedder(NeighbourMixer(CachedEmbedder(inner, cache)), cache)
