"""Where a bare secret value ends, and whether what stopped it opens code (used by ``general``).

A password may hold any printable character; the syntax around it, not a fixed set of
characters, says where it ends.
"""
from __future__ import annotations

from .patterns import LazyPattern

# A password may hold any printable character, so an accepted bare value after a secret name
# runs on to the next space, quote or shell operator (`redis_pass: abc&def(1)` is one value).
# The character that introduced the pair also ends it: `?a=1&password=v&b=2`,
# `Server=x;Password=v;Db=y`, `f(user=u, password=v, x)`; closing punctuation at the very end
# (`f(password=v)`, `{pw: v},`) is the code around the value.
_BARE_TAIL = LazyPattern(r"(?:[^\s\"'`\\&|]|&(?!&)|\|(?!\|))*")
_PAIR_ENDS = {"?": "&#", "&": "&#", ";": ";", ",": ",", "(": ",)", "{": ",}", "[": ",]", "|": "|"}
_CLOSERS = ",;.:)]}>"
_NEXT_PAIR = LazyPattern(r"[&;,][A-Za-z_][\w.\-]{0,80}[=:]")  # `v&next=1`, `v;Database=y`


def call_closes(text: str, opener: int) -> bool:
    """Does the bracket at ``opener`` close on its line (``get(a, "b")``), outside quotes?"""
    if text[opener] not in "([{":
        return False
    line_end = text.find("\n", opener)
    return _first_close(text[opener:line_end if line_end != -1 else len(text)]) >= 0


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
        elif c in ")]}":
            if not stack or stack.pop() != c:
                return -1  # V+[ZAz}3: not a bracket that closes
            if not stack:
                return i
    return -1


def bare_end(text: str, pair_start: int, value_end: int) -> int:
    """Where a bare secret value really ends (see ``_BARE_TAIL``); never before ``value_end``."""
    ends = _PAIR_ENDS.get(text[pair_start - 1], "") if pair_start else ""
    end = _BARE_TAIL.match(text, value_end).end()
    for c in ends:
        cut = text.find(c, value_end, end)
        if cut != -1:
            end = cut
    following = _NEXT_PAIR.compiled().search(text, value_end, end)
    if following:
        end = following.start()
    while end > value_end and text[end - 1] in _CLOSERS:
        end -= 1
    return end
