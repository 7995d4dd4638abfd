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
    "await new yield lambda function async typeof not this self".split()
)
_REFERENCE = re.compile(
    r"""^(?:
        \$[A-Za-z_][A-Za-z0-9_]*$          # $VAR
      | \$\{[^}]*\}$                        # ${VAR}
      | ![A-Za-z][\w.:/\-]*$                # a YAML tag: !vault, !Ref
      | \$\(                                # $(command)
      | %\(?[A-Za-z_]*\)?s?%?$              # %s, %(name)s, %VAR%
      | \{\{.*\}\}$                         # {{ template }}
      | \{[A-Za-z_][A-Za-z0-9_.]*\}$        # {name} (f-string, format)
      | <[^>]*>$                            # <your-token>
      | \[[A-Z_]+\]$                        # [UNK], [MASK]
      | [*xX.\u2022_-]+$                    # ****, xxxx, ..., ----
      | (?:process\.env|os\.environ|os\.getenv|getenv|ENV\[|env\.|secrets\.|vars\.)
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
    return _REFERENCE.match(v) is not None


def secret_looking(value: str) -> bool:
    """Loose test for values found in prose-like context (``the password: x``)."""
    return len(value) >= 6 and any(not c.isalpha() for c in value)


_FILE_LIKE = re.compile(r"^[\w\-./]+\.[A-Za-z]{1,5}$|^v?\d+(?:\.\d+)+$")
_EMAIL = re.compile(r"^[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+$")
_CALL = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*[(\[]")


def code_like(value: str, after: str) -> bool:
    """A bare value that reads as code (a call, attribute, variable), not data."""
    if after in ("(", "[", "{") or _CALL.match(value):
        return True  # get_secret(), os.environ["X"], ${X}
    if _DOTTED_IDENT.match(value):
        return True  # args.password, settings.SECRET_KEY
    if IDENT.match(value) and _SECRET_WORD_IN_IDENT.search(value):
        # token = auth_token, this.sessionToken = sessionToken: a variable.
        return "_" in value or not any(c.isdigit() for c in value)
    return False


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
