"""Expand a search hit to its whole section, read from the markdown itself."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ...errors import AmbiguousIdError, NotFoundError, UsageError
from ...index.table import ChunkTable
from ...redact import redact
from ...store.anchors import parse_anchor
from ...store.chunker import ChunkOptions, chunk_markdown
from ...store.reader import UnreadableFile, path_of, read_memory_file

_HEX = re.compile(r"^[0-9a-f]+$")


@dataclass
class Expansion:
    id: str
    source: str
    kind: str
    heading: str
    start_line: int  # the lines shown
    end_line: int
    chunk_start: int
    chunk_end: int
    date: str
    session: str
    turn: str
    transcript: str
    text: str  # the section as written, anchors included
    stale: bool = False  # the file changed since it was indexed
    freshness: dict[str, Any] | None = None  # is what it says of the code still true (services/recall/staleness.py)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def find_row(table: ChunkTable, id_prefix: str) -> dict[str, Any]:
    prefix = id_prefix.strip().lower()
    if len(prefix) < 4 or not _HEX.match(prefix):
        raise UsageError(f"{id_prefix!r} is not a chunk id (at least 4 hex characters, from `memdown search`)")
    rows = table.by_id_prefix(prefix, limit=6)
    if not rows:
        raise NotFoundError(f"no chunk with id {prefix}", hint="ids come from `memdown search`; the index may have been rebuilt since")
    if len(rows) > 1:
        shown = ", ".join(r["id"][:12] for r in rows[:5])
        raise AmbiguousIdError(f"id prefix {prefix} matches several chunks: {shown}", hint="give more characters")
    return rows[0]


def expand_row(root: Path, row: dict[str, Any], options: ChunkOptions, *, context_lines: int = 0) -> Expansion:
    """The section around ``row`` as the file reads now (plus ``context_lines`` each side)."""
    path = path_of(root, row["source"])
    stale = False
    try:
        mfile = read_memory_file(root, path, max_bytes=1 << 62)
    except UnreadableFile as exc:
        raise NotFoundError(f"{row['source']}: {exc}", hint="run `memdown index` to refresh the index") from None
    lines = mfile.text.split("\n")
    current = {c.id: c for c in chunk_markdown(row["source"], mfile.text, options)}
    chunk = current.get(row["id"])
    if chunk is not None:
        sec_start, sec_end = chunk.section_start, chunk.section_end
        chunk_start, chunk_end = chunk.start_line, chunk.end_line
    else:
        stale = True  # the text changed: fall back to the stored line range
        sec_start, sec_end = row["section_start"], row["section_end"]
        chunk_start, chunk_end = row["start_line"], row["end_line"]
    first = max(1, sec_start - context_lines)
    last = min(len(lines), sec_end + context_lines)
    text = "\n".join(lines[first - 1 : last])
    anchor = parse_anchor(text)
    return Expansion(
        id=row["id"],
        source=row["source"],
        kind=row["kind"],
        heading=row["heading"],
        start_line=first,
        end_line=last,
        chunk_start=chunk_start,
        chunk_end=chunk_end,
        date=row["date"],
        session=anchor.session if anchor else row["session"],
        turn=anchor.turn if anchor else row["turn"],
        transcript=anchor.transcript if anchor else row["transcript"],
        text=redact(text),  # a person may have pasted a secret into the day file since: shown redacted
        stale=stale,
    )
