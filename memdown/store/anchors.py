"""Session anchors: ``<!-- session:<id> turn:<uuid> transcript:<path> -->``.

They tie a memory entry to the transcript turn it came from. They are parsed
into fields (index columns), stripped from embedded text, and kept in what
``expand`` shows.
"""
from __future__ import annotations

import re
from collections import namedtuple

# An anchor is one HTML comment whose body is key:value pairs; values have no spaces.
ANCHOR_RE = re.compile(r"<!--\s*(session:\S+(?:\s+[a-z_]+:\S+)*)\s*-->")
_PAIR_RE = re.compile(r"([a-z_]+):(\S+)")


class Anchor(namedtuple("Anchor", "session turn transcript commit cites", defaults=("", "", "", "", ""))):
    """``session``, ``turn``, ``transcript`` (escaped), and what the entry cites in the code: the
    repository's ``commit`` when it was written and its ``cites`` (store/citations.py). Immutable; a
    named tuple, not a frozen dataclass: the SessionStart digest parses anchors, and importing
    ``dataclasses`` cost it ~11 ms."""

    __slots__ = ()

    def render(self) -> str:
        parts = [f"session:{self.session}"]
        if self.turn:
            parts.append(f"turn:{self.turn}")
        if self.transcript:
            parts.append(f"transcript:{self.transcript}")
        if self.commit:
            parts.append(f"commit:{self.commit}")
        if self.cites:
            parts.append(f"cites:{self.cites}")
        return "<!-- " + " ".join(parts) + " -->"


def parse_anchor(text: str) -> Anchor | None:
    """The first anchor in ``text``, or None."""
    match = ANCHOR_RE.search(text)
    if not match:
        return None
    fields = dict(_PAIR_RE.findall(match.group(1)))
    return Anchor(fields.get("session", ""), fields.get("turn", ""), fields.get("transcript", ""),
                  fields.get("commit", ""), fields.get("cites", ""))


def strip_anchors(text: str) -> str:
    return ANCHOR_RE.sub("", text)


def anchor_escape(value: str) -> str:
    """Anchor values cannot hold spaces or ``-->``; paths with spaces are %-escaped."""
    return value.replace("%", "%25").replace(" ", "%20").replace("-->", "--%3E")


def anchor_unescape(value: str) -> str:
    return value.replace("--%3E", "-->").replace("%20", " ").replace("%25", "%")
