"""Passwords in prose, in any of ~30 languages: keyword in context.

"Das Passwort für den Router ist sommer!12", "数据库的密码是 sommer!12", "Hasło do VPN
to Tortuga_21": after a word for *password* (``names.PASSWORD_WORDS``), the first
credential-looking token within the next few words of the same sentence is the
secret. No per-language grammar: copulas and prepositions are words (letters
only) and are skipped; the secret is the first token that mixes letters with digits
or symbols and is not a path, URL, e-mail, version, file name or code.
"""
from __future__ import annotations

import functools
import re

from .names import PASSWORD_WORDS, PASSWORD_WORDS_NOSPACE
from .patterns import LazyPattern, Span
from .values import code_like, is_placeholder

_CJK = r"\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef"
_TOKEN = LazyPattern(r"[^\s" + _CJK + r"\"'`«»„“”‘’]+")
_SENTENCE_END = LazyPattern(r"[.!?](?:\s|$)|[。！？\n]")
_NOT_DATA = LazyPattern(
    r"^(?:[\w\-./]+\.[A-Za-z]{1,5}|v?\d+(?:[.\-]\d+)*|[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+|[~/.].*|\w+://.*)$"
)
_CALL = LazyPattern(r"^[A-Za-z_][\w.]*[(\[]|[()\[\]{}]")
_TRAILING = ".,;:)]}>!?"
WINDOW = 80
MAX_WORDS = 8


@functools.cache
def _keyword(ignore_case: bool = False) -> re.Pattern[str]:
    spaced = "|".join(PASSWORD_WORDS)
    nospace = "|".join(PASSWORD_WORDS_NOSPACE)
    # A one-character class in front lets the scan reject most positions at once.
    first = "".join(sorted({w[0] for w in PASSWORD_WORDS + PASSWORD_WORDS_NOSPACE}))
    return re.compile(r"(?=[" + re.escape(first) + r"])(?:(?<![\w\-])(?:" + spaced + r")(?![\w\-])|(?:" + nospace + "))",
                      re.I if ignore_case else 0)


def _credential_token(tok: str) -> bool:
    if len(tok) < 6 or len(tok) > 128 or is_placeholder(tok) or _NOT_DATA.match(tok) or _CALL.search(tok) \
            or code_like(tok, ""):
        return False
    has_alpha = any(c.isalpha() for c in tok)
    has_other = any(c.isdigit() or c in "!#$%&*+?@^~;|" for c in tok)  # hr_recruitment_x is a name
    key_like = "=" in tok.rstrip("=") or tok.endswith("=") and not tok.endswith("==") or "/" in tok  # paths
    return has_alpha and has_other and not key_like


def find_prose(text: str) -> list[Span]:
    """Spans of passwords written in a sentence after a word for *password*."""
    spans: list[Span] = []
    last_end = -10
    low = text.lower()
    same_length = len(low) == len(text)  # a few characters lower into two ("İ"): then match case-blind
    for m in (_keyword().finditer(low) if same_length else _keyword(True).finditer(text)):
        if m.start() - last_end <= 2:
            last_end = m.end()
        if text.endswith("[REDACTED:", 0, m.start()):
            continue  # the kind inside a marker: stay idempotent
            continue  # "password=password=…": the window of the previous keyword covered it
        last_end = m.end()
        if text.endswith("[REDACTED:", 0, m.start()):
            continue  # the kind inside a marker: stay idempotent
        window = text[m.end():m.end() + WINDOW]
        end = _SENTENCE_END.search(window)
        if end:
            window = window[:end.start() + 1]
        for n, tok in enumerate(_TOKEN.finditer(window)):
            if n >= MAX_WORDS:
                break
            raw = tok.group().strip("*_~")  # markdown emphasis: **defined.**
            word = raw.rstrip(_TRAILING) if not raw.endswith(("!", "?")) or len(raw) < 7 \
                else raw.rstrip(".,;:)]}>")
            if word.rstrip("!?").isalpha() or not word or word in ("=", ":", "-", "->", "=>", "—", "–"):
                continue
            if word.startswith("[REDACTED"):
                break
            if _credential_token(word):
                start = m.end() + tok.start() + (len(tok.group()) - len(tok.group().lstrip("*_~")))
                spans.append(("password", start, start + len(word)))
            break
    return spans

