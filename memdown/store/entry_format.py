"""The format of a markdown entry file: parse entries out of text, render one entry.

An entry is a heading whose text starts with an id, then an optional session
anchor, a bullet list of ``key: value`` fields and free markdown (the body)::

    ## SIG-20261122-K3F9-0001 · correction
    <!-- session:abc turn:u1 transcript:~/.claude/projects/p/abc.jsonl -->
    - type: correction
    - status: captured

    > no, use pnpm not npm

Structure is read with markdown-it-py token maps (never regexes). Every value
rendered goes through ``memdown.redact.redact``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import fsutil
from .markdown import block_parser, one_line

ID_RE = re.compile(r"^([A-Z]{3}-\d{8}-(?:[A-Z0-9]{4}-)?\d{4,})\b\s*(?:[·:|\u2013\u2014-]\s*)?(.*)$")
_FIELD_RE = re.compile(r"^([A-Za-z_][\w -]{0,30}?):\s*(.*)$", re.S)


def redacted(text: str) -> str:
    from ..redact import redact

    return redact(text)


@dataclass
class Entry:
    id: str
    title: str
    level: int
    section: str = ""
    anchor: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    body: str = ""
    quote: str = ""
    start: int = 0  # 0-based heading line
    end: int = 0  # exclusive
    field_lines: dict[str, tuple[int, int]] = field(default_factory=dict)
    fields_end: int | None = None  # line after the last field (where new fields go)
    header_end: int = 0  # line after the heading and anchor
    body_start: int | None = None  # first line of free markdown after the fields
    quote_end: int | None = None
    after_quote: str = ""  # free markdown after the first blockquote


@dataclass
class Heading:
    level: int
    text: str
    start: int
    end: int


def parse(text: str, level: int) -> tuple[list[Entry], list[Heading]]:
    """Entries at heading ``level`` and every heading of the document."""
    tokens = block_parser().parse(text)
    n_lines = len(text.splitlines())
    lines = text.splitlines()
    headings: list[Heading] = []
    blocks: list[tuple[int, int]] = []  # index ranges of top-level blocks in ``tokens``
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        j = i
        if tok.nesting == 1:
            depth = 0
            while j < len(tokens):
                depth += tokens[j].nesting
                if depth == 0:
                    break
                j += 1
        blocks.append((i, j))
        if tok.type == "heading_open" and tok.map:
            headings.append(Heading(int(tok.tag[1:]), tokens[i + 1].content.strip(), tok.map[0], tok.map[1]))
        i = j + 1

    entries: list[Entry] = []
    section = ""
    current: Entry | None = None
    for a, b in blocks:
        tok = tokens[a]
        if tok.type == "heading_open":
            hlevel = int(tok.tag[1:])
            if current is not None and hlevel <= current.level:
                current.end = tok.map[0]
                entries.append(current)
                current = None
            if hlevel < level:
                section = tokens[a + 1].content.strip()
            elif hlevel == level:
                match = ID_RE.match(tokens[a + 1].content.strip())
                if match:
                    current = Entry(id=match.group(1), title=match.group(2).strip(), level=level,
                                    section=section, start=tok.map[0], end=n_lines,
                                    header_end=tok.map[1])
            continue
        if current is None or not tok.map:
            continue
        _absorb(current, tokens[a:b + 1], lines)
    if current is not None:
        current.end = n_lines
        entries.append(current)
    for entry in entries:
        _finish(entry, lines)
    return entries, headings


def _absorb(entry: Entry, toks, lines: list[str]) -> None:
    tok = toks[0]
    start, end = tok.map
    if tok.type == "html_block" and not entry.fields and entry.body_start is None:
        content = tok.content.strip()
        if content.startswith("<!--") and "session:" in content and not entry.anchor:
            entry.anchor = content
            entry.header_end = end
            return
    if tok.type == "bullet_list_open" and entry.fields_end is None and entry.body_start is None:
        items = _list_fields(toks)
        if items:
            for key, value, span in items:
                entry.fields.setdefault(key, value)
                entry.field_lines.setdefault(key, span)
            entry.fields_end = max(span[1] for _, _, span in items)
            return
    if tok.type == "blockquote_open" and not entry.quote:
        entry.quote = "\n".join(t.content for t in toks if t.type == "inline").strip()
        entry.quote_end = end
    if entry.body_start is None:
        entry.body_start = start


def _list_fields(toks) -> list[tuple[str, str, tuple[int, int]]]:
    out: list[tuple[str, str, tuple[int, int]]] = []
    depth = 0
    item_start = None
    for k, tok in enumerate(toks):
        if tok.type == "list_item_open" and depth == 0:
            item_start = tok.map[0]
        if tok.type in ("list_item_open",):
            depth += 1
        elif tok.type == "list_item_close":
            depth -= 1
        elif tok.type == "inline" and depth == 1 and item_start is not None and toks[k - 1].type == "paragraph_open":
            match = _FIELD_RE.match(tok.content)
            if not match:
                return []
            key = match.group(1).strip().lower().replace(" ", "_").replace("-", "_")
            value = " ".join(match.group(2).split())
            out.append((key, value, (item_start, toks[k - 1].map[1])))
            item_start = None
    return out


def _finish(entry: Entry, lines: list[str]) -> None:
    if entry.body_start is not None:
        entry.body = "\n".join(lines[entry.body_start:entry.end]).strip()
    if entry.quote_end is not None:
        entry.after_quote = "\n".join(lines[entry.quote_end:entry.end]).strip()


# --- rendering --------------------------------------------------------------------

def render_value(value: object) -> str:
    if isinstance(value, (list, tuple, set)):
        value = ", ".join(str(v) for v in value)
    return one_line(redacted(str(value)))


def render_entry(level: int, entry_id: str, title: str, fields: dict[str, object], *,
                 anchor: str = "", quote: str = "", body: str = "") -> str:
    out = [f"{'#' * level} {entry_id} · {one_line(redacted(title), 100) or entry_id}"]
    if anchor:
        out.append(anchor)
    for key, value in fields.items():
        if value is None or value == "" or value == [] or value == ():
            continue
        out.append(f"- {key}: {render_value(value)}")
    text = "\n".join(out) + "\n"
    if quote:
        quoted = "\n".join("> " + line if line.strip() else ">" for line in redacted(quote).strip().splitlines())
        text += "\n" + quoted + "\n"
    if body:
        text += "\n" + redacted(body).strip() + "\n"
    return text + "\n"


def read_entries(path: Path, level: int) -> list[Entry]:
    try:
        text = fsutil.read_text(Path(path), errors="replace")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return []
    return parse(text, level)[0]

