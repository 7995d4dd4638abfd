"""Known-safe shapes (issue #27.6): a finding whose text is one of them is kept, whatever rule found it.

Measured on real transcripts nobody here wrote, the rules changed code and names a reader needs:
``credentials?.password`` (optional chaining), ``Token::new`` (a Rust path after ``token:``),
``FORGOT_PASSWORD: "/auth/forgot-password"`` (a route), ``:password="auth.password"`` (an
attribute), ``ls`` listings of ``<UUID>.session`` files, ``**PASS: Functionality …**``. One
predicate for every rule: a value that is a path, code that continues an expression, a dotted
attribute of names, a word that a sentence goes on after, or a UUID (as a generic token, not after
a secret name: ``api_key=<uuid>`` stays a secret) is no secret.
"""
from __future__ import annotations

import re

from .values import name_like

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?:\.[A-Za-z]\w{0,9})?$")
_ROUTE = re.compile(r"^/[A-Za-z][\w\-]*(?:/[\w\-.:{}]+)*/?$")
_PIECES = re.compile(r"[/\-_.:{}]+")
_DOTTED = re.compile(r"^[a-z_$][\w$]*(?:[?!]?\.[A-Za-z_$][\w$]*)+$")
_NAME = re.compile(r"^-?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_TYPE = re.compile(r"^[A-Z][a-z][A-Za-z0-9_]*(?:<[A-Za-z0-9_, ]*>)?\??$")
_GENERIC_KINDS = frozenset({"high_entropy", "prefixed_token", "url_path_secret", "truncated"})


def known_safe(kind: str, value: str, after: str) -> bool:
    """Is the ``value`` a finding of ``kind`` covers (followed by ``after``) a known-safe shape?"""
    if value.startswith(("?.", "::", ":")) and value[-1:].isalnum():
        return True  # credentials?.email, Token::new: code goes on
    if _ROUTE.match(value) and all(name_like(p) or p.isdigit() for p in _PIECES.split(value) if p):
        return True  # /auth/forgot-password, /api/v1/token: a route or path of names
    if value[:1] in "?*&" and _NAME.match(value[1:]) and name_like(value[1:]):
        return True  # *details.CorrelationToken (Go), ${DB_PASSWORD:?set it}, ${X:-default} (shell)
    if _TYPE.match(value) and name_like(value.rstrip("?")) and \
            (value.endswith("?") or after[:2] in (" =", ") ", ", ") or after[:1] in (")", ",")):
        return True  # pass: String? = null, fun f(pass: String): a type annotation
    if _DOTTED.match(value) and name_like(value.replace("?.", ".").replace("!.", ".")):
        return True  # auth.password, this.state.token: an attribute
    if value.isalpha() and value[:1].isupper() and after[:1] == " " and after[1:2].isalpha() and name_like(value):
        return True  # **PASS: Functionality Validation**: a sentence goes on
    return kind in _GENERIC_KINDS and bool(_UUID.match(value))
