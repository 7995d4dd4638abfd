"""Where Claude Code keeps a session's files (main log, subagent logs).

Standard library only.

- main: ``~/.claude/projects/<escaped cwd>/<session>.jsonl``
- 2.1.x subagents: ``<session>/subagents/**/agent-<id>.jsonl`` next to it
- 2.0.x subagents: sibling ``agent-<id>.jsonl`` files carrying the session id
- the memdown archive mirrors this with ``.jsonl.gz`` files
"""
from __future__ import annotations

from pathlib import Path

from ..errors import MemdownError
from .reader import iter_entries


def session_stem(path: Path) -> str:
    """``<id>.jsonl`` / ``<id>.jsonl.gz`` → ``<id>``."""
    name = Path(path).name
    for suffix in (".gz", ".jsonl", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def is_agent_file(path: Path) -> bool:
    """A subagent log: every line is a sidechain line, and they are its content."""
    return Path(path).name.startswith("agent-")


def first_session_id(path: Path) -> str:
    """The ``sessionId`` of the first entry carrying one ('' when none/unreadable)."""
    try:
        for _offset, entry in iter_entries(path):
            if entry.get("sessionId"):
                return str(entry["sessionId"])
    except MemdownError:
        return ""
    return ""


def subagent_files(path: Path, session_id: str) -> list[Path]:
    """Subagent logs belonging to the main transcript at ``path``, sorted."""
    path = Path(path)
    found: dict[Path, None] = {}
    folder = path.parent / session_stem(path)
    if folder.is_dir():
        for pattern in ("agent-*.jsonl", "agent-*.jsonl.gz"):
            for candidate in sorted(folder.rglob(pattern)):
                if candidate.is_file():
                    found.setdefault(candidate, None)
    # 2.0.x: sibling agent-*.jsonl files; only ours carry our session id.
    for candidate in sorted(path.parent.glob("agent-*.jsonl")):
        if candidate.is_file() and first_session_id(candidate) == session_id:
            found.setdefault(candidate, None)
    return list(found)
