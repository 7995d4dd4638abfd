"""What the full-text index reads for a chunk, and what a query is matched with.

LanceDB's ``simple`` tokenizer splits on punctuation, so ``snake_case`` and
paths already become words; camelCase does not, so its parts are appended
(``OrderService`` also yields ``order service``). The heading path is
included so dates and session times are searchable.

Two more kinds of terms are appended, to the chunk's text and to the query alike
(:func:`fts_query`), so both sides meet on the same tokens:
- an identifier or path with separators (``settings.local.json``, ``BASH_MAX_TIMEOUT_MS``,
  ``src/constants/cta.ts``) also yields its letters joined (``settingslocaljson``): a rare token,
  so a question that names the identifier reaches the entries holding it, not every entry that
  says "settings" or "json"; a path's segments are joined one by one as well (``ctats``);
- Chinese, Japanese and Korean text has no spaces (or particles glued to words), so the simple
  tokenizer makes a whole sentence one token (dropped past 40 characters): every run of CJK
  characters also yields its overlapping character bigrams (``华为手机`` → ``华为 为手 手机``).
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
FTS_VERSION = "v3"  # v2: dates in words; v3: CJK bigrams and joined identifiers (fts_extra)

# A maximal run of identifier characters; trailing separators are trimmed and a separator must remain
# inside (one linear scan: the former single pattern backtracked cubically on long runs like "-----…")
_RUN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-/:]*")
_SEPARATORS = re.compile(r"[_.\-/:]+")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{2,}")
MAX_JOINED = 40  # the tokenizer's max_token_length: longer joins would be dropped anyway


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


def joined_identifiers(text: str) -> list[str]:
    """Identifiers and paths with separators, letters joined (``a.b_c/d-e.ts`` → ``abcdets``, ``dets``)."""
    out: list[str] = []
    for run in _RUN.findall(text):
        ident = run.rstrip("_.-/:")
        if not _SEPARATORS.search(ident):
            continue
        pieces = [ident, *(seg for seg in ident.split("/") if _SEPARATORS.search(seg))] if "/" in ident else [ident]
        for piece in pieces:
            joined = _SEPARATORS.sub("", piece).lower()
            if 3 <= len(joined) <= MAX_JOINED and joined != piece.lower():
                out.append(joined)
    return out


def cjk_bigrams(text: str) -> list[str]:
    return [run[i:i + 2] for run in _CJK_RUN.findall(text) for i in range(len(run) - 1)]


def fts_extra(text: str) -> list[str]:
    """The terms appended to ``text`` for the full-text index (and to a query): see the module doc."""
    return [*camel_parts(text), *joined_identifiers(text), *cjk_bigrams(text)]


def fts_query(query: str) -> str:
    """A query as the full-text index should see it: the same appended terms as a chunk's text."""
    extra = fts_extra(query)
    return f"{query} {' '.join(dict.fromkeys(extra))}" if extra else query


def fts_text(heading: str, text: str, date: str = "") -> str:
    extra = fts_extra(text)
    tail = ("\n" + " ".join(dict.fromkeys(extra))) if extra else ""
    when = _date_words(date)
    return f"{heading}{' ' + when if when else ''}\n{text}{tail}"


def fts_texts(chunks) -> list[str]:
    """:func:`fts_text` of each chunk (a ``store.chunker.Chunk``, read by attribute)."""
    return [fts_text(c.heading, c.text, c.date) for c in chunks]
