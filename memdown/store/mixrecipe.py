"""What a unit's vector is mixed from when neighbours' vectors are reused (``chunking.neighbour_weight``).

Instead of embedding each unit with its neighbours' text and its heading again (about twice the
text the model reads), each unit's own text and each section heading are embedded once, and a
unit's vector is the normalized sum of its own vector, its section neighbours' vectors times
``neighbour_weight`` and its heading's vector times ``heading_weight`` (``services/upkeep/neighbours.py``).

The recipe is the chunk's ``embed_text``: so its hash (``embed_hash``) changes whenever a part or a
weight changes, and every reader of ``embed_hash`` (reuse of unchanged rows, the embedding cache,
``verify``) keeps working unchanged. Standard library only: the chunker builds it.
"""
from __future__ import annotations

from dataclasses import dataclass

TAG = "\x1fmemdown-mix-v1"
_SEP = "\x1f"


@dataclass(frozen=True)
class Recipe:
    own: str
    previous: str  # "" when the unit is first in its section
    following: str  # "" when the unit is last in its section
    heading: str  # the heading phrase, "" when none is mixed in
    neighbour_weight: float
    heading_weight: float


def compose(recipe: Recipe) -> str:
    parts = (repr(recipe.neighbour_weight), repr(recipe.heading_weight),
             recipe.heading, recipe.previous, recipe.own, recipe.following)
    return _SEP.join([TAG, *(p.replace(_SEP, " ") for p in parts)])


def parse(text: str) -> Recipe | None:
    """The recipe in ``text``, or None when ``text`` is plain text for the model."""
    if not text.startswith(TAG + _SEP):
        return None
    nw, hw, heading, previous, own, following = text[len(TAG) + 1:].split(_SEP)
    return Recipe(own, previous, following, heading, float(nw), float(hw))
