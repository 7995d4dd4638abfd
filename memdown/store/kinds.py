"""Where a memory file lives decides its ``kind``.

New kinds of files need a rule here and no indexer change; anything else
under the memory root is a ``note``.
"""
from __future__ import annotations

from pathlib import PurePosixPath

# (first path part or file name, kind); first match wins.
KIND_RULES: tuple[tuple[str, str], ...] = (
    ("memory", "summary"),
    ("signals", "signal"),
    ("learnings", "learning"),
    ("learnings.md", "learning"),
    ("improvements.md", "improvement"),
    ("improvements", "improvement"),
    ("reflexion", "reflexion"),
    ("reflexions", "reflexion"),
    ("reflexion.md", "reflexion"),
    ("reflexions.md", "reflexion"),
    ("automemory", "automemory"),  # Claude Code's own notes, read in place (store/automemory.py)
)

KINDS = tuple(sorted({kind for _, kind in KIND_RULES} | {"note"}))

# Folders under the memory root that are never memory (machine-local or cache).
EXCLUDED_DIRS = frozenset({"index", "logs", "state", "backups"})


def kind_for(source: str) -> str:
    """``source`` is the path relative to the memory root, with ``/`` separators."""
    first = PurePosixPath(source).parts[0] if source else ""
    for name, kind in KIND_RULES:
        if first == name:
            return kind
    return "note"
