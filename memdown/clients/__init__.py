"""One turn model, many clients: each coding agent's session logs → memdown's own turns.

Every reader here returns ``transcript.model.Transcript`` (prompt, answer, tool calls with their
results and errors, files, commands, times, cwd, session), so capture, redaction, entries, signals,
guards and import are written once. ``parse_log`` tells the client by the file's first line, not its
name or folder. Standard library only: the capture worker and hooks use it.

Claude Code's own parser stays in ``transcript.parser``; clients sit above ``transcript`` and below
``signals``/``services`` (tests/test_architecture.py).
"""
from __future__ import annotations

from pathlib import Path

from ..transcript.model import Transcript
from ..transcript.parser import parse_transcript
from ..transcript.reader import LineReader
from . import codex

CLAUDE_CODE = "claude-code"
AGENTS = (CLAUDE_CODE, codex.AGENT)


def client_of(path: Path) -> str:
    """Which client wrote ``path``: ``"codex"`` or ``"claude-code"`` (the default for anything else)."""
    try:
        for _offset, _end, entry in LineReader(Path(path)):
            if isinstance(entry, dict):
                return codex.AGENT if codex.is_rollout(entry) else CLAUDE_CODE
    except Exception:  # an unreadable file: the Claude Code parser says why, with its own errors
        return CLAUDE_CODE
    return CLAUDE_CODE


def parse_log(path: Path, *, start_offset: int = 0, include_subagents: bool = True) -> Transcript:
    """Any supported client's session log as memdown turns."""
    if client_of(path) == codex.AGENT:
        return codex.parse_rollout(Path(path), start_offset=start_offset)
    return parse_transcript(Path(path), start_offset=start_offset, include_subagents=include_subagents)
