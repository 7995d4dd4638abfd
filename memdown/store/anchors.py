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
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


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
    """The first anchor in ``text``, or None. ``session`` and ``turn`` come back decoded (they are keys
    compared with what a transcript says); ``transcript`` stays escaped (``anchor_unescape`` it to read)."""
    match = ANCHOR_RE.search(text)
    if not match:
        return None
    fields = dict(_PAIR_RE.findall(match.group(1)))
    return Anchor(anchor_unescape(fields.get("session", "")), anchor_unescape(fields.get("turn", "")),
                  fields.get("transcript", ""), fields.get("commit", ""), fields.get("cites", ""))


def strip_anchors(text: str) -> str:
    return ANCHOR_RE.sub("", text)


def _needs_escape(char: str) -> bool:
    return char == "%" or char.isspace() or not char.isprintable()


def _percent(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogateescape"))


def anchor_escape(value: str) -> str:
    """A value an anchor can hold and ``anchor_unescape`` gives back exactly: ``%``, every whitespace
    (space, tab, newline, U+2028…) and every non-printable character (controls, ESC, zero-width marks,
    a file name's undecodable bytes) become ``%XX`` of their UTF-8 bytes, and ``-->`` cannot end the
    comment. Other characters stay readable."""
    if not any(_needs_escape(c) for c in value) and "-->" not in value:
        return value
    return "".join(_percent(c) if _needs_escape(c) else c for c in value).replace("-->", "--%3E")


def anchor_unescape(value: str) -> str:
    """Inverse of ``anchor_escape``; also reads anchors written before it encoded more than ``%``, space
    and ``-->`` (those were already ``%25``, ``%20``, ``--%3E``, and a bare ``%`` never stood alone)."""
    if "%" not in value:
        return value
    return _PERCENT_RUN.sub(_decode_run, value)


def _decode_run(match: re.Match[str]) -> str:
    return bytes.fromhex(match.group(0).replace("%", "")).decode("utf-8", "surrogateescape")
