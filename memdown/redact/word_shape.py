"""Does a letter-and-digit run read as something a person wrote (issue #27.5)? The word judgement of
``redact.commands``: a value of a recorded command is kept only when every run in it is word-like."""
from __future__ import annotations

import re

HEX_LITERAL = re.compile(r"0x[0-9a-fA-F]{1,16}")
_HEX = re.compile(r"[0-9a-f]+")
_GROUPS = re.compile(r"[A-Za-z]+|\d+")
_CAMEL_PARTS = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[A-Z]")


def word_like(run: str) -> bool:
    """A letter-and-digit run a reader needs and a random secret rarely is: letters in a word's case
    pattern (``XFrameOptionsMiddleware``, ``iOS``, ``PRs``; not ``kJhGfDsAqWeR``), at most three
    letter/digit groups (``python3``, ``200p``, ``1Password``, ``sha256sum``, ``vca1a``; not ``Tr0ub4dor``)
    unless lowercase and hex-like, a hex id up to 16 (``35a82d``), a full git SHA, a hex literal."""
    if run.isdigit() or (run.isalpha() and _cased_like_words(run)):
        return True
    if _HEX.fullmatch(run) and (4 <= len(run) <= 16 or len(run) in (40, 64)) or HEX_LITERAL.fullmatch(run):
        return True
    groups = _GROUPS.findall(run)
    if not all(_cased_like_words(g) for g in groups if g.isalpha()):
        return False
    if len(groups) <= 3:
        return len(groups) < 3 or groups[1].isdigit() or len(groups[1]) <= 2  # 0p20, 1x2; not 1ab2
    return all(len(g) == 1 for g in groups if g.isalpha())  # 13T130736Z: a timestamp, not a key


def _cased_like_words(letters: str) -> bool:
    """Letters in a word's case pattern: any run under 12 letters; a longer one camelCase whose parts
    average 2.5 letters or more (``getUserByIdAndName``; not ``kJhGfDsAqWeRtY``)."""
    upper = sum(c.isupper() for c in letters)
    if upper == 0 or upper == len(letters) or len(letters) < 5:
        return True
    parts = _CAMEL_PARTS.findall(letters)
    if len(letters) >= 12 and len(letters) < 2.5 * len(parts):
        return False
    return upper == 1 and letters[0].isupper() or letters_cost(parts) < WORD_COST


# Above this mean cost (tenths of a bit per letter, ``letter_pairs``) a mixed-case run reads as drawn
# at random (uniform letters cost 47): of 4,564 mixed-case letter runs of 5+ in 5,000 generated
# passwords, 1,167 stay under it; of 326 distinct ones in real commands (tune half), 6 go over.
WORD_COST = 48


def letters_cost(parts: list[str]) -> float:
    """Mean cost of each letter after the one before it in words people write (``letter_pairs``), over
    a camelCase run's parts; an acronym part (``HTTP``) costs nothing, it is no word."""
    from .letter_pairs import ALPHABET, COSTS

    total = count = 0
    for part in parts:
        if len(part) > 1 and part.isupper():
            continue
        letters = "^" + part.lower() + "^"
        for a, b in zip(letters, letters[1:]):
            total += ord(COSTS[27 * ALPHABET.index(a) + ALPHABET.index(b)]) - 48
            count += 1
    return total / count if count else 0.0
