"""One turn model, many clients: each coding agent's session logs → memdown's own turns.

Every reader here returns ``transcript.model.Transcript`` (prompt, answer, tool calls with their
results and errors, files, commands, times, cwd, session), so capture, redaction, entries, signals,
guards and import are written once. ``client_of`` tells the client by the file's content (its first
line, or the whole document for a single-JSON log), never its name or folder. Standard library only:
the capture worker and hooks use it.

Claude Code's own parser stays in ``transcript.parser``; clients sit above ``transcript`` and below
``signals``/``services`` (tests/test_architecture.py).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from ..transcript.model import Transcript
from ..transcript.parser import parse_transcript
from ..transcript.reader import open_stream
from . import codex, copilot, cursor, gemini, opencode
from .common import load_document

CLAUDE_CODE = "claude-code"
AGENTS = (CLAUDE_CODE, codex.AGENT, gemini.AGENT, copilot.AGENT, cursor.AGENT, opencode.AGENT)
_HEAD_BYTES = 1 << 20


class Kind(NamedTuple):
    """Which client wrote a file and in which of its shapes (``shape`` '' for Claude Code)."""

    agent: str
    shape: str = ""


def _head(path: Path) -> bytes:
    with open_stream(Path(path)) as handle:
        return handle.read(_HEAD_BYTES)


def _line_kind(first: Any) -> Kind | None:
    if not isinstance(first, dict):
        return None
    if codex.is_rollout(first):
        return Kind(codex.AGENT, "rollout")
    if gemini.is_chat(first):
        return Kind(gemini.AGENT, "chat-json")
    if gemini.is_chat_header(first):
        return Kind(gemini.AGENT, "chat-jsonl")
    if copilot.is_event(first):
        return Kind(copilot.AGENT, "events-jsonl")
    if copilot.is_history(first):
        return Kind(copilot.AGENT, "history-session-json")
    if cursor.is_message_line(first):
        return Kind(cursor.AGENT, "transcript-jsonl")
    if opencode.is_session_info(first):
        return Kind(opencode.AGENT, "session")
    return None


def _document_kind(document: Any) -> Kind | None:
    if gemini.is_prompt_log(document):
        return Kind(gemini.AGENT, "logs.json")
    if cursor.is_message_array(document):
        return Kind(cursor.AGENT, "transcript-json-array")
    return _line_kind(document)


def kind_of(path: Path) -> Kind:
    """Which client wrote ``path``, told by its content (Claude Code for anything not another's)."""
    try:
        raw = _head(path)
    except Exception:  # an unreadable file: the Claude Code parser says why, with its own errors
        return Kind(CLAUDE_CODE)
    if opencode.is_database(raw):
        return Kind(opencode.AGENT, "sqlite")
    head = raw.decode("utf-8-sig", "replace")
    if cursor.is_text_transcript(head):
        return Kind(cursor.AGENT, "transcript-txt")
    stripped = head.lstrip()
    if not stripped.startswith(("{", "[")):
        return Kind(CLAUDE_CODE)
    first_line = stripped.split("\n", 1)[0]
    try:
        found = _line_kind(json.loads(first_line))
    except ValueError:
        found = None
    if found is None and (stripped.startswith("[") or "\n" in stripped.rstrip() and not _parses(first_line)):
        found = _document_kind(load_document(path))
    return found or Kind(CLAUDE_CODE)


def _parses(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def client_of(path: Path) -> str:
    """Which client wrote ``path``: ``"codex"``, ``"gemini"``, … or ``"claude-code"`` (the default)."""
    return kind_of(path).agent


def parse_log(path: Path, *, start_offset: int = 0, include_subagents: bool = True, session: str = "") -> Transcript:
    """Any supported client's session log as memdown turns. ``session``: the one session wanted from a file
    that holds many (an OpenCode database: a live capture takes its own session, never the others')."""
    path = Path(path)
    agent, shape = kind_of(path)
    if agent == codex.AGENT:
        return codex.parse_rollout(path, start_offset=start_offset)
    if agent == gemini.AGENT:
        if shape == "logs.json":
            return gemini.parse_prompt_log(path, start_offset=start_offset)
        return gemini.parse_chat(path, start_offset=start_offset)
    if agent == copilot.AGENT:
        if shape == "history-session-json":
            return copilot.parse_history(path, start_offset=start_offset)
        return copilot.parse_events(path, start_offset=start_offset)
    if agent == cursor.AGENT:
        if shape == "transcript-txt":
            return cursor.parse_text(path, start_offset=start_offset)
        return cursor.parse_json(path, start_offset=start_offset)
    if agent == opencode.AGENT and shape == "sqlite":
        return opencode.parse_database(path, start_offset=start_offset, session=session)
    if agent == opencode.AGENT:
        return opencode.parse_session(path, start_offset=start_offset)
    return parse_transcript(path, start_offset=start_offset, include_subagents=include_subagents)
