"""Text helpers shared by detection, grouping and lookups (standard library only).

Tokens, similarity, typo folding, "use X / don't use Y" polarity terms and
stable fingerprints. Everything here works on plain strings, so the hook
paths (failure lookup, mining) can use it without heavy imports.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

from ..store.markdown import block_parser  # noqa: F401  (re-exported: signals and learning use it from here)
from ..controls import SEQUENCES as _ANSI
from ..store.markdown import one_line as _flat

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u00b4": "'", "`": "`", "\u201c": '"', "\u201d": '"',
                         "\u201e": '"', "\u00ab": '"', "\u00bb": '"', "\u2014": " - ", "\u2013": " - ",
                         "\u00a0": " ", "\u202a": "", "\u202c": ""})
_WS = re.compile(r"[ \t\r\f\v]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")
_WORD = re.compile(r"[^\W_][\w'.+@/-]*[^\W_]|[^\W_]", re.UNICODE)
MAX_CHARS = 20_000  # similarity looks at the start of very long texts only
_VOLATILE = re.compile(r"^(?:\d+(?:[.:]\d+)*|0x[0-9a-f]+|[0-9a-f]{7,}|\d+ms|\d+s)$")

STOPWORDS = frozenset("""
a an the and or but if then else of to in on at by for with from into onto as is are was were be been being
it its it's this that these those there here we you i me my our your they them he she his her us do does did
done doing have has had having can could should would will shall may might must not no yes ok okay so just
please pls also very really actually about like some any all more most than too what which who when where why
how use using used instead don't dont never always lets let's let ok. via per up out get got make sure
der die das ein eine und oder aber nicht ist sind war wir ich du es mit von zu im in am auf für bitte
el la los las un una y o pero no es son era con de del en por para que se lo
""".split())

_SUFFIXES = ("ing", "ed", "es", "s")
# Words every tool failure shares; they say nothing about which failure it is.
GENERIC = frozenset({"exit", "code", "error", "failed", "fail", "failure", "command", "line", "bash", "bin", "sh",
                     "/bin/sh", "/bin/bash", "/system/bin/sh", "usr", "tool", "output", "run", "running"})


def one_line(text: str, limit: int = 0) -> str:
    """One line of ``text``, cut to ``limit``; a text that is cut is redacted WHOLE first.

    Signals quote transcripts in excerpts. Cut first, a token that straddles the cut is no longer the
    shape any rule knows, and the later redaction of the stored signal would miss the half that stays.
    """
    flat = _flat(text)
    if limit and len(flat) > limit:
        from ..redact import redact

        flat = redact(flat)
    return _flat(flat, limit)


def normalize(text: str) -> str:
    """NFKC, straight quotes, no ANSI, lowercase, single spaces."""
    text = unicodedata.normalize("NFKC", _ANSI.sub("", text or "")).translate(_QUOTES)
    return _WS.sub(" ", text).strip().lower()


_CJK = re.compile(r"[\u4e00-\u9fff]")


@lru_cache(maxsize=1)
def _t2s():
    try:
        import opencc  # maintained Traditional -> Simplified converter (one table for both scripts)

        return opencc.OpenCC("t2s").convert
    except Exception:  # noqa: BLE001 - without it, Traditional text still matches what the tables share
        return None


def to_simplified(text: str) -> str:
    """Traditional Chinese folded to Simplified, so one zh table serves both; other text unchanged."""
    if not _CJK.search(text or ""):
        return text
    convert = _t2s()
    return convert(text) if convert else text


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text or "")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def tokens(text: str) -> list[str]:
    """Words (lowercase, light stemming) plus CJK character bigrams."""
    return list(_tokens(text or ""))


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[str, ...]:
    norm = normalize(text[:MAX_CHARS])
    out: list[str] = []
    for run in _CJK.findall(norm):
        out.extend(run[i:i + 2] for i in range(max(1, len(run) - 1)))
    for word in _WORD.findall(_CJK.sub(" ", norm)):
        word = word.strip("'.-/")
        if word and not _VOLATILE.match(word):
            out.append(_stem(word))
    return tuple(out)


def content_tokens(text: str) -> set[str]:
    return set(_content(text or ""))


@lru_cache(maxsize=4096)
def _content(text: str) -> frozenset[str]:
    return frozenset(t for t in _tokens(text) if t not in STOPWORDS and len(t) > 1)


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def containment(a: set[str], b: set[str]) -> float:
    """Share of the smaller set found in the other."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


# --- typo folding -----------------------------------------------------------------

TRIGGER_WORDS = ("remember", "memory", "actually", "instead", "always", "convention", "anymore",
                 "wrong", "never", "perfect", "exactly", "working", "incorrect", "memorize", "forget",
                 "stop", "using", "grouped", "repository")


def _damerau1(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by at most one edit or one transposition."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diffs = [i for i in range(la) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        return len(diffs) == 2 and diffs[1] == diffs[0] + 1 and a[diffs[0]] == b[diffs[1]] and a[diffs[1]] == b[diffs[0]]
    if la > lb:
        a, b = b, a
    for i in range(len(b)):
        if b[:i] + b[i + 1:] == a:
            return True
    return False


_LATIN_WORD = re.compile(r"[a-zA-Z']+")


def fold_typos(text: str, table: dict[str, str], vocabulary: tuple[str, ...] = TRIGGER_WORDS) -> str:
    """Replace known misspellings (``table``) and one-edit typos of trigger words."""
    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        if word in table:
            return table[word]
        return _fuzzy(word, vocabulary) if len(word) >= 5 else word

    return _LATIN_WORD.sub(fix, text)


@lru_cache(maxsize=8192)
def _fuzzy(word: str, vocabulary: tuple[str, ...]) -> str:
    for good in vocabulary:
        # never longer than the word it folds into: "incorrecta", "perfecto", "memoria" are other languages
        if len(good) >= 6 and len(good) - 1 <= len(word) <= len(good) and word[0] == good[0] and _damerau1(word, good):
            return good
    return word


# --- polarity: "use X", "don't use Y", "X instead of Y" --------------------------

_TERM = r"`?([\w@./:+-]*\w)`?"
_SKIP = r"(?:(?:the|a|an|any|our|your|der|die|das|den|el|la|los|las)\s+)?"
_POS_RULES = [
    re.compile(r"\b(?:use|using|prefer|switch to|go with|run|nimm|verwende|benutze|nutze|usa|utiliza|usar)\s+" + _SKIP + _TERM),
    re.compile(r"\b(?:always)\s+(?:use\s+|run\s+)?" + _SKIP + _TERM),
    re.compile("(?:用|使用)([A-Za-z0-9_./@+-]+)"),
]
_NEG_RULES = [
    re.compile(r"\b(?:don't|do not|dont|never|stop|avoid|no more|not|nicht|kein|keine|keinen|nie|niemals|nunca|no)\s+"
               r"(?:ever\s+)?(?:use\s+|using\s+|run\s+|call\s+|mehr\s+|uses\s+|usar\s+|verwenden\s+|benutzen\s+)?" + _SKIP + _TERM),
    re.compile(r"\b(?:instead of|rather than|over|statt|anstatt|anstelle von|en lugar de|en vez de)\s+" + _SKIP + _TERM),
    re.compile(r"\bfrom\s+" + _SKIP + _TERM + r"\s+to\b"),
    re.compile("(?:不要用|别用|不要使用|不用)([A-Za-z0-9_./@+-]+)"),
]
_POLAR_STOP = STOPWORDS | {"it", "them", "that", "this", "one", "thing", "same", "way", "approach", "more",
                           "ask", "asking", "stop", "wait", "sure", "longer", "anymore", "working", "work"}


def polar_terms(text: str) -> dict[str, int]:
    """``{"pnpm": 1, "npm": -1}`` for "use pnpm, not npm"; negative wins on conflict."""
    return dict(_polar(text or ""))


@lru_cache(maxsize=4096)
def _polar(text: str) -> tuple[tuple[str, int], ...]:
    norm = fold_typos(normalize(text[:MAX_CHARS]), {"dont": "don't", "doesnt": "doesn't"})
    terms: dict[str, int] = {}
    for rule in _NEG_RULES:
        for match in rule.finditer(norm):
            term = match.group(1).strip("`'\".,:;").lower()
            if term and term not in _POLAR_STOP and len(term) > 1:
                terms[term] = -1
    for rule in _POS_RULES:
        for match in rule.finditer(norm):
            term = match.group(1).strip("`'\".,:;").lower()
            start = match.start()
            before = norm[max(0, start - 12):start]
            if re.search(r"(?:n't|not|never|no|nicht|kein\w*)\s+$", before):
                continue
            if term and term not in _POLAR_STOP and len(term) > 1:
                terms.setdefault(term, 1)
    return tuple(terms.items())


def conflicting_terms(a: dict[str, int], b: dict[str, int]) -> list[str]:
    return sorted(t for t in a.keys() & b.keys() if a[t] != b[t])


def agreeing_terms(a: dict[str, int], b: dict[str, int]) -> list[str]:
    return sorted(t for t in a.keys() & b.keys() if a[t] == b[t])


def similar(a: str, b: str, threshold: float = 0.6) -> bool:
    """Near-duplicates: same polarity on a shared term (and no conflict), or token overlap."""
    pa, pb = polar_terms(a), polar_terms(b)
    if pa and pb:
        if conflicting_terms(pa, pb):
            return False
        agree = agreeing_terms(pa, pb)
        if any(pa[t] < 0 for t in agree) or len(agree) >= 2:
            return True
    ta, tb = content_tokens(a), content_tokens(b)
    if jaccard(ta, tb) >= threshold:
        return True
    return min(len(ta), len(tb)) >= 3 and containment(ta, tb) >= max(0.8, threshold)


def fingerprint(text: str) -> str:
    """Stable across rephrasing of the same rule ("use pnpm not npm" / "don't use npm, use pnpm")."""
    polar = polar_terms(text)
    if polar:
        key = "|".join(f"{'+' if v > 0 else '-'}{t}" for t, v in sorted(polar.items()))
    else:
        key = " ".join(sorted(content_tokens(text))[:12])
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]
