"""Is this value a secret, or a placeholder, a variable or a path? Shared by the context rules.

Precision over paranoia: ``password=args.password``, ``token=$TOKEN``,
``key=get_key()``, ``password=`` with nothing after it, paths and file names
stay; only values that read as data are redacted.
"""
from __future__ import annotations

import re

MARKER_PREFIX = "[REDACTED:"

_NULLISH = frozenset(
    "none null nil undefined true false yes no on off empty required optional "
    "str string bytes int integer bool boolean any secretstr include omit same-origin "
    "await new yield lambda function async typeof not this self changeme changeit value dummy placeholder".split()
)
# A variable expansion or template, quoted or not: it names a value that lives elsewhere.
_EXPANSION = re.compile(
    r"""^(?:
        \$[A-Za-z_][A-Za-z0-9_]*$          # $VAR
      | \$\{[^}]*\}$                        # ${VAR}, ${VAR:-default}, ${VAR:?msg}
      | \$\(                                # $(command)
      | [$\\][0-9]$ | \$[@*#?]$              # $1, \1 (a back-reference), $@, $?
      | %\(?[A-Za-z_]*\)?s?%?$              # %s, %(name)s, %VAR%
      | \{\{.*\}\}$                         # {{ template }}
      | \{[A-Za-z_][A-Za-z0-9_.]*\}$        # {name} (f-string, format)
      | \{\d{0,2}\}$                        # {0}, {} (a positional format field)
      | (?:process\.env|os\.environ|os\.getenv|getenv|ENV\[|env\.|secrets\.|vars\.)
    )""",
    re.X,
)
# A placeholder a person writes where a value goes.
_PLACEHOLDER = re.compile(
    r"""^(?:
        ![A-Za-z][\w.:/\-]*$                # a YAML tag: !vault, !Ref
      | <[^>]*>$                            # <your-token>
      | \[[A-Z_]+\]$                        # [UNK], [MASK]
      | [*xX.\u2022_-]+$                    # ****, xxxx, ..., ----
      | [^\s.…]{0,5}(?:\.{3}|…)$            # sk-..., eyJ..., 0x…: a prefix of at most 5 characters, then elided
      | \?$                                 # a SQL bind parameter: WHERE token = ?
      | (?i:your)[-_][A-Za-z0-9_-]*$        # your-api-key, your_app_secret: where yours goes
    )""",
    re.X,
)
_DOTTED_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SECRET_WORD_IN_IDENT = re.compile(r"pass|pwd|secret|token|key|cred|auth", re.I)
PATH_LIKE = re.compile(r"^(?:~?/|\.\.?/)[^:]*$")


def is_placeholder(value: str) -> bool:
    v = value.strip()
    if not v or v.startswith(MARKER_PREFIX):
        return True
    if v.lower() in _NULLISH:
        return True
    if "${" in v or "{{" in v:
        return True
    return _PLACEHOLDER.match(v) is not None or code_reference(v, quoted=True)


def secret_looking(value: str) -> bool:
    """Loose test for values found in prose-like context (``the password: x``)."""
    return len(value) >= 6 and any(not c.isalpha() for c in value)


_FILE_LIKE = re.compile(r"^[\w\-./]+\.[A-Za-z]{1,5}$|^v?\d+(?:\.\d+)+$")
_EMAIL = re.compile(r"^[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+$")
_CALL = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*[(\[]")


# A word of an identifier: an acronym (HTTP in getHTTPHeader), a capitalised or lower-case word,
# with trailing digits (sha256, v2, key1).
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])\d*|[A-Z]?[a-z]+\d*|\d+")
_IDENT_PREFIX = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")


def _wordlike(letters: str) -> bool:
    """A word or a code abbreviation (passwd, kwargs, lstrip, HTTP), not ``Zphn`` or ``xkcdq``."""
    if letters.isupper() and len(letters) <= 5:
        return True  # an acronym
    low = letters.lower()
    return any(c in "aeiouy" for c in low) and not re.search(r"[^aeiouy]{6}", low)  # strptime


def name_like(ident: str) -> bool:
    """Does each part of a (dotted) identifier read as a name a person wrote -- ``get_secret``,
    ``sessionToken``, ``DB_PASS2``, ``cfg`` -- rather than random characters that happen to fit
    the identifier grammar (``MVDc8uEia875r``, ``IZphnROc.y05lyrv9jx``, ``E1SkHb``)?"""
    for part in ident.strip("$").split("."):
        for piece in part.split("_"):
            if not piece:
                continue
            words = _NAME_WORD.findall(piece)
            if "".join(words) != piece:
                return False
            short_run = 0
            for word in words:
                letters = word.rstrip("0123456789")
                if not letters:
                    continue
                if len(letters) > 3 and not _wordlike(letters):
                    return False  # Etfjg, Zphn
                short_run = short_run + 1 if len(letters) <= 2 and len(words) > 1 else 0
                if short_run >= 2:
                    return False  # VnQ, SkHb: camel humps too short to be words
            if any(c.isdigit() for c in piece.rstrip("0123456789")) and not _DIGIT_WORDS.match(piece):
                return False  # y05lyrv9jx: digits inside a word
    return True


# A hump of an identifier: an acronym with its digits (BF16, FP32, HTTP2), a word (Linear, to), one
# capital with digits (V2, S3), digits, or an underscore.
_DIGIT_RUN = re.compile(r"\d+")
_IDENT_HUMP = re.compile(r"[A-Z]{2,}\d*(?=[A-Z][a-z]|\d|_|$)|[A-Z]?[a-z]+\d*|[A-Z]\d*|\d+|_")


def identifier_of_words(token: str) -> bool:
    """An identifier spelled in words and acronyms (``LinearBF16ToFP32Grad``, ``OAuth2Client``,
    ``HTTP2ServerTransport``) rather than random characters: 80 % of it in humps that are words (with a
    vowel; ``To``, ``Grad``), acronyms of 2-5 capitals or one capital with digits (``V2``), no two
    one-letter humps side by side (``…fL2mNq8…``, how a random key splits) and at most two runs of digits."""
    if not IDENT.match(token) or len(_DIGIT_RUN.findall(token)) > 2:
        return False  # JNQIE5Uyh27ljJFP9562W595…: a random key's digits fall in many places
    humps = _IDENT_HUMP.findall(token)
    if "".join(humps) != token:
        return False
    good, worded, single_before = 0, 0, False
    for hump in humps:
        letters = hump.rstrip("0123456789")
        single = len(letters) == 1 and hump != "_"
        if single and single_before:
            return False
        single_before = single
        if letters.isupper() and len(letters) <= 5 or hump == "_" or hump.isdigit() or \
                len(letters) >= 2 and _wordlike(letters):
            good += len(hump)
        if len(letters) >= 3 and not letters.isupper() and _wordlike(letters):
            worded += len(hump)
    return good * 10 >= len(token) * 8 and worded * 2 >= len(token)  # half of it in words: Linear…Grad


def named_path(piece: str) -> bool:
    """``/data/app/~~Lm5LxP-ZSZ6FcG==/com.app/lib``, ``/var/folders/tn/0h15r9x96q96h4l0dc6v/T``: a path from a
    named root (its first two folders are names), whatever generated folder it holds further down."""
    segments = piece.split("/")
    return piece.startswith(("/", "~/", "./")) and len(segments) >= 4 and "://" not in piece and "@" not in piece \
        and all(len(seg) >= 3 and name_like(seg) for seg in segments[1:3])


IDENT_OR_DOTTED = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_PAIRS = {")": "(", "]": "[", "}": "{"}


def balanced(text: str) -> bool:
    """Every bracket in ``text`` closes, in order."""
    if sum(map(text.count, "([{")) != sum(map(text.count, ")]}")):
        return False  # `x(pw=x(pw=x(…`: told without a Python loop over every character
    stack: list[str] = []
    for c in text:
        if c in "([{":
            stack.append(c)
        elif c in _PAIRS and (not stack or stack.pop() != _PAIRS[c]):
            return False
    return not stack


_DIGIT_WORDS = re.compile(r"^(?:[A-Za-z]+\d+)+[A-Za-z]*$")  # oauth2Token, md5sum, s3Bucket


# A name in code: lower, UPPER_CASE, Capitalized or camelCase with humps of 3+ letters, digits only at its
# end (not vjd8STY), or a name whose humps are real words (RegOpenKeyEx).
CODE_NAME = re.compile(r"[a-z_$][a-z_$]*\d*|[A-Z][A-Z_]*\d*|[A-Za-z_$][a-z_$]*(?:[A-Z][a-z]{2,})*\d*")
_MEMBER_ACCESS = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\?\.|!\.|\.|::|->)[A-Za-z_$][\w$]*)+!?")
_MEMBER_SEP = re.compile(r"\?\.|!\.|\.|::|->")
_CAMEL_NAME = re.compile(r"[a-z_$][a-z0-9_$]*(?:[A-Z][a-z]+\d*)+")  # s3Secret, savedRefresh, getToken
_SECRET_HUMP = re.compile(r"(?:Pass(?:word)?|Pwd|Secret|Token|Key|Creds?|Auth)\d*$")  # s3Key, apiToken: the head says it


def _member_access(value: str) -> bool:
    """``self.password``, ``cfg.S3.SecretKey``, ``Config::Secret``, ``$this->password``, ``a?.b!``: names joined
    by member access, each one a name a person wrote (not ``IZphnROc.y05lyrv9jx``, ``qvj2JwnPV.eu``)."""
    parts = [p for p in _MEMBER_SEP.split(value.rstrip("!")) if p]
    return all((CODE_NAME.fullmatch(p) or words_by_humps(p)) and name_like(p) for p in parts) \
        and not mixed_like_generated(value)


def code_reference(value: str, after: str = "", quoted: bool = False) -> bool:
    """Is ``value`` (followed by ``after``) a reference in code or a variable expansion, not a literal?
    The one judgement every rule that masks a value in key position asks (issue #27.6).

    Quoted or not: a variable expansion (``$VAR``, ``${VAR:-x}``, ``$(cmd)``, ``$1``, ``\\1``, ``%VAR%``,
    ``{{ x }}``, ``{name}``, ``process.env.X``). Unquoted only: a member access of names
    (``suiteRegistry.Password``, ``$this->token``), a call or subscript (``get_secret()``, ``env["X"]``),
    a camelCase name of real words (``savedRefresh``, ``s3Secret``) or a name holding a secret word
    (``auth_token``). A random password (``s3cR3tXy9``, ``hunter2``, ``Tr0ub4dor&3``) is none of them."""
    v = value.strip()
    if v.endswith("`") and not v.startswith("`"):
        v = v.rstrip("`")  # HTTP_AUTHORIZATION=$1` (a markdown code span closes)
    if not v or _EXPANSION.match(v):
        return bool(v)
    if quoted:
        return False
    if after in ("(", "[", "{") and IDENT_OR_DOTTED.match(v):
        # get_secret(), os.environ["X"], LinearBF16ToFP32Grad.apply(x)
        return name_like(v) or all(identifier_of_words(p) for p in v.split("."))
    if _CALL.match(v):
        # get_pw(x), os.environ[ + "X": a call or subscript that closes, or opens a string;
        # U[VVvPHX8H is a password that starts like one.
        prefix = _IDENT_PREFIX.match(v)
        return (prefix is not None and name_like(prefix.group())
                and (balanced(v) or v[-1] in "([{" and after in ("'", '"')))
    if _MEMBER_ACCESS.fullmatch(v):
        return _member_access(v)
    if IDENT.match(v) and _SECRET_WORD_IN_IDENT.search(v) and ("_" in v or not any(c.isdigit() for c in v)):
        return name_like(v)  # token = auth_token, this.sessionToken = sessionToken: a variable
    camel = _CAMEL_NAME.fullmatch(v)
    return bool(camel) and name_like(v) and (words_by_humps(v) or bool(_SECRET_HUMP.search(v)))


# A version or a version range: 9.0.2, ^5.0.0, >=1.2.3, v2.1.0-rc.1, a Debian one (7.88.1-10+deb12u14,
# 1:2.3-4ubuntu0.1, 2.5~bpo11+1). Lowercase tails only: a release name, never a password's mixed case.
_VERSION = re.compile(r"(?:[~^<>=v]{0,2}|\d{1,3}:)\d+(?:\.\d+)+(?:[-+~][a-z0-9]+(?:\.[a-z0-9]+)*)*")


def version_like(value: str) -> bool:
    """Is ``value`` a version or a version range (a known-safe shape wherever it stands)?"""
    return _VERSION.fullmatch(value) is not None


def credential_like(value: str, strong: bool = False) -> bool:
    """Could ``value`` be a password or key (not a word, path, file, email, call)?"""
    v = value
    if len(v) < 8 or is_placeholder(v) or "://" in v or PATH_LIKE.match(v):
        return False
    if _FILE_LIKE.match(v) or _EMAIL.match(v) or _DOTTED_IDENT.match(v) or _CALL.match(v):
        return False
    has_digit = any(c.isdigit() for c in v)
    has_upper = any(c.isupper() for c in v)
    has_lower = any(c.islower() for c in v)
    has_symbol = any(c in "!#$%&*+=?@^~" for c in v)
    if not (has_upper or has_lower):
        return False
    if strong:
        return has_digit or has_symbol
    return (has_digit and has_upper and has_lower and len(v) >= 12) or (
        has_symbol and has_digit) or (has_digit and len(v) >= 20)


_NAME_SEPARATORS = re.compile(r"[/._\\-]+")
_ALNUM_RUN = re.compile(r"[A-Za-z0-9]+")


def mixed_like_generated(piece: str) -> bool:
    """Upper, lower and digits with three or more class switches (a lower letter before an upper one,
    a letter beside a digit) in at most four characters each: how generated passwords look
    (``I6l+0HYQKnv``), not ``Base64Encoder``, ``HTTP2Server`` or ``Python3.11``."""
    for part in _NAME_SEPARATORS.split(piece):  # judged between the separators of paths and names
        chars = "".join(_ALNUM_RUN.findall(part))
        if not (any(c.isupper() for c in chars) and any(c.islower() for c in chars) and any(c.isdigit() for c in chars)):
            continue
        digit_switches = sum(1 for a, b in zip(chars, chars[1:]) if a.isdigit() != b.isdigit())
        switches = digit_switches + sum(1 for a, b in zip(chars, chars[1:]) if a.islower() and b.isupper())
        if switches >= 3 and digit_switches >= 2 and 4 * switches >= len(chars):  # not EchoMimicV2
            return True
    return False


_HUMP = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def words_by_humps(token: str) -> bool:
    """An identifier of words: most characters sit in camel humps of 4+ letters that read as words
    (``LcLmChatAnthropicV13ParamsTools``), which random keys (``QM51BYtatFMb8h4ZEAAM…``) never reach."""
    worded = sum(len(h) for h in _HUMP.findall(token) if len(h) >= 4 and h.isalpha() and name_like(h))
    return worded * 10 >= len(token) * 6
