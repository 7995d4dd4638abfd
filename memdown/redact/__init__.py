"""Secret redaction for everything memdown writes.

``redact(text)`` replaces secrets with ``[REDACTED:<kind>]`` markers;
``should_skip(text)`` says a text opted out of memory (``<memdown:skip>``).
Detectors, strongest first:

- ``patterns``: provider token formats (prefix and shape) and blocks (PEM and
  PuTTY keys, ``<private>…</private>``), replaced whole;
- ``context``: values after a key or flag (``password=…``, ``.env`` lines,
  ``mysql -p…``, ``docker login -p …``, ``user:pass@`` URLs, auth headers,
  "the password is …"), only the value replaced;
- ``multiline``: a value on the line after its key, a token wrapped across lines;
- ``entropy``: unlabelled random-looking tokens (and hex next to a credential word);
- ``maintained``: Yelp's detect-secrets vendor plugins, in processes that ask
  for them with ``enable_maintained_detectors()`` (the detached worker, which
  redacts whole turns and the transcript archive). Off by default: its import
  costs ~0.3 s, too much for a hook, and paid on a first ``redact`` under a
  file lock it held the lock long enough for other writers to time out. The
  other four layers alone hold the whole labelled corpus.

Overlapping findings merge into one span (never leak a tail). Idempotent: no
rule matches a marker, so ``redact(redact(x)) == redact(x)``. Linear time:
each pattern starts at a boundary its own class cannot cross, and unbounded
scans (PEM, ``<private>``) resume after their match.
"""
from __future__ import annotations

import re

from ..optout import SKIP_MARKER, should_skip
from . import maintained
from .context import CONTEXT_RULES, MARKER_PREFIX, value_start
from .entropy import ENTROPY_RULES
from .command_text import find_command_lines
from .formats import FORMAT_RULES, find_numbered
from .decode import find_decoded
from .general import GENERAL_RULES, data_value
from .url_paths import find_url_segments
from .safe import known_safe
from .idioms import IDIOM_RULES
from .listing import KIND as LISTED, find_credential_file_lines, find_credential_pairs, find_listing_values
from .multiline import NEXT_LINE_RULES, find_wrapped
from .names import name_says_secret
from .patterns import BLOCK_RULES, TOKEN_RULES, Rule, Span
from .prose import find_prose
from .sql import KIND as SQL_CLAUSE, find_sql_credentials

__all__ = ["SKIP_MARKER", "MARKER_PREFIX", "marker", "should_skip", "find_secrets", "redact", "redact_lines",
           "redact_structure", "enable_maintained_detectors"]


_RULES: list[Rule] = (BLOCK_RULES + TOKEN_RULES + CONTEXT_RULES + NEXT_LINE_RULES + GENERAL_RULES + IDIOM_RULES
                      + FORMAT_RULES + ENTROPY_RULES)
_JOINED_RULES: list[Rule] = TOKEN_RULES
_CERTAIN = len(BLOCK_RULES) + len(TOKEN_RULES)  # rules before this priority find vendor formats and key blocks
_use_maintained = False


def marker(kind: str) -> str:
    return f"{MARKER_PREFIX}{kind}]"


def enable_maintained_detectors(enabled: bool = True) -> bool:
    """Add detect-secrets to this process's redaction, loading it now (never lazily
    under a lock). Returns whether it is available."""
    global _use_maintained
    _use_maintained = enabled and maintained.available()
    return _use_maintained


def _scan(text: str, rules: list[Rule]) -> list[tuple[int, int, int, str]]:
    low = text.lower()
    found: list[tuple[int, int, int, str]] = []
    for priority, (needles, pattern, handler) in enumerate(rules):
        if needles and not any(n in low for n in needles):
            continue
        pos = 0
        while True:
            m = pattern.search(text, pos)
            if m is None:
                break
            span = handler(m, text)
            if span is not None and span[2] > span[1]:
                found.append((span[1], priority, span[2], span[0]))
                pos = m.end()
            else:
                # Rejected ("password= password: x"): rescan from the value, which
                # may itself start the real finding.
                pos = max(m.start() + 1, value_start(m))
    return found


def _token_spans(text: str) -> list[Span]:
    return [(kind, start, end) for start, _p, end, kind in _scan(text, _JOINED_RULES)]


def _find_raw(text: str) -> list[Span]:
    return [(kind, start, end) for start, _p, end, kind in _scan(text, _RULES)] + find_prose(text) \
        + find_url_segments(text) + find_listing_values(text) + find_credential_pairs(text) + find_credential_file_lines(text) + find_sql_credentials(text)


def find_secrets(text: str) -> list[Span]:
    """Non-overlapping ``(kind, start, end)`` spans that ``redact`` replaces.

    The earliest-starting finding of our own rules names a merged span, ties
    going to the more specific rule; detect-secrets names only what it alone found.
    Text with JSON or percent escapes is scanned a second time decoded
    (``decode.py``), the findings mapped back onto the escaped characters.
    """
    if not text:
        return []
    found = _scan(text, _RULES)
    extra = find_prose(text) + find_url_segments(text) + find_wrapped(text, _token_spans) + find_command_lines(text) \
        + find_listing_values(text) + find_credential_pairs(text) + find_credential_file_lines(text) + find_sql_credentials(text)
    extra += find_decoded(text, _find_raw) + find_numbered(text, _find_raw)
    own = len(extra)
    if _use_maintained:
        extra += maintained.find(text)
    found += [(start, len(_RULES) - 1 if i < own else len(_RULES), end, kind)
              for i, (kind, start, end) in enumerate(extra)]
    # A vendor format or key block is certain; what the generic rules found may be a known-safe shape.
    # A command's value ("arg"), a config's (LISTED) or a SQL clause's was judged by its shape and place already.
    found = [f for f in found if f[1] < _CERTAIN or f[3] in ("arg", LISTED, SQL_CLAUSE) or
             not known_safe(f[3], text[f[0]:f[2]], text[f[2]:f[2] + 24], text[max(0, f[0] - 160):f[0]])]
    found.sort()
    maintained_priority = len(_RULES)
    merged: list[list] = []  # [kind, start, end, named by the maintained layer]
    for start, priority, end, kind in found:
        ours = priority < maintained_priority
        if merged and start < merged[-1][2]:
            last = merged[-1]
            last[2] = max(last[2], end)
            if ours and last[3]:
                last[0], last[3] = kind, False  # our kinds say more (slack_webhook, not ds_slack_token)
        else:
            merged.append([kind, start, end, not ours])
    return [(k, s, e) for k, s, e, _m in merged]


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    spans = find_secrets(text)
    if not spans:
        return text
    once = _replaced(text, spans)
    # A secret holding a quote can hide a command's later words from the shell parser; with the
    # secret gone they read as words: a second look at the commands keeps redact() idempotent.
    again = [s for s in find_command_lines(once) if not once.startswith(MARKER_PREFIX, s[1])]
    return _replaced(once, again) if again else once


def redact_lines(text: str, limit: int) -> str:
    """The start of ``text`` that a one-line excerpt of ``limit`` characters shows, redacted while it
    still has its lines. A tool's error text is stored flattened (``a | b``); a config listing in it is
    only recognizable line by line (``masterauth PW``, a k8s ``- name:``/``value:`` pair, an OpenVPN
    auth file), so it is read, like every recorded text, by ``redact`` before its lines are joined."""
    cut = text.find("\n", limit * 4)
    return redact(text if cut < 0 else text[:cut])


def _replaced(text: str, spans: list[Span]) -> str:
    out: list[str] = []
    pos = 0
    for kind, start, end in spans:
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(marker(kind))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def redact_structure(value: object, key: str | None = None) -> object:
    """A JSON value (a tool input, an archived transcript line) with every string
    redacted, and the whole value of a key whose name says secret
    (``{"password": "…"}``, ``{"Authorization": "Basic …"}``) replaced."""
    if isinstance(value, str):
        if key in ("command", "cmd"):  # a shell command: values kept only in a safe shape (redact.commands)
            from .commands import redact_command

            value = redact_command(value)
        strength = name_says_secret(key) if key else None
        if strength and (data_value(value, strength, True) or
                         any(data_value(part, strength, True) for part in value.split()[1:2])):
            return marker("password" if strength == "strong" else "secret")
        return redact(value)
    if isinstance(value, list):
        return [redact_structure(v) for v in value]
    if isinstance(value, dict):
        return {k: redact_structure(v, k if isinstance(k, str) else None) for k, v in value.items()}
    return value
