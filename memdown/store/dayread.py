"""Reading a day file's entries, for the SessionStart digest and the recorded-turn lookups.

Apart from ``store.daily`` (the writer) so that a session start, which reads the newest days, imports
neither the writer's ledger and git checks nor markdown-it: headings come from ``store.fastblocks``'s
line scan, which gives markdown-it's answer for the shape memdown writes and None otherwise.
"""
from __future__ import annotations

from collections import namedtuple
from pathlib import Path

from .. import fsutil
from .anchors import parse_anchor
from .fastblocks import block_events


class LoggedEntry(namedtuple("LoggedEntry", "day time anchor body")):
    """One ``###`` entry: ``day``, ``time`` (the heading), ``anchor`` (Anchor or None), ``body`` (anchors removed).

    A named tuple, not a dataclass: ``dataclasses`` (with ``inspect``) is ~11 ms of every SessionStart.
    """

    __slots__ = ()


def _headings(text: str) -> list[tuple[int, str]]:
    """(line, title) of every heading: the line scan for the shape memdown writes, markdown-it otherwise.

    SessionStart's digest reads the newest days on every session start; importing and running
    markdown-it there cost more than the rest of the hook (``fastblocks`` gives the same answer).
    """
    events = block_events(text)
    if events is not None:
        return [(start, title) for kind, start, _end, _level, title in events if kind == "h"]
    from .markdown import block_parser

    tokens = block_parser().parse(text)  # headings need no inline parse
    return [
        (t.map[0], tokens[i + 1].content.strip())
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.map and i + 1 < len(tokens)
    ]


def read_entries(path: Path) -> list[LoggedEntry]:
    """The ``###`` entries of one day file, in file order."""
    try:
        text = fsutil.read_text(path, errors="replace")
    except OSError:
        return []
    lines = text.split("\n")
    heads = _headings(text)
    entries: list[LoggedEntry] = []
    for n, (line, title) in enumerate(heads):
        level = len(lines[line]) - len(lines[line].lstrip("#"))
        if level != 3:
            continue
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        raw = "\n".join(lines[line + 1 : end])
        body = "\n".join(ln for ln in raw.split("\n") if ln.strip() and not ln.strip().startswith("<!--"))
        entries.append(LoggedEntry(path.stem, title, parse_anchor(raw), body))
    return entries
