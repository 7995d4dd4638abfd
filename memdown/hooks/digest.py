"""The SessionStart "recent memory" digest: facts the model sees, within budget."""
from __future__ import annotations

from pathlib import Path

from .. import paths
from ..store.daily import read_entries

CLAUDE_CODE_CAP = 10_000


def build_digest(root: Path, *, max_chars: int, max_entries: int) -> tuple[str, int]:
    """(digest text, entries included): newest entries first, whole entries only."""
    budget = min(max_chars, CLAUDE_CODE_CAP)
    picked: list[str] = []
    used = 0
    for path in paths.daily_files(root):
        for entry in reversed(read_entries(path)):
            if len(picked) >= max_entries:
                break
            bullets = " ".join(line.strip() for line in entry.body.splitlines())
            if len(bullets) > 600:
                bullets = bullets[:599] + "…"
            block = f"- {entry.day} {entry.time}: {bullets}"
            if used + len(block) + 1 > budget:
                return "\n".join(picked), len(picked)
            picked.append(block)
            used += len(block) + 1
        if len(picked) >= max_entries:
            break
    return "\n".join(picked), len(picked)
