"""Secrets split across lines.

- A value on the line after its key: YAML ``password:\\n  hunter2-Xy9``,
  block scalars ``api_key: |``, pretty-printed JSON ``"token":\\n  "…"``.
- A token wrapped over several lines (a terminal or an editor broke it, or a
  shell ``\\`` continuation): the pieces are joined and the token rules run
  on the joined text; a finding that crosses a line break is mapped back and
  redacted in every piece.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from .values import code_reference, is_placeholder
from .patterns import Rule, Span

# Anchored on the separator at the end of a line (a fast literal class), the
# key is then checked on that line only.
# A password may hold any printable character: the value is the whole line but an enclosing quote
# and a trailing comma (JSON), not a run that stops at the first `,` or `;`.
_NEXT_LINE = re.compile(
    r"[:=][ \t]*(?P<block>[|>][+\-]?[ \t]*)?\r?\n[ \t]+(?P<q>[\"']?)(?P<v>(?!\[REDACTED:)[^\s\"'][^\s]{5,}?)[\"']?,?[ \t]*$",
    re.M,
)
_KEY_AT_LINE_END = re.compile(
    r"(?:^|[{,])[ \t]*(?P<kq>[\"']?)(?P<key>[A-Za-z0-9_.\-]*"
    r"(?i:password|passwd|passphrase|pass|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key"
    r"|auth|credentials?|key))(?P=kq)[ \t]*$",
    re.M,
)


def _next_line(m: re.Match[str], text: str) -> Span | None:
    line_start = text.rfind("\n", max(0, m.start() - 200), m.start()) + 1
    key_match = _KEY_AT_LINE_END.search(text, line_start, m.start()) if m.start() - line_start < 200 else None
    if key_match is None:
        return None
    value = m.group("v")
    if is_placeholder(value) or code_reference(value, text[m.end("v"):m.end("v") + 1], quoted=bool(m.group("q"))):
        return None
    if not (m.group("block") or m.group("q")) and value.endswith(":") or value.startswith(("-", "#")):
        return None  # a nested mapping or a list, not a scalar value
    key = key_match.group("key").lower()
    return ("password" if "pass" in key or "pwd" in key else "secret", m.start("v"), m.end("v"))


NEXT_LINE_RULES: list[Rule] = [(("\n",), _NEXT_LINE, _next_line)]

_PIECE_CHARS = r"[A-Za-z0-9+/=_\-.~]"
_CHAIN = re.compile(
    r"(?<![A-Za-z0-9+/=_\-.~])" + _PIECE_CHARS + r"{4,}(?:\\?\r?\n[ \t]*" + _PIECE_CHARS + r"{4,})+"
)
_PIECE = re.compile(_PIECE_CHARS + r"+")


def find_wrapped(text: str, token_spans: Callable[[str], list[Span]]) -> list[Span]:
    """Spans of tokens that only match once their line breaks are removed."""
    if "\n" not in text:
        return []
    out: list[Span] = []
    for chain in _CHAIN.finditer(text):
        pieces = [(chain.start() + p.start(), p.group()) for p in _PIECE.finditer(chain.group())]
        joined = "".join(piece for _start, piece in pieces)
        if len(joined) < 16 or not any(c.isdigit() for c in joined):
            continue
        cuts: list[int] = []  # offset in ``joined`` where each piece starts
        pos = 0
        for _start, piece in pieces:
            cuts.append(pos)
            pos += len(piece)

        def to_text(i: int) -> int:
            k = max(j for j, cut in enumerate(cuts) if cut <= i)
            return pieces[k][0] + (i - cuts[k])

        for kind, start, end in token_spans(joined):
            if any(start < cut < end for cut in cuts[1:]):
                out.append((kind, to_text(start), to_text(end - 1) + 1))
    return out
