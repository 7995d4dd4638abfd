"""The block structure of plain daily-log markdown without markdown-it, or None when unsure.

A fresh clone indexes every file, and markdown-it's pure-Python parse was most of that time
(docs/scale.md). The chunker reads only block structure: ATX headings with their titles, and the line
ranges of top-level blocks (paragraphs, one-line HTML comments, fences, top-level list items). Files
memdown writes use a small subset of markdown, so this module reads that subset line by line and gives
**exactly** markdown-it's answer for it (tests/test_fastblocks.py compares the two on generated and real
files, and the chunker's golden test stays byte-identical).

Anything outside the subset returns None and the caller parses with markdown-it as before: indentation
outside a list item, tabs, block quotes, other HTML, tables, thematic breaks, setext underlines, ordered
lists, ``*``/``+`` bullets, link reference definitions, multi-line comments, CR or NUL characters, a BOM at the start or in a heading,
and a paragraph line directly under a list item (CommonMark's lazy continuation, which depends on the
item's last block). A False "sure" costs only speed; a wrong answer would change chunks, so every rule
here errs toward None.
"""
from __future__ import annotations

import re

# (kind, start, end, level, title): kind "h" is a heading (end = start + 1), "b" a top-level block.
Event = tuple[str, int, int, int, str]

_HEADING = re.compile(r"(#{1,6})(?:[ \t]|$)")
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)$")
_ORDERED = re.compile(r"\d{1,9}[.)](?:[ \t]|$)")
_REFERENCE = re.compile(r" {0,3}\[")
# Lines that could be a table's delimiter row, a thematic break or a setext underline.
_RULE_CHARS = frozenset("|:-=*_ \t")
_UNSURE_FIRST = frozenset(">*+_=|[\\")  # block quotes, other bullets and breaks, tables, references


def _blank(line: str) -> bool:
    return not line.strip(" \t")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _heading_title(line: str, level: int) -> str:
    """markdown-it's heading content: trailing spaces off, a closing run of # off when a space precedes it."""
    rest = line[level:].rstrip(" \t")
    without_closing = rest.rstrip("#")
    if len(without_closing) < len(rest) and without_closing and without_closing[-1] in " \t":
        rest = without_closing
    return rest.strip()


def _item_start(line: str) -> bool:
    """A non-empty ``- `` bullet with its content at column 2 (the one bullet shape memdown writes)."""
    return line.startswith("- ") and len(line) > 2 and line[2] not in " \t"


def _fence_end(lines: list[str], start: int, count: int, marker: str) -> int | None:
    """Exclusive end of the fence opened at ``start``, or None when its shape is unusual."""
    char, size = marker[0], len(marker)
    closing = re.compile(re.escape(char) + "{" + str(size) + r",}[ \t]*$")
    for n in range(start + 1, count):
        line = lines[n]
        if closing.match(line):
            return n + 1
        if line.startswith(" ") and closing.match(line.lstrip(" ")):
            return None  # an indented closing fence: leave the exact rules to markdown-it
    return count  # unclosed: the fence runs to the end of the document


# long: one pass over the lines with a branch per block kind; split up it would hide the shared cursor
def block_events(body: str) -> list[Event] | None:
    """Headings and top-level blocks of ``body`` in markdown-it's line numbers, or None when unsure."""
    if "\r" in body or "\x00" in body or body.startswith("\ufeff"):
        return None
    lines = body.split("\n")
    # markdown-it counts a last line that has no newline only when it holds more than spaces and tabs.
    count = len(lines) - 1 if body.endswith("\n") or _blank(lines[-1]) else len(lines)
    events: list[Event] = []
    i = 0
    while i < count:
        line = lines[i]
        if _blank(line):
            i += 1
            continue
        first = line[0]
        if first in " \t" or first in _UNSURE_FIRST or "\t" in line[: _indent(line) + 1]:
            return None
        if set(line) <= _RULE_CHARS:
            return None
        if first == "#":
            heading = _HEADING.match(line)
            if heading is None or "\ufeff" in line:  # markdown-it trims a BOM off a title, Python's strip does not
                return None
            level = len(heading.group(1))
            events.append(("h", i, i + 1, level, _heading_title(line, level)))
            i += 1
            continue
        if first == "<":
            if not line.startswith("<!--") or "-->" not in line:
                return None
            events.append(("b", i, i + 1, 0, ""))
            i += 1
            continue
        if first in "`~":
            fence = _FENCE.match(line)
            if fence is not None:
                if first == "`" and "`" in fence.group(2):
                    return None
                end = _fence_end(lines, i, count, fence.group(1))
                if end is None:
                    return None
                events.append(("b", i, end, 0, ""))
                i = end
                continue
        if first == "-":
            if not _item_start(line):
                return None
            items = _list_items(lines, i, count)
            if items is None:
                return None
            events.extend(("b", start, end, 0, "") for start, end in items)
            i = items[-1][1]
            continue
        if _ORDERED.match(line) or _REFERENCE.match(line):
            return None
        end = _paragraph_end(lines, i, count)
        if end is None:
            return None
        events.append(("b", i, end, 0, ""))
        i = end
    return events


def _interrupts(line: str) -> bool | None:
    """True when ``line`` ends a paragraph (or a list) right under it, False when it continues it, None if unsure."""
    first = line[0]
    if first in " \t" or first in _UNSURE_FIRST or set(line) <= _RULE_CHARS:
        return None
    if first == "#":
        return True if _HEADING.match(line) else None
    if first == "<":
        return True if line.startswith("<!--") and "-->" in line else None
    if first in "`~":
        fence = _FENCE.match(line)
        if fence is not None:
            return None if first == "`" and "`" in fence.group(2) else True
    if first == "-":
        return True if _item_start(line) else None
    if _ORDERED.match(line):
        return None
    return False


def _paragraph_end(lines: list[str], start: int, count: int) -> int | None:
    n = start + 1
    while n < count and not _blank(lines[n]):
        verdict = _interrupts(lines[n])
        if verdict is None:
            return None
        if verdict:
            break
        n += 1
    return n


def _list_items(lines: list[str], start: int, count: int) -> list[tuple[int, int]] | None:
    """The (start, end) of each item of the bullet list at ``start``; an item's range takes in the blank
    lines after it, as markdown-it's map does."""
    items: list[tuple[int, int]] = []
    item = start
    n = start + 1
    after_blank = False
    while n < count:
        line = lines[n]
        if _blank(line):
            after_blank = True
            n += 1
            continue
        if "\t" in line[: _indent(line) + 1]:
            return None
        indent = _indent(line)
        if indent >= 2:
            after_blank = False
            n += 1
            continue
        if indent == 1:
            return None
        if set(line) <= _RULE_CHARS:
            return None  # "- - -" is a thematic break, not an item
        if _item_start(line):
            items.append((item, n))
            item, after_blank = n, False
            n += 1
            continue
        if not after_blank and _interrupts(line) is not True:
            return None  # lazy continuation, or something unusual, right under the item
        break
    items.append((item, n))
    return items
