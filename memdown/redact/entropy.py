"""Unlabelled credentials: random-looking tokens with no telling prefix or key.

A base64 or alphanumeric token counts when it is long (>= 20), mixes upper
case, lower case and digits, and its Shannon entropy is near what random
text of that length has. Hex only counts next to a credential word on the
same line and away from hash words: a bare 40-hex string is far more often a
git SHA than a key. Excluded on purpose: data-URI images and other blobs,
lockfile/registry digests (``sha512-…``, ``sha256:…``, ``sha256=…``), and
the object ids that transcripts are full of (``toolu_…``, ``msg_…``).
"""
from __future__ import annotations

import math
import re
from collections import Counter

from .names import key_before, name_says_secret, names_an_id
from .patterns import Rule, Span
from .values import identifier_of_words, name_like, words_by_humps

# A token may start with "-", "_", "+" or "/" (base64, a url-safe Fernet key); flags and paths are words.
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_\-.~%])[A-Za-z0-9_\-+/][A-Za-z0-9+/_\-]{19,}={0,2}(?![A-Za-z0-9+/=_\-~])")
_HEX = re.compile(r"(?<![A-Za-z0-9_\-])(?:[0-9a-f]{32,128}|[0-9A-F]{32,128})(?![A-Za-z0-9_\-])")
_ID_PREFIX = re.compile(r"^(?:[a-z]{2,12}_|chatcmpl-|sha\d*-|md5-)")
_DIGEST_BEFORE = re.compile(r"(?i:sha\d*|md5|blake2b?|base64|integrity|hash|digest|checksum)[\-:=,]\s*$")
_CREDENTIAL_WORD = re.compile(r"(?i:auth|key|token|secret|pass|pwd|cred|log ?in|sign ?in|api|bearer)")
_HASH_WORD = re.compile(
    r"(?i:sha|hash|digest|checksum|commit|md5|integrity|etag|fingerprint|revision|\brev\b|object|blob|tree|"
    r"\bhead\b|merge|uuid|\bgit\b|cherry|build id|trace|span|request)"
)
_LOG_IN = re.compile(r"(?i)(?<!\S)(?:log|sign)[ -]?in(?!\S)")  # "use <hex> to log in": a phrase, never a name or path
_WORD = re.compile(r"[a-z]{5,}|[A-Z][a-z]{3,}|[A-Z]{5,}")
_ID_KEY_BEFORE = re.compile(
    r"(?i:id|uuid|sha\d*|hash|digest|path|file|name|url|etag|version|ref|node|checksum)[\"']?[ \t]*[:=][ \t]*[\"']?$"
)
_MARKER = re.compile(r"\[REDACTED:[^\]]*\]")
MAX_BLOB = 300  # longer runs are data (images, archives), not credentials


_SEPARATORS = re.compile(r"[-/_.+=]+")
_ANSI_REST = re.compile(r"^\d{1,3}m(?=[A-Za-z])")
_HEXISH = re.compile(r"^(?:[0-9a-f]{6,}|[A-Z0-9]+|\d+)$")  # uuid parts, SHAs, numbers, part numbers (2DE2402IX)


def written_by_a_person(token: str) -> bool:
    """Does the token read as something a person wrote: a path (``/var/folders/57/…/T``, every
    ``a/b/c`` whose first two pieces are names), or pieces between separators that are mostly (by
    characters) names (``values.name_like``: words with vowels, acronyms, digits only at a word's
    end, no run of one- or two-letter camel humps), numbers or hex (uuids, SHAs)?

    Counting letter runs as words let random keys pass (``Lkofd``, ``Ytat`` are "words"): a random
    piece fails ``name_like`` on its digits inside words or its short humps, however many of its
    letter runs look like words."""
    token = _ANSI_REST.sub("", token)  # "\x1b[39;1mNoSuchElementException": a colour code's tail
    pieces = [p for p in _SEPARATORS.split(token) if p]
    if not pieces:
        return False
    if token.count("/") >= 2 and len(pieces) >= 3 and len(pieces[0]) >= 3 and \
            all(name_like(p) for p in pieces[:2]):
        return True  # a path, whatever random folder it holds (a macOS temp dir, a uuid)
    safe = sum(len(p) for p in pieces if _HEXISH.match(p) or _reads_as_name(p))
    return safe * 2 >= sum(len(p) for p in pieces)


def _reads_as_name(piece: str) -> bool:
    """``name_like``, and a long piece (16+) must also be mostly humps of real words (``words_by_humps``):
    a base64 run (``hBcdot2xTlrUrtcx2SWthod7dc``) has 1-3 letter humps and vowels enough for
    ``name_like``, never most of its letters in 4+ letter words."""
    if not name_like(piece) or len(piece) < 16 or words_by_humps(piece):
        return name_like(piece)
    humps = [len(h) for h in _LETTER_HUMP.findall(piece)]
    return len(_DIGIT_GROUP.findall(piece)) <= 1 and 4 * sum(humps) >= 11 * len(humps)  # BLEKeyV3CarStateType


_LETTER_HUMP = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_DIGIT_GROUP = re.compile(r"\d+")


def shannon(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def random_looking(token: str) -> bool:
    core = token.rstrip("=")
    n = len(core)
    if n < 20 or n > MAX_BLOB:
        return False
    digits = sum(c.isdigit() for c in core)
    upper = sum(c.isupper() for c in core)
    lower = sum(c.islower() for c in core)
    if not (digits and upper and lower):
        return False
    if written_by_a_person(core):
        return False  # paths and names: memdown/models/all-MiniLM-L6-v2/NOTICE, --no-verify-ssl-certificates
    # Random text of n characters from ~64 symbols has entropy close to log2(n).
    return shannon(core) >= min(4.0, math.log2(n) - 0.9)


def _line_around(text: str, start: int, end: int) -> tuple[str, str]:
    lo = text.rfind("\n", max(0, start - 120), start) + 1 or max(0, start - 120)
    hi = text.find("\n", end, end + 80)
    return text[lo:start], text[end:hi if hi >= 0 else end + 80]


def _token(m: re.Match[str], text: str) -> Span | None:
    token = m.group()
    if token[0] == "/" and text[m.start() - 1:m.start()] == ":":
        return None  # https://…: a URL, whose parts the URL rules judge
    if _ID_PREFIX.match(token) or not random_looking(token):
        return None
    before, after = _line_around(text, m.start(), m.end())
    if _DIGEST_BEFORE.search(before[-30:]) or _ID_KEY_BEFORE.search(before[-40:]) or _FILE_NAME_REST.match(after):
        return None
    key = key_before(before)
    if key and names_an_id(key):
        return None  # fileKey="…", File key: `…`: an id under a key that names one
    if (_CODE_AFTER.match(after) or _CODE_BEFORE.search(before)) and identifier_of_words(token):
        return None  # class LinearBF16ToFP32Grad(…), OAuth2Client.fromJSON(…): a name in code
    return ("high_entropy", m.start(), m.end())


# Where a name stands in code: called, a member read off it, a generic or a path (X(, X.y, X<, X::), or declared,
# made, cast or imported (class X, new X, as X, extends X).
_CODE_AFTER = re.compile(r"^(?:\(|\.[A-Za-z_]|<[A-Za-z_]|::)")
_CODE_BEFORE = re.compile(r"\b(?:class|struct|interface|enum|trait|new|as|extends|implements|import|typeof|instanceof)[ \t]+$")


# The rest of a word that makes the token a file name: layers-D85udCb7.js, O1CN01…_!!27680106.jpg
_FILE_NAME_REST = re.compile(r"[^\s\"'`<>|]{0,40}?\.[a-z][a-z0-9]{0,4}(?![\w.])")


def _hex(m: re.Match[str], text: str) -> Span | None:
    token = m.group()
    if not (any(c.isdigit() for c in token) and any(c.isalpha() for c in token)):
        return None
    before, after = _line_around(text, m.start(), m.end())
    near = _MARKER.sub("", before[-80:] + " " + after[:40])  # "[REDACTED:api_key]" is no cue: stay idempotent
    if _DIGEST_BEFORE.search(before[-30:]) or _HASH_WORD.search(near) or before.endswith("@"):
        return None  # uses: actions/create-github-app-token@<sha>: a pinned version
    key = key_before(before)
    if not (key and (name_says_secret(key) or _CREDENTIAL_WORD.search(key)) or _LOG_IN.search(near)):
        return None  # in key position or "use … to log in" only: not a log id, a file name, a URL near "api"
    return ("hex_secret", m.start(), m.end())


# Text cut to a length (``one_line(x, 200)`` adds "…") can end in half a token
# that no full-token rule matches any more; a token-like tail before the
# ellipsis is dropped when it mixes letters and digits and is not words.
_TRUNCATED = re.compile(r"(?<![A-Za-z0-9_\-+/=:])[A-Za-z0-9_\-+/=:]{12,}(?=…)")


def _truncated(m: re.Match[str], text: str) -> Span | None:
    tail = m.group()
    if not (any(c.isdigit() for c in tail) and any(c.isalpha() for c in tail)):
        return None
    if sum(len(w) for w in _WORD.findall(tail)) / len(tail) >= 0.35:
        return None
    if len([p for p in _SEPARATORS.split(tail) if p]) >= 3 and written_by_a_person(tail):
        return None  # rollout-2025-10-01T12-30-45-<uuid>…: a file name of dates, numbers and hex, cut
    return ("truncated", m.start(), m.end())


ENTROPY_RULES: list[Rule] = [
    ((), _TOKEN, _token),
    ((), _HEX, _hex),
    (("…",), _TRUNCATED, _truncated),
]
