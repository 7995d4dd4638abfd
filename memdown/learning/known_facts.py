"""What the agent is already told: the lines of the CLAUDE.md files, rules and learnings.

Mining uses them to tell a question about a known fact ("missing context")
from a new one.
"""
from __future__ import annotations

from pathlib import Path

from .. import fsutil
from ..signals.text import content_tokens
from .promote import target_files

MAX_FACTS = 400


def known_facts(root: Path) -> list[str]:
    """Lines of the CLAUDE.md files and learnings: what the agent is already told."""
    facts: list[str] = []
    sources = [path for _, path in target_files(root)] + [root / "learnings.md"]
    for source in sources:
        try:
            text = fsutil.read_text(source, errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            line = line.strip().lstrip("-*+> ").strip()
            if line and not line.startswith(("#", "<!--")) and len(content_tokens(line)) >= 3:
                facts.append(line)
    return facts[-MAX_FACTS:]
