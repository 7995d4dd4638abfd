"""Where a memory file lives decides its ``kind``.

New kinds of files need a rule here and no indexer change; anything else
under the memory root is a ``note``.
"""
from __future__ import annotations

from pathlib import PurePosixPath

# (leading path parts or file name, kind); first match wins.
KIND_RULES: tuple[tuple[str, str], ...] = (
    ("memory/recalls", "recall"),
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

# Kinds a search leaves out unless asked for by ``--kind``: a recall entry only
# points at the memories a turn recalled, and a signal is a quote mined from a
# turn whose entry already holds it; neither may outrank what it came from.
HIDDEN_BY_DEFAULT = frozenset({"recall", "signal"})

# Folders under the memory root that are never memory (machine-local or cache).
EXCLUDED_DIRS = frozenset({"index", "logs", "state", "backups"})


def kind_for(source: str) -> str:
    """``source`` is the path relative to the memory root, with ``/`` separators."""
    parts = PurePosixPath(source).parts if source else ()
    for name, kind in KIND_RULES:
        rule = tuple(name.split("/"))
        if parts[: len(rule)] == rule:
            return kind
    return "note"
