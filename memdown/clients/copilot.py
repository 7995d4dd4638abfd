"""GitHub Copilot CLI session logs → memdown turns.

Shapes (../shared/agents/FORMATS.md):
- ``session-state/<id>/events.jsonl`` (1.0.x) and the earlier flat ``session-state/<id>.jsonl``: one event a
  line ``{type, data, id, timestamp}``. ``user.message`` is a typed prompt (``content``; the flat shape
  appends ``<current_datetime>``, dropped here), ``assistant.message`` the reply and its ``toolRequests``,
  ``tool.execution_complete`` a call's result; ``session.start``/``session.resume`` carry the session id,
  version and cwd (``context.cwd``).
- ``history-session-state/session_<id>_<ms>.json`` (Oct 2025): ``{sessionId, startTime, chatMessages[],
  timeline[]}``; ``chatMessages`` is an OpenAI-style chat (user text with ``<reminder>`` blocks appended),
  ``timeline`` the only place with times.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..transcript.model import Transcript
from .common import Turns, json_lines, load_document, text_of, tool_call, transcript

AGENT = "copilot"
NUDGE = "user.message with no typed content (the client's own 'keep working' nudge)"
_APPENDED = re.compile(r"\s*<(current_datetime|reminder)>.*?</\1>\s*", re.S)


def is_event(first: Any) -> bool:
    return (isinstance(first, dict) and isinstance(first.get("data"), dict) and isinstance(first.get("type"), str)
            and "." in first["type"] and first["type"].split(".")[0] in ("session", "user", "assistant", "tool", "system", "hook"))


def is_history(document: Any) -> bool:
    return isinstance(document, dict) and "sessionId" in document and isinstance(document.get("chatMessages"), list)


def _typed(text: str) -> str:
    return _APPENDED.sub("\n", text).strip()


def parse_events(path: Path, *, start_offset: int = 0) -> Transcript:
    """An events.jsonl (or flat session .jsonl) as memdown's transcript model (``agent == "copilot"``)."""
    path = Path(path)
    entries, bad = json_lines(path)
    built = Turns()
    meta = {"session": "", "cwd": "", "version": ""}
    skipped: dict[str, int] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("data"), dict):
            continue
        kind, data, stamp = entry.get("type"), entry["data"], str(entry.get("timestamp") or "")
        if kind in ("session.start", "session.resume"):
            context = data.get("context") if isinstance(data.get("context"), dict) else {}
            meta["session"] = meta["session"] or str(data.get("sessionId") or "")
            meta["version"] = meta["version"] or str(data.get("copilotVersion") or "")
            meta["cwd"] = meta["cwd"] or str(context.get("cwd") or "")
        elif kind == "user.message" and not text_of(data.get("content")).strip():
            skipped[NUDGE] = skipped.get(NUDGE, 0) + 1
        elif kind == "user.message":
            built.prompt(str(entry.get("id") or f"copilot-{len(built.turns)}"),
                         _typed(text_of(data.get("content"))), stamp)
        elif kind == "assistant.message":
            built.say(text_of(data.get("content")), stamp)
            for request in data.get("toolRequests") or []:
                if isinstance(request, dict):
                    built.call(tool_call(str(request.get("toolCallId") or ""), str(request.get("name") or "?"),
                                         request.get("arguments") or {}), stamp)
        elif kind == "tool.execution_start" and str(data.get("toolCallId") or "") not in built.calls:
            built.call(tool_call(str(data.get("toolCallId") or ""), str(data.get("toolName") or "?"),
                                 data.get("arguments") or {}), stamp)
        elif kind == "tool.execution_complete":
            result = data.get("result") if isinstance(data.get("result"), dict) else {}
            error = data.get("error")
            text = text_of(result.get("content")) or (text_of(error) if not isinstance(error, dict)
                                                      else str(error.get("message") or ""))
            built.result(str(data.get("toolCallId") or ""), text, data.get("success") is False)
    session = meta["session"] or (path.parent.name if path.name == "events.jsonl" else path.stem)
    parsed = transcript(path, AGENT, built, session=session, cwd=meta["cwd"], version=meta["version"],
                        bad_lines=bad, start_offset=start_offset)
    parsed.left_out.update(skipped)
    return parsed


def parse_history(path: Path, document: Any = None, *, start_offset: int = 0) -> Transcript:
    """A history-session JSON document as memdown's transcript model."""
    path = Path(path)
    document = load_document(path) if document is None else document
    timeline = [t for t in document.get("timeline") or [] if isinstance(t, dict) and t.get("type") == "user"]
    built = Turns()
    for message in document.get("chatMessages") or []:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "user":
            n = len(built.turns)
            shown = timeline[n] if n < len(timeline) else {}
            text = _typed(text_of(message.get("content"))) or str(shown.get("text") or "")
            built.prompt(str(shown.get("id") or f"{document.get('sessionId')}-{n}"), text,
                         str(shown.get("timestamp") or document.get("startTime") or ""))
        elif role == "assistant":
            built.say(text_of(message.get("content")))
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict):
                    built.call(tool_call(str(call.get("id") or ""), str(function.get("name") or "?"),
                                         function.get("arguments") or {}))
        elif role == "tool":
            built.result(str(message.get("tool_call_id") or ""), text_of(message.get("content")), False)
    return transcript(path, AGENT, built, session=str(document.get("sessionId") or path.stem),
                      start_offset=start_offset)
