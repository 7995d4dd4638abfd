"""Cursor agent transcripts (``~/.cursor/projects/<slug>/agent-transcripts/…``) → memdown turns.

Three variants (../shared/agents/FORMATS.md), none with times, ids, a cwd or tool output bodies:
- ``<uuid>.txt``: ``user:`` / ``assistant:`` blocks; the typed prompt is in ``<user_query>``; a tool call is
  ``[Tool call] Name`` followed by indented ``key: value`` lines.
- ``<uuid>.json``: an array of ``{role: user|assistant|tool, text?, toolCalls?[{toolName, args}]}``.
- ``<uuid>.jsonl`` / ``<uuid>/<uuid>.jsonl``: ``{role, message: {content: [{type: text|tool_use}]}}`` lines.
The session id is the file's uuid; the workspace is only the ``<slug>`` folder (the path with ``/`` → ``-``).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..transcript.model import Transcript
from .common import Turns, json_lines, load_document, read_bytes, text_of, tool_call, transcript

AGENT = "cursor"
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.S)
_BLOCK = re.compile(r"^(user|assistant):[ \t]*$", re.M)
_TOOL_CALL = re.compile(r"^\[Tool call\] (\S+)[ \t]*$")
_ARG = re.compile(r"^  (\w+): ?(.*)$")


def is_message_line(first: Any) -> bool:
    return (isinstance(first, dict) and first.get("role") in ("user", "assistant")
            and isinstance(first.get("message"), dict) and "type" not in first and "uuid" not in first)


def is_message_array(document: Any) -> bool:
    return (isinstance(document, list) and bool(document) and isinstance(document[0], dict)
            and document[0].get("role") in ("user", "assistant", "tool")
            and any(k in document[0] for k in ("text", "toolCalls", "toolResult")))


def is_text_transcript(head: str) -> bool:
    return head.lstrip("\ufeff").startswith("user:")


def _typed(text: str) -> str:
    """The ``<user_query>`` text; a query left empty (an image alone) keeps what else the person sent."""
    found = [q for q in _QUERY.findall(text) if q.strip()]
    if found:
        return "\n".join(found)
    return _QUERY.sub("", text).strip() or "(an empty prompt)"


def _text_block(built: Turns, body: str) -> None:
    prose: list[str] = []
    call = None
    for line in body.splitlines():
        head = _TOOL_CALL.match(line)
        arg = _ARG.match(line) if call is not None else None
        if head:
            call = built.call(tool_call(f"t{sum(len(t.tool_calls) for t in built.turns)}", head.group(1), {}))
        elif arg and call is not None:
            call.input[arg.group(1)] = arg.group(2)
        elif line.startswith("[Tool result]"):
            call = None
        else:
            call = None
            prose.append(line)
    built.say("\n".join(prose).strip())


def _rename(built: Turns) -> None:
    """Text transcripts learn a call's arguments after the call: name it again once they are known."""
    for turn in built.turns:
        renamed = [tool_call(c.id, c.name, c.input) for c in turn.tool_calls]
        turn.steps = [renamed[turn.tool_calls.index(s)] if not isinstance(s, str) else s for s in turn.steps]
        turn.tool_calls = renamed


def parse_text(path: Path, *, start_offset: int = 0) -> Transcript:
    path = Path(path)
    text = read_bytes(path).decode("utf-8-sig", "replace")
    built = Turns()
    pieces = _BLOCK.split(text)
    for role, body in zip(pieces[1::2], pieces[2::2]):
        if role == "user":
            built.prompt(f"{path.stem}-{len(built.turns)}", _typed(body), "")
        else:
            _text_block(built, body)
    _rename(built)
    return transcript(path, AGENT, built, session=path.stem, start_offset=start_offset)


def _message(built: Turns, path: Path, role: Any, content: Any, calls: list[Any]) -> None:
    if role == "user":
        built.prompt(f"{path.stem}-{len(built.turns)}", _typed(text_of(content)), "")
        return
    if role != "assistant":
        return
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, dict) and part.get("type") == "tool_use":
            calls.append({"toolName": part.get("name"), "args": part.get("input")})
        else:
            built.say(text_of(part))
    for n, call in enumerate(calls):
        if isinstance(call, dict):
            built.call(tool_call(f"t{len(built.turns)}-{n}", str(call.get("toolName") or "?"), call.get("args") or {}))


def parse_json(path: Path, document: Any = None, *, start_offset: int = 0) -> Transcript:
    """A ``.json`` array or a ``.jsonl`` message log as memdown's transcript model."""
    path = Path(path)
    bad = 0
    if document is None:
        document = load_document(path)
    built = Turns()
    if is_message_array(document):
        for item in document:
            if isinstance(item, dict):
                _message(built, path, item.get("role"), item.get("text") or "", list(item.get("toolCalls") or []))
    else:
        entries, bad = json_lines(path)
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("message"), dict):
                _message(built, path, entry.get("role"), entry["message"].get("content"), [])
    return transcript(path, AGENT, built, session=path.stem, bad_lines=bad, start_offset=start_offset)
