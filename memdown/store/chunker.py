"""Markdown → chunks, with markdown-it-py for structure (never regex).

A chunk is a heading section, or a piece of a long section split on block
boundaries (paragraphs, list items, fences). Chunk ids are content-addressed
(source, heading path, text, ordinal), so shifting line numbers changes no id
and appending a section adds exactly its own chunks.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..config import DEFAULTS
from ..dates import date_phrase
from .anchors import Anchor, parse_anchor, strip_anchors
from .fastblocks import Event, block_events
from .kinds import kind_for
from .mixrecipe import Recipe, compose

HEADING_SEPARATOR = " > "
# Bump when what a chunk holds or embeds changes: indexes built before rebuild.
# 3: no empty units from the blank tail of an oversized block; 4: entry_text (one entry whole, its first chunk's
# id covering it); 5: entry_text taken out again, ids per chunk as in 3 (a new number: 4's indexes rebuild).
CHUNKER_VERSION = 5
_DATE_RE = re.compile(r"(\d{4}-\d{2}-\d{2})")
# Any HTML comment: a block made only of comments (and anchors) carries no chunk
# text, so adding or removing one only shifts line numbers and embeds nothing.
_HTML_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)
# One parser for every file. Block structure is all the chunker reads (a heading's
# title is its inline token's raw content), so the core rules that parse inline
# markup into child tokens are off: about a quarter of the parse time, same blocks.
_md = None  # the parser, made on first use: a no-op `memdown index` never imports markdown-it or YAML


def _parser():
    global _md
    if _md is None:
        from markdown_it import MarkdownIt

        _md = MarkdownIt("commonmark", {"html": True}).enable("table").disable(["inline", "text_join"])
    return _md


@dataclass
class Chunk:
    id: str
    source: str
    kind: str
    heading: str  # heading path, e.g. "2026-03-14 > Session 14:30 > 14:35"
    start_line: int  # 1-based, inclusive, in the file as it is on disk
    end_line: int
    section_start: int
    section_end: int
    date: str
    session: str
    turn: str
    transcript: str
    text: str  # what search shows and full-text search reads (anchors stripped)
    embed_text: str  # what the model reads: heading context + neighbours + text (or a mixrecipe)
    vector: list[float] | None = None  # filled by the indexer

    @cached_property
    def embed_hash(self) -> str:
        """Computed once: a build reads it for the record, the cache key and the row."""
        return hashlib.sha256(self.embed_text.encode("utf-8")).hexdigest()


CHUNKING = DEFAULTS["chunking"]


@dataclass
class ChunkOptions:
    """Defaults are the ``chunking`` section of ``memdown.config.DEFAULTS`` (the one place they live)."""

    max_chars: int = CHUNKING["max_chars"]
    context_chars: int = CHUNKING["context_chars"]
    heading_context: bool = CHUNKING["heading_context"]
    neighbour_weight: float = CHUNKING["neighbour_weight"]  # > 0: mix neighbours' vectors (store/mixrecipe.py)
    heading_weight: float = CHUNKING["heading_weight"]


@dataclass
class _Block:
    start: int  # 0-based line in the body
    end: int  # exclusive
    text: str = ""  # a group's chunk text when grouping already made it (a group of one piece)


@dataclass
class Section:
    path: list[str]
    start: int  # 0-based body line of the heading (or 0 for the preamble)
    end: int  # exclusive
    blocks: list[_Block] = field(default_factory=list)


@dataclass
class ParsedFile:
    metadata: dict[str, Any]
    body_offset: int  # lines of frontmatter before the body
    lines: list[str]  # body lines
    sections: list[Section]


def split_frontmatter(text: str) -> tuple[dict[str, Any], str, int]:
    """(metadata, body, number of lines before the body)."""
    import frontmatter

    handler = frontmatter.detect_format(text, frontmatter.handlers)
    if handler is None:
        return {}, text, 0
    try:
        fm, body = handler.split(text)
    except ValueError:
        return {}, text, 0
    try:
        loaded = handler.load(fm)
        metadata = loaded if isinstance(loaded, dict) else {}
    except Exception:  # malformed YAML is the user's to fix; the body still indexes
        metadata = {}
    offset = text[: len(text) - len(body)].count("\n")
    return metadata, body, offset


def parse_markdown(text: str) -> ParsedFile:
    metadata, body, offset = split_frontmatter(text)
    lines = body.split("\n")
    events = block_events(body)  # the common daily-log shape, read without markdown-it
    if events is None:
        events = _markdown_it_events(body)
    sections: list[Section] = [Section(path=[], start=0, end=len(lines))]
    stack: list[tuple[int, str]] = []  # (level, title)
    for kind, start, end, level, title in events:
        if kind == "h":
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            sections[-1].end = start
            sections.append(Section(path=[t for _, t in stack], start=start, end=len(lines)))
        else:
            sections[-1].blocks.append(_Block(start, end))
    return ParsedFile(metadata=metadata, body_offset=offset, lines=lines, sections=sections)


def _markdown_it_events(body: str) -> list[Event]:
    """Headings and top-level blocks (a list's top-level items one by one), as markdown-it parses them."""
    tokens = _parser().parse(body)
    events: list[Event] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open" and tok.level == 0:
            title = tokens[i + 1].content.strip() if i + 1 < len(tokens) else ""
            start = tok.map[0] if tok.map else 0
            events.append(("h", start, start + 1, int(tok.tag[1]), title))
            i += 3  # heading_open, inline, heading_close
            continue
        if tok.level == 0 and tok.map and tok.nesting >= 0:
            if tok.type in ("bullet_list_open", "ordered_list_open"):
                # Split long lists on item boundaries: collect the top-level items.
                depth = 0
                j = i
                while j < len(tokens):
                    t = tokens[j]
                    if t.type == "list_item_open" and t.level == tok.level + 1 and t.map:
                        events.append(("b", t.map[0], t.map[1], 0, ""))
                    depth += t.nesting
                    j += 1
                    if depth == 0:
                        break
                i = j
                continue
            events.append(("b", tok.map[0], tok.map[1], 0, ""))
        i += 1
    return events


def _block_text(lines: list[str], start: int, end: int) -> str:
    return "\n".join(lines[start:end]).strip("\n")


def _without_anchors(text: str) -> str:
    """``strip_anchors`` that skips the regex when there is no comment at all (most blocks)."""
    return strip_anchors(text) if "<!--" in text else text


def _only_comments(text: str) -> bool:
    return "<!--" in text and not _HTML_COMMENT_RE.sub("", text).strip()


def _split_oversized(lines: list[str], block: _Block, max_chars: int) -> list[_Block]:
    """A single block longer than the limit is cut on line boundaries."""
    pieces: list[_Block] = []
    start = block.start
    size = 0
    for n in range(block.start, block.end):
        add = len(lines[n]) + 1
        if size and size + add > max_chars:
            pieces.append(_Block(start, n))
            start, size = n, 0
        size += add
    pieces.append(_Block(start, block.end))
    return pieces


def _group_blocks(lines: list[str], blocks: list[_Block], max_chars: int) -> list[_Block]:
    groups: list[_Block] = []
    current: _Block | None = None
    size = 0
    for block in blocks:
        raw = _block_text(lines, block.start, block.end)
        text = _without_anchors(raw).strip()
        if not text or _only_comments(text):
            continue
        pieces = [(block, raw, text)]
        if len(text) > max_chars:
            pieces = []
            for piece in _split_oversized(lines, block, max_chars):
                piece_raw = _block_text(lines, piece.start, piece.end)
                pieces.append((piece, piece_raw, _without_anchors(piece_raw).strip()))
        for piece, piece_raw, piece_text in pieces:
            if not piece_text:
                continue  # e.g. the blank line a list item's map ends with, cut off on its own
            piece_len = len(piece_raw)
            if current is not None and size + piece_len > max_chars:
                groups.append(current)
                current = None
            if current is None:
                current, size = _Block(piece.start, piece.end, piece_text), piece_len
            else:
                current.end, current.text = piece.end, ""  # several pieces: the text is made from the lines
                size += piece_len
    if current is not None:
        groups.append(current)
    return groups


def file_date(source: str, metadata: dict[str, Any]) -> str:
    match = _DATE_RE.search(source.rsplit("/", 1)[-1])
    if match:
        return match.group(1)
    value = metadata.get("date")
    if value:
        found = _DATE_RE.search(str(value))
        if found:
            return found.group(1)
    return ""


def chunk_markdown(source: str, text: str, options: ChunkOptions | None = None) -> list[Chunk]:
    """All chunks of one file; ``source`` is its path relative to the memory root."""
    options = options or ChunkOptions()
    parsed = parse_markdown(text)
    lines, offset = parsed.lines, parsed.body_offset
    kind = kind_for(source)
    date = file_date(source, parsed.metadata)
    when = date_phrase(date) if options.heading_context else ""
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for section in parsed.sections:
        groups = _group_blocks(lines, section.blocks, options.max_chars)
        if not groups:
            continue  # a heading with no body text of its own
        section_raw = _block_text(lines, section.start, section.end)
        anchor = parse_anchor(section_raw) or Anchor()
        heading = HEADING_SEPARATOR.join(section.path)
        texts = [g.text or _without_anchors(_block_text(lines, g.start, g.end)).strip() for g in groups]
        prefix = (f"{when}: {heading}" if when else heading) if options.heading_context and heading else ""
        section_end = max(section.start + 1, _last_nonblank(lines, section.start, section.end)) + offset
        for n, (group, body) in enumerate(zip(groups, texts)):
            key = f"{source}\x00{heading}\x00{body}"
            ordinal = seen.get(key, 0)
            seen[key] = ordinal + 1
            chunk_id = hashlib.sha256(f"{key}\x00{ordinal}".encode("utf-8")).hexdigest()[:20]
            chunks.append(
                Chunk(
                    id=chunk_id,
                    source=source,
                    kind=kind,
                    heading=heading,
                    start_line=group.start + offset + 1,
                    end_line=_last_nonblank(lines, group.start, group.end) + offset,  # not the trailing blank a list map includes
                    section_start=section.start + offset + 1,
                    section_end=section_end,
                    date=date,
                    session=anchor.session,
                    turn=anchor.turn,
                    transcript=anchor.transcript,
                    text=body,
                    embed_text=(_mix_recipe(prefix, texts, n, options) if options.neighbour_weight > 0
                                else _embed_text(prefix, texts, n, options.context_chars)),
                )
            )
    return chunks


def _last_nonblank(lines: list[str], start: int, end: int) -> int:
    """1-based number of the last non-blank line in [start, end)."""
    for n in range(end - 1, start - 1, -1):
        if lines[n].strip():
            return n + 1
    return start + 1


def _mix_recipe(prefix: str, texts: list[str], n: int, options: ChunkOptions) -> str:
    """With ``neighbour_weight``: the unit, its section neighbours and heading, to be embedded apart and mixed."""
    return compose(Recipe(texts[n], texts[n - 1] if n > 0 else "", texts[n + 1] if n + 1 < len(texts) else "",
                          prefix, options.neighbour_weight, options.heading_weight))


def _embed_text(prefix: str, texts: list[str], n: int, ctx: int) -> str:
    """Heading path (``prefix``: date phrase and heading, or ""), then the chunk, with a little of its section neighbours.

    Neighbours come only from the same section, so an edit elsewhere in the
    file never changes what this chunk embeds.
    """
    parts: list[str] = [prefix] if prefix else []
    if ctx and n > 0:
        parts.append("… " + texts[n - 1][-ctx:])
    parts.append(texts[n])
    if ctx and n + 1 < len(texts):
        parts.append(texts[n + 1][:ctx] + " …")
    return "\n".join(parts)
