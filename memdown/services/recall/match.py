"""How strongly a search matched: raw evidence beside the rank-based scores.

Hybrid scores are reciprocal ranks (RRF): the best hit of any query scores about the same, whether it
answers the question or is merely the least unrelated chunk. Whether *anything* matched is decided on
raw signals of the top hits instead:

- ``cosine``: the best cosine similarity between the query's vector and the top hits' vectors;
- ``term_share``: the best share of the query's content words found in one top hit's text.

A search is a weak match when both are below their thresholds (``WEAK_COSINE``, ``WEAK_TERM_SHARE``),
calibrated on the unanswerable questions of bench/retrieval and bench/conversations (dev split;
bench/eval_weak_match.py reports the test split, docs/retrieval.md has the figures).
"""
from __future__ import annotations

import math
from operator import mul
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ...index.table import sql_literal
from ...signals.text import content_tokens  # the one tokenizer of words that carry a topic

if TYPE_CHECKING:
    from ...index.table import ChunkTable

# Calibrated on the dev split (bench/eval_weak_match.py --split dev --grid): the pair that flags the
# most unanswerable questions while flagging at most 10% of answerable ones (77% / 6% on dev).
WEAK_COSINE = 0.42
WEAK_TERM_SHARE = 0.6
TOP = 10  # top hits whose vectors and words are read

@dataclass
class Match:
    weak: bool
    cosine: float | None  # None: no vector evidence (text mode, or vectors not filled in yet)
    term_share: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def term_share(query: str, texts: list[str]) -> float:
    """The best share of the query's content words that one text contains (0 when the query has none)."""
    wanted = content_tokens(query)
    if not wanted:
        return 0.0
    return max((len(wanted & content_tokens(text)) / len(wanted) for text in texts), default=0.0)


def best_cosine(table: "ChunkTable", query_vector: list[float] | None, ids: list[str],
                known: dict[str, list[float]] | None = None) -> float | None:
    """The best cosine between the query vector and the vectors of the rows ``ids`` (None without any).
    ``known``: their vectors by id, taken with the hits (services/recall/search.py); read from the table otherwise."""
    if query_vector is None or not ids:
        return None
    if known is not None and all(i in known for i in ids):
        vectors = [known[i] for i in ids]
    else:
        where = "id IN (" + ", ".join(sql_literal(i) for i in ids) + ")"
        vectors = [row.get("vector") for row in table.table.search().where(where).select(["vector"]).limit(len(ids)).to_list()]
    # sum(map(mul, ...)) adds the same products in the same order as a generator would, in half the time
    q_norm = math.sqrt(sum(map(mul, query_vector, query_vector))) or 1.0
    best: float | None = None
    for vector in vectors:
        if vector is None:
            continue
        norm = math.sqrt(sum(map(mul, vector, vector)))
        if not norm:
            continue
        cos = sum(map(mul, query_vector, vector)) / (norm * q_norm)
        best = cos if best is None else max(best, cos)
    return best


def judge(cosine: float | None, share: float) -> bool:
    """Weak: neither the meaning (cosine) nor the words (term share) of any top hit match the query."""
    close = cosine is not None and cosine >= WEAK_COSINE
    return not close and share < WEAK_TERM_SHARE


def assess(table: "ChunkTable", query: str, query_vector: list[float] | None, hits: list[Any],
           vectors: dict[str, list[float]] | None = None) -> Match:
    """``hits``: the ranked unit hits (anything with ``id`` and ``text``), best first; ``vectors``: the top
    hits' vectors by id when the caller has them."""
    top = hits[:TOP]
    cosine = best_cosine(table, query_vector, [h.id for h in top], vectors)
    share = term_share(query, [h.text for h in top])
    return Match(weak=judge(cosine, share), cosine=None if cosine is None else round(cosine, 4),
                 term_share=round(share, 4))
