"""Signal phrase tables, one data module per language (``en``, ``de``, ``es``, ``zh``).

Each module holds data only:

- ``PATTERNS``: ``(name, type, confidence, regex, flags)`` rows. Regexes run on
  one sentence at a time, lowercased, with straight quotes and known typos
  folded (``TYPOS``). Flags: ``after_action`` (only when the previous turn
  ran 2+ tools), ``after_reply`` (only when there was a previous turn),
  ``not_after_question`` (not when the assistant just asked a question),
  ``neg_guard`` (not when a negation precedes the match).
- ``TYPOS``: misspelling -> word, applied before matching.
- ``COMMAND_VERBS``: a regex that, matching the text just before a backticked
  command, marks it as a shared command ("run `make test`").

Add a language by adding a module and listing it in ``LANGUAGES``.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from functools import lru_cache

LANGUAGES = ("en", "de", "es", "zh")
FLAGS = frozenset({"after_action", "after_reply", "not_after_question", "neg_guard"})

# Leading fillers people type before the point ("ok. uh. no.", "hmm, actually").
FILL = r"^\W*(?:(?:ok(?:ay)?|oh|ah+|uh+|um+|hmm+|ugh+|argh+|meh|well|so|but|and|hey|sorry|oops|also|pls|please)\b[\s,.!:;-]*)*"
NEGATION_BEFORE = re.compile(r"(?:\bnot|n't|\bno|\bnever|\bnicht|\bnie|\bkein\w*|\bsin|\bnunca|不|没)\W+(?:\w+\W+)?$")


@dataclass(frozen=True)
class Pattern:
    id: str
    lang: str
    type: str
    confidence: int
    regex: re.Pattern[str]
    flags: frozenset[str]


@lru_cache(maxsize=None)
def _module(lang: str):
    return importlib.import_module(f"{__name__}.{lang}")


@lru_cache(maxsize=None)
def patterns(langs: tuple[str, ...] = LANGUAGES) -> tuple[Pattern, ...]:
    out: list[Pattern] = []
    for lang in langs:
        for name, kind, confidence, regex, flags in _module(lang).PATTERNS:
            flagset = frozenset(flags.split()) if flags else frozenset()
            unknown = flagset - FLAGS
            if unknown:
                raise ValueError(f"{lang}.{name}: unknown flags {sorted(unknown)}")
            out.append(Pattern(f"{lang}.{kind}.{name}", lang, kind, int(confidence),
                               re.compile(regex.replace("{FILL}", FILL)), flagset))
    return tuple(out)


@lru_cache(maxsize=None)
def typos(langs: tuple[str, ...] = LANGUAGES) -> dict[str, str]:
    table: dict[str, str] = {}
    for lang in langs:
        table.update(getattr(_module(lang), "TYPOS", {}))
    return table


@lru_cache(maxsize=None)
def command_verbs(langs: tuple[str, ...] = LANGUAGES) -> re.Pattern[str]:
    parts = [getattr(_module(lang), "COMMAND_VERBS", "") for lang in langs]
    return re.compile("|".join(f"(?:{p})" for p in parts if p))
