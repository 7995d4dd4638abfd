"""Claude Code transcripts: the one parser, drill-down rendering and the archive.

Standard library only (hooks import this on their fast path). Import the
submodules directly for the full API; the common names are re-exported here.
"""
from __future__ import annotations

from .archive import archive_transcript, find_transcript, portable_path, resolve_portable
from .parser import (
    ToolCall,
    Transcript,
    Turn,
    find_turn,
    iter_entries,
    last_turn,
    locate_turn,
    parse_transcript,
)

__all__ = [
    "ToolCall",
    "Transcript",
    "Turn",
    "archive_transcript",
    "find_transcript",
    "find_turn",
    "iter_entries",
    "last_turn",
    "locate_turn",
    "parse_transcript",
    "portable_path",
    "resolve_portable",
]
