"""Secrets in the idiom of one format or tool, where no ``name = value`` pair says so (used by ``redact``).

- a markdown table row: a cell naming a secret, then the cell holding it (``| DB_PASSWORD | v |``);
- Dockerfile's space form, ``ENV DB_PASSWORD v`` (the rest of the line is the value);
- .NET appSettings, ``<add key="DbPassword" value="v" />``;
- HTTP basic auth as a (user, password) pair: ``auth=('bob', 'v')``, ``HTTPBasicAuth('bob', 'v')``;
- PowerShell, ``ConvertTo-SecureString "v" -AsPlainText``.

Values are judged as everywhere else (``general.data_value``): placeholders, variables and code stay.
"""
from __future__ import annotations

import re

from .general import data_value
from .names import name_says_secret
from .patterns import LazyPattern, Rule, Span

# The lookahead holds every word names.name_says_secret knows, so a pipe-dense line is not judged
# cell by cell (the handler is Python; the lookahead is not).
_TABLE = LazyPattern(r"(?:(?<=\|)|(?<=\|[ \t])|(?<=\|[ \t]{2})|(?<=\|[ \t]{3}))(?P<q>`?)"
                     r"(?=[\w.\-]{0,80}?(?i:pas|pw|psw|psk|secret|cred|salt|dsn|key|tok|auth|pat|bearer|cookie|session))"
                     r"(?P<key>[A-Za-z_][\w.\-]{0,80})(?P=q)[ \t]*\|"
                     r"[ \t]*(?P<vq>`?)(?P<v>[^|`\s]{1,400})(?P=vq)[ \t]*(?=\||$)", re.M)
_DOCKER_ENV = LazyPattern(r"^[ \t]*ENV[ \t]+(?P<key>[A-Za-z_][\w.\-]{0,80})[ \t]+(?P<v>[^\s=][^\n]{0,400}?)[ \t]*$", re.M)
_APP_SETTING = LazyPattern(r"""\bkey[ \t]*=[ \t]*(?P<q>["'])(?P<key>[\w.:\-]{1,80})(?P=q)[ \t]+value[ \t]*=[ \t]*"""
                           r"""(?P<vq>["'])(?P<v>[^"'\n]{1,400})(?P=vq)""", re.I)
_AUTH_PAIR = LazyPattern(r"""(?:\bauth[ \t]*=[ \t]*|\b(?:HTTP(?:Basic|Digest|Proxy)Auth|BasicAuth)[ \t]*)\([ \t]*"""
                         r"""(?P<uq>["'])[^"'\n]{0,200}(?P=uq)[ \t]*,[ \t]*(?P<q>["'])(?P<v>[^"'\n]{1,400})(?P=q)""")
_SECURE_STRING = LazyPattern(r"""\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?(?P<q>["'])(?P<v>[^"'\n]{1,400})(?P=q)""",
                             re.I)


def _kind(key: str) -> str:
    low = key.lower()
    return "password" if ("pass" in low or "pw" in low) else "secret"


def _named_cell(quoted: bool):
    def handler(m: re.Match[str], text: str) -> Span | None:
        strength = name_says_secret(m.group("key"))
        value = m.group("v")
        if strength is None or not data_value(value, strength, quoted) or value.lower() == m.group("key").lower():
            return None
        return (_kind(m.group("key")), m.start("v"), m.end("v"))

    return handler


def _password(m: re.Match[str], text: str) -> Span | None:
    return ("password", m.start("v"), m.end("v")) if data_value(m.group("v"), "strong", True) else None


IDIOM_RULES: list[Rule] = [
    (("|",), _TABLE, _named_cell(False)),
    (("env ",), _DOCKER_ENV, _named_cell(False)),
    (("value",), _APP_SETTING, _named_cell(True)),
    (("auth",), _AUTH_PAIR, _password),
    (("convertto-securestring",), _SECURE_STRING, _password),
]
