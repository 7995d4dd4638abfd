"""Scan the decoded form of escaped text, redact in the original.

``{"\\u0070assword": "x"}`` and ``pass%77ord=x`` hide the name a rule looks for.
``decoded_view`` undoes JSON string escapes (``\\uXXXX``, ``\\"``, ``\\\\``, ``\\/``,
``\\n``, ``\\t``) and percent-encoding (``%XX``, ASCII only) and keeps a map from
each decoded character back to the original characters it came from, so a span
found in the decoded text redacts exactly the escaped characters in the original.
"""
from __future__ import annotations

import bisect
import re

from .patterns import LazyPattern, Span

_ESCAPE = LazyPattern(r"\\u[0-9a-fA-F]{4}|\\[\"\\/nt]|%[0-7][0-9a-fA-F]")
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t"}
# Only worth a second scan when an escape hides a letter, a quote or a separator.
_TELLING = LazyPattern(r"\\u00[2-7][0-9a-fA-F]|%(?:[2-7][0-9a-fA-F])|\\\"")


def _decode_one(esc: str) -> str:
    if esc.startswith("\\u"):
        return chr(int(esc[2:], 16))
    if esc.startswith("%"):
        return chr(int(esc[1:], 16))
    return _SIMPLE[esc[1]]


class DecodedView:
    """The decoded text and the map back to the original."""

    def __init__(self, text: str) -> None:
        pieces: list[str] = []
        self.dec_at: list[int] = []   # decoded index of each escape's character
        self.orig_at: list[int] = []  # original start of that escape
        self.orig_len: list[int] = []
        pos = dec = 0
        for m in _ESCAPE.finditer(text):
            pieces.append(text[pos:m.start()])
            dec += m.start() - pos
            char = _decode_one(m.group())
            self.dec_at.append(dec)
            self.orig_at.append(m.start())
            self.orig_len.append(len(m.group()))
            pieces.append(char)
            dec += 1
            pos = m.end()
        pieces.append(text[pos:])
        self.text = "".join(pieces)

    def _orig(self, i: int, end: bool) -> int:
        k = bisect.bisect_right(self.dec_at, i) - 1
        if k < 0:
            return i + (1 if end else 0)
        if self.dec_at[k] == i:
            return self.orig_at[k] + (self.orig_len[k] if end else 0)
        return self.orig_at[k] + self.orig_len[k] + (i - self.dec_at[k] - 1) + (1 if end else 0)

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        return self._orig(start, False), self._orig(end - 1, True)


def decoded_view(text: str) -> DecodedView | None:
    if "\\" not in text and "%" not in text or not _TELLING.search(text):
        return None
    return DecodedView(text)


def find_decoded(text: str, finder) -> list[Span]:
    """Spans ``finder`` reports on the decoded form, mapped back onto ``text``."""
    view = decoded_view(text)
    if view is None or view.text == text:
        return []
    out: list[Span] = []
    for kind, start, end in finder(view.text):
        o_start, o_end = view.to_original(start, end)
        out.append((kind, o_start, o_end))
    return out
