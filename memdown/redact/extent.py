"""Where a bare secret value ends, and whether what stopped it opens code (used by ``general``).

A password may hold any printable character; the syntax around it, not a fixed set of
characters, says where it ends.
"""
from __future__ import annotations

import re

from .patterns import LazyPattern

# A password may hold any printable character, so an accepted bare value after a secret name
# runs on to the next space, quote or shell operator (`redis_pass: abc&def(1)` is one value).
# The character that introduced the pair also ends it: `?a=1&password=v&b=2`,
# `Server=x;Password=v;Db=y`, `f(user=u, password=v, x)`; closing punctuation at the very end
# (`f(password=v)`, `{pw: v},`) is the code around the value.
_BARE_TAIL = LazyPattern(r"[^\s\"'`\\&|]*(?:(?:&(?!&)|\|(?!\|))[^\s\"'`\\&|]*)*")  # runs, not char by char
_PAIR_ENDS = {"?": "&#", "&": "&#", ";": ";", ",": ",", "(": ",)", "{": ",}", "[": ",]", "|": "|"}
_CLOSERS = ",;.:)]}>"
_NEXT_PAIR = LazyPattern(r"[&;,][A-Za-z_][\w.\-]{0,80}[=:]")  # `v&next=1`, `v;Database=y`
# Every candidate after a secret name is judged, and a line can hold one every few characters
# (`pw=x(pw=x(…`, `password=ab1&password=ab1&…`): each look is bounded so a scan stays linear.
# A call closes within _WINDOW characters and _MAX_DEPTH brackets or is not a call; a value's
# tail is read _WINDOW characters at a time, and past that only its plain characters count.
_WINDOW = 512
_MAX_DEPTH = 8
# An HTML tag right after a value is markup around it (`pw=v<br>next`, `v</td><td>`): the common
# inline tags only, so a password that holds `<x>` is still one value.
_TAG_AFTER = LazyPattern(r"</?(?:br|b|i|em|strong|code|kbd|sub|sup|span|div|p|td|th|tr|li|a|u|s|del|ins|mark|small|hr)"
                         r"\b[^<>\n]{0,80}/?>", re.I)
_PLAIN_REST = LazyPattern(r"[^\s\"'`,;&|<>(){}\[\]\\]*")


def call_closes(text: str, opener: int) -> bool:
    """Does the bracket at ``opener`` close on its line (``get(a, "b")``), outside quotes?"""
    if text[opener] not in "([{":
        return False
    stop = min(len(text), opener + _WINDOW)
    line_end = text.find("\n", opener, stop)
    segment = text[opener:line_end if line_end != -1 else stop]
    if not any(c in segment for c in ")]}"):
        return False  # the common `pw=x(` that never closes: no Python loop over it
    return _first_close(segment) >= 0


def _first_close(line: str) -> int:
    """Index where the bracket that opens ``line`` closes, or -1 (quotes skipped)."""
    stack: list[str] = []
    quote = ""
    for i, c in enumerate(line):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            stack.append(")]}"["([{".index(c)])
            if len(stack) > _MAX_DEPTH:
                return -1  # `(((((…`: no call a person writes nests this deep on one line
        elif c in ")]}":
            if not stack or stack.pop() != c:
                return -1  # V+[ZAz}3: not a bracket that closes
            if not stack:
                return i
    return -1


def bare_end(text: str, pair_start: int, value_end: int) -> int:
    """Where a bare secret value really ends (see ``_BARE_TAIL``); never before ``value_end``."""
    ends = _PAIR_ENDS.get(text[pair_start - 1], "") if pair_start else ""
    # The cuts first, inside a window, then the tail up to the nearest: each step reads at most
    # _WINDOW characters however long the line (the tail sees one past `stop` for its `&(?!&)`).
    stop = min(len(text), value_end + _WINDOW)
    following = _NEXT_PAIR.search(text, value_end, stop)
    if following:
        stop = following.start()
    for c in ends:
        cut = text.find(c, value_end, stop)
        if cut != -1:
            stop = cut
    end = min(_BARE_TAIL.match(text, value_end, stop + 1).end(), stop)
    if "<" in text[value_end:end]:
        tag = _TAG_AFTER.search(text, value_end, end)
        end = tag.start() if tag else end
    if end - value_end == _WINDOW:
        end = _PLAIN_REST.match(text, end).end()  # a long value runs on through its plain characters
    while end > value_end and text[end - 1] in _CLOSERS:
        end -= 1
    return end
