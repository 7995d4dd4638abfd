"""What the full-text index reads for a chunk.

LanceDB's ``simple`` tokenizer splits on punctuation, so ``snake_case`` and
paths already become words; camelCase does not, so its parts are appended
(``OrderService`` also yields ``order service``). The heading path is
included so dates and session times are searchable.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ..dates import date_words

_CAMEL = re.compile(r"\b[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[A-Z]{2,}[a-z][A-Za-z0-9]*\b")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z]+")

# The FTS index settings; part of the index identity (a change rebuilds it).
FTS_OPTIONS: dict = {
    "base_tokenizer": "simple",
    "language": "English",
    "stem": True,
    "remove_stop_words": True,
    "lower_case": True,
    "ascii_folding": True,
    "with_position": False,
    "max_token_length": 40,
}
FTS_VERSION = "v2"  # v2: dates in words


def fts_config_id() -> str:
    return FTS_VERSION + ":" + ",".join(f"{k}={v}" for k, v in sorted(FTS_OPTIONS.items()))


def camel_parts(text: str) -> list[str]:
    return [split for split in map(_camel_split, _CAMEL.findall(text)) if split]


# Cached: the same identifiers recur in chunk after chunk, and a day's date in every chunk of its file.
@lru_cache(maxsize=65536)
def _camel_split(word: str) -> str:
    parts = _PARTS.findall(word)
    return " ".join(p.lower() for p in parts) if len(parts) > 1 else ""


_date_words = lru_cache(maxsize=4096)(date_words)


def fts_text(heading: str, text: str, date: str = "") -> str:
    extra = camel_parts(text)
    tail = ("\n" + " ".join(dict.fromkeys(extra))) if extra else ""
    when = _date_words(date)
    return f"{heading}{' ' + when if when else ''}\n{text}{tail}"


def fts_texts(chunks) -> list[str]:
    """:func:`fts_text` of each chunk (a ``store.chunker.Chunk``, read by attribute)."""
    return [fts_text(c.heading, c.text, c.date) for c in chunks]
