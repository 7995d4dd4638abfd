"""The SessionStart "recent memory" digest: recorded facts the model sees, fenced, within budget.

Daily logs are committed and shared, so the digest is data, not instructions:
it goes through :func:`memdown.fence.fence` (labelled block, fake closers
defanged, instruction-like entries flagged, bounded size).
"""
from __future__ import annotations

from pathlib import Path

from ... import paths
from ...fence import Gated, fence
from ...store.dayread import LoggedEntry, read_entries

# The digest's part of Claude Code's 10,000-character additionalContext cap
# (hooks.output.CLAUDE_CODE_CAP); learnings and memdown's own lines share the rest.
DIGEST_SHARE = 7_000
LEARNINGS_CHARS = 1_600


def digest_items(root: Path, *, max_entries: int) -> list[str]:
    """Newest entries first, one line each (``YYYY-MM-DD HH:MM: text``), raw (not yet fenced)."""
    picked: list[str] = []
    for path in paths.daily_files(root):
        for entry in reversed(read_entries(path)):
            if len(picked) >= max_entries:
                return picked
            bullets = " ".join(line.strip() for line in entry.body.splitlines())
            picked.append(f"{entry.day} {entry.time}{_stale_mark(root, entry)}: {bullets}")
    return picked


def _stale_mark(root: Path, entry: "LoggedEntry") -> str:
    """" [stale: src/auth.py login changed since]" when an entry's fingerprinted code changed (files only, no git)."""
    if entry.anchor is None or "~" not in entry.anchor.cites:
        return ""
    from ...store.citations import quick_check  # only days that carry citations pay for it

    changed = quick_check(root.parent, entry.anchor.cites)
    return f" [stale: {changed} since]" if changed else ""


def build_digest(root: Path, *, max_chars: int, max_entries: int, where: str = "") -> tuple[Gated | str, int]:
    """(fenced digest, entries offered); '' when there is nothing to show."""
    items = digest_items(root, max_entries=max_entries)
    if not items:
        return "", 0
    title = f"Project memory{f' ({where})' if where else ''}: the most recent entries, newest first."
    return fence(title, items, limit=min(max_chars, DIGEST_SHARE), source="daily logs"), len(items)


def learnings_block(rules: list[str]) -> Gated | str:
    """Recently promoted learnings, as recorded in learnings.md (committed, so fenced too)."""
    if not rules:
        return ""
    return fence("Learnings recorded as promoted in learnings.md, newest first.", rules, limit=LEARNINGS_CHARS,
                 source="learnings.md")
