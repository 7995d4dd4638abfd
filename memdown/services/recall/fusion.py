"""Hybrid ranking: the full-text and the vector lists fused by each hit's relative score, then exact
identifier and path matches first.

Why not LanceDB's RRF as is (docs/retrieval.md, "Real coding history"):
- Reciprocal rank forgets how sure a list is: a full-text hit far ahead of the rest (a rare name
  matched) counts the same as the first of forty near-equal cosines, so a middling vector list
  pulled units above text's clear first hit (issue #26: hybrid below text-only on fixes and in
  Chinese and Russian). Here each list's scores are scaled to [0, 1] within that list (its best 1,
  its last 0) and summed with the list's weight: a unit both lists place high wins, a list's clear
  leader keeps its lead, and a flat list moves little. (Reciprocal rank stays as ``METHOD = "rrf"``
  with K = 20, the ablation; LanceDB's K = 60 flattened the top further.)
- The packaged model is English-only: for a question it cannot read (mostly in another script:
  Chinese, Japanese, Korean, Cyrillic…; or in Latin letters but another language, French,
  Portuguese, Spanish…, told by how few of its words the model's vocabulary holds whole) its
  neighbours are close to random and only dilute the text list, so that list counts for less there
  (:func:`vector_weight`).
- An entry's evidence counts once: in hybrid a section ranks by its best unit (REST_SHARE 0 here), not
  by that unit plus a share of its other chunks, which let a long entry of middling chunks pass the
  one-chunk entry both lists placed first.
- BM25 over a whole ``###`` entry counts every question word the entry holds; a chunk's score only its
  own. A share (ENTRY_TEXT_SHARE) of a unit's full-text evidence can be its entry's: the text scores of
  the entry's chunks in the text list, best first, each next one halved (no second index). Off: it gained
  on the dev halves and lost a little on bench/retrieval's test half (docs/retrieval.md, session 9).
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
NON_LATIN_VECTOR_WEIGHT = 0.15  # the packaged English model on a question it cannot read (another script or language)
KNOWN_WORDS_MIN = 0.75  # below this share of words in the English model's vocabulary, a Latin question is not English
EXACT_BOOST = 1.0  # a unit holding all the query's exact terms: score × (1 + EXACT_BOOST)
METHOD = "relative"  # "rrf": weighted reciprocal rank (the fusion of 813f1bb, the benchmarks' ablation)

_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
# Identifiers with separators or inner capitals, paths, flags, file names: words a person copies.
_EXACT = re.compile(r"(?<![\w-])(?:--?[A-Za-z][\w-]*|[\w.~/-]*[A-Za-z][\w-]*(?:[._/:][\w-]+)+|"
                    r"[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|\w+_\w+)(?![\w-])")
# A section's score in hybrid: its best unit + REST_SHARE × the next (windows.REST_SHARE, 0.3, stays for text
# and vector alone). 0: dev MRR real history 0.798 -> 0.827, bench/retrieval 0.872 -> 0.923.
REST_SHARE = 0.0
# A unit's text evidence: (1 - ENTRY_TEXT_SHARE) × its own relative score + ENTRY_TEXT_SHARE × its entry's, the entry's
# raw score being its units' text scores, best first, the i-th × ENTRY_TEXT_DECAY**i. Off: on dev (session 9) 0.1-0.2
# with a decay of 0.3-0.7 was a plateau (real history 0.832 -> 0.835, bench/retrieval 0.923 -> 0.930-0.935), but on
# bench/retrieval's test half, the guard, 0.1 cost r@5 0.960 -> 0.949 and MRR 0.923 -> 0.921: it does not generalize.
ENTRY_TEXT_SHARE = 0.0
ENTRY_TEXT_DECAY = 0.5


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


def vector_weight(query: str, english_only_model: bool = True, known_share: float = 1.0) -> float:
    """The vector list's weight; ``known_share``: the share of the query's words the English-only model
    knows whole (``index.embedder.known_word_share``)."""
    if not english_only_model or (is_mostly_latin(query) and known_share >= KNOWN_WORDS_MIN):
        return VECTOR_WEIGHT
    return NON_LATIN_VECTOR_WEIGHT


def exact_terms(query: str) -> list[str]:
    """The names a question spells out verbatim (``settings.local.json``, ``--only``, ``fooBar``, ``a_b``)."""
    return list(dict.fromkeys(t.strip(".:/").lower() for t in _EXACT.findall(query) if len(t.strip(".:/")) >= 3))


def _relative(hits: list[Ranked]) -> list[float]:
    """Each hit's score within its own list, scaled to [0, 1] (the list's best 1, its last 0)."""
    raw = [h.score for h in hits]
    if not raw:
        return []
    top, low = max(raw), min(raw)
    return [(s - low) / (top - low) if top > low else 1.0 for s in raw]


def _entry(hit: Ranked) -> tuple[str, int]:
    """The ``###`` entry a unit belongs to (a unit without one is its own)."""
    return getattr(hit, "source", hit.id), getattr(hit, "section_start", 0)


def entry_text_scores(text_hits: list[Ranked]) -> dict[tuple[str, int], float]:
    """Each entry's full-text evidence from its units in the text list, scaled to [0, 1] like a list's."""
    units: dict[tuple[str, int], list[float]] = {}
    for hit in text_hits:
        units.setdefault(_entry(hit), []).append(hit.score)
    raw = {entry: sum(s * ENTRY_TEXT_DECAY**i for i, s in enumerate(sorted(scores, reverse=True)))
           for entry, scores in units.items()}
    if not raw:
        return {}
    top, low = max(raw.values()), min(raw.values())
    return {entry: (s - low) / (top - low) if top > low else 1.0 for entry, s in raw.items()}


def fuse(lists: list[list[Ranked]], weights: list[float], query: str) -> list[Ranked]:
    """One list of the units of ``lists`` (each best first, scores higher = better; the text list first), by
    weighted relative score (or reciprocal rank, METHOD), a share of the text evidence its entry's, exact
    matches up."""
    score: dict[str, float] = {}
    units: dict[str, Ranked] = {}
    entry_share = ENTRY_TEXT_SHARE if METHOD == "relative" and lists else 0.0
    for n, (hits, weight) in enumerate(zip(lists, weights)):
        part = _relative(hits) if METHOD == "relative" else [1 / (FUSION_K + rank) for rank in range(1, len(hits) + 1)]
        own = 1.0 - entry_share if n == 0 else 1.0
        for hit, share in zip(hits, part):
            units.setdefault(hit.id, hit)
            score[hit.id] = score.get(hit.id, 0.0) + weight * own * share
    if entry_share:
        entries = entry_text_scores(lists[0])
        for uid, hit in units.items():  # a unit only the vectors found still carries its entry's text evidence
            score[uid] += weights[0] * entry_share * entries.get(_entry(hit), 0.0)
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
