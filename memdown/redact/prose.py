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
import unicodedata

from .names import PASSWORD_COMPOUND_ENDS, PASSWORD_WORDS, PASSWORD_WORDS_NOSPACE
from .patterns import LazyPattern, Span
from .values import code_reference, is_placeholder

_CJK = r"\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef"
_TOKEN = LazyPattern(r"[^\s" + _CJK + r"\"'`«»„“”‘’]+")
_SENTENCE_END = LazyPattern(r"[.!?](?:\s|$)|[。！？\n]")
_NOT_DATA = LazyPattern(
    r"^(?:[\w\-./]+\.(?:[a-z][a-z0-9]{0,4}|[A-Z][A-Z0-9]{0,4})|v?\d+(?:[.\-]\d+)*|[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+|[~/.].*|\w+://.*)$"
)
# A name before "=": lowercase words (user=, db.host=), or an environment name (DB_HOST=, PGUSER=);
# digits only at its end, so a random value holding "=" (iup3x=z7c0, T530G=6bo) is not a pair.
_KEY_VALUE = LazyPattern(r"(?:^|[&;?,])(?:[a-z_][a-z_.\-]{2,}|[A-Z][A-Z0-9]*_[A-Z_]*|[A-Z]{6,})[0-9]*=")
_CALL = LazyPattern(r"^[A-Za-z_][\w.]*[(\[]|[()\[\]{}]")
# Acronyms joined by hyphens: an algorithm or standard's name (HMAC-SHA256, AES-256-GCM, UTF-8), not a password.
_ACRONYMS = LazyPattern(r"^(?:[A-Z]{2,8}\d*(?:-[A-Z]{2,8}\d*)+(?:-\d{1,4})?|[A-Z]{2,4}(?:-\d{1,4})+)$")
_TRAILING = ".,;:)]}>!?"
WINDOW = 80
MAX_WORDS = 8


@functools.cache
def _keyword(ignore_case: bool = False) -> re.Pattern[str]:
    spaced = "|".join(PASSWORD_WORDS)
    compound = "|".join(PASSWORD_COMPOUND_ENDS)
    nospace = "|".join(PASSWORD_WORDS_NOSPACE)
    # A one-character class in front lets the scan reject most positions at once.
    words = PASSWORD_WORDS + PASSWORD_COMPOUND_ENDS + PASSWORD_WORDS_NOSPACE
    first = "".join(sorted({c for w in words for c in (w[1:w.index("]")] if w[0] == "[" else w[0])}))
    return re.compile(r"(?=[" + re.escape(first) + r"])(?:(?<![\w\-])(?:" + spaced + r")(?![\w\-])|(?:" + compound
                      + r")(?![\w\-])|(?:" + nospace + "))", re.I if ignore_case else 0)


def _letters(word: str) -> bool:
    """A word of letters and their marks (Bengali "টি", Hindi "है" carry combining vowel signs)."""
    return bool(word) and all(unicodedata.category(c)[0] in "LM" for c in word)


def _credential_token(tok: str) -> bool:
    if len(tok) < 6 or len(tok) > 128 or is_placeholder(tok) or _NOT_DATA.match(tok) or _CALL.search(tok) \
            or code_reference(tok, "") or _ACRONYMS.match(tok):
        return False
    has_alpha = any(c.isalpha() for c in tok)
    has_other = any(c.isdigit() or c in "!#$%&*+?@^~;|" for c in tok)  # hr_recruitment_x is a name
    # key=value (user=admin, DB_HOST=x) and paths; a random value may hold "=" (2moRVCSfj=QL)
    key_like = tok.startswith("=") or bool(_KEY_VALUE.search(tok)) or "/" in tok  # "password=v": the pair rules
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
        if text[m.end():m.end() + 1] == "|" or text[m.start() - 1:m.start()] == "|":
            continue  # grep -E 'password|secret': one word of an alternation, not a sentence
        window = text[m.end():m.end() + WINDOW]
        end = _SENTENCE_END.search(window)
        if end:
            window = window[:end.start() + 1]
        for n, tok in enumerate(_TOKEN.finditer(window)):
            if n >= MAX_WORDS:
                break
            lead = len(tok.group()) - len(tok.group().lstrip("*_~"))  # markdown emphasis: **defined.**
            if n == 0 and tok.start() == 0 and tok.group()[lead:lead + 1] == ":":
                lead += 1  # glued to the word: "hasło:…", "密码：…"
            raw = tok.group()[lead:].rstrip("*_~")
            word = raw.rstrip(_TRAILING) if not raw.endswith(("!", "?")) or len(raw) < 7 \
                else raw.rstrip(".,;:)]}>")
            word = word.rstrip("*_~")  # "**Password Derivation**:": the emphasis closes before the colon
            if _letters(word.rstrip("!?")) or not word or word in ("=", ":", "-", "->", "=>", "—", "–"):
                continue
            if word.startswith("[REDACTED"):
                break
            if _credential_token(word):
                start = m.end() + tok.start() + lead
                spans.append(("password", start, start + len(word)))
            break
    return spans

