"""Gemini CLI session logs (``~/.gemini/tmp/<project>/chats/session-*.json|.jsonl``, ``logs.json``) → turns.

Three shapes (../shared/agents/FORMATS.md):
- chat-json: one document ``{sessionId, projectHash, startTime, messages[]}``; a ``type:"user"`` message
  is a typed prompt (its ``displayContent`` when present: ``content`` also holds ``@file`` expansions),
  except the client's ``<session_context>`` injection; ``type:"gemini"`` holds the reply and its
  ``toolCalls`` (call and result in one record).
- chat-jsonl (2026): a header line, then message records; a record whose ``id`` was seen is an update of
  that message, and ``{"$set": {…}}`` lines patch the header (or replace ``messages`` whole).
- logs.json: every prompt typed in the project across sessions ``[{sessionId, messageId, type, message}]``:
  prompts only, no replies. One file, many sessions: each turn keeps its own session in its uuid; the
  prompts of a session whose chat file is in ``chats/`` beside it are left out (counted in
  ``Transcript.left_out``): the chat holds them with their answers.
The cwd is not in a chat file: it is the project folder's ``.project_root`` when the client wrote one.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import fsutil
from ..fence import without_hook_context
from ..transcript.model import Transcript
from .common import Turns, json_lines, load_document, text_of, tool_call, transcript

AGENT = "gemini"
_INJECTED = ("<session_context>",)
IN_A_CHAT = "prompt of a session whose chat file is beside logs.json (recorded from the chat, with its answer)"


def is_chat(document: Any) -> bool:
    return isinstance(document, dict) and "sessionId" in document and isinstance(document.get("messages"), list)


def is_chat_header(first: Any) -> bool:
    return isinstance(first, dict) and "sessionId" in first and "projectHash" in first and "messages" not in first


def is_prompt_log(document: Any) -> bool:
    return (isinstance(document, list) and bool(document)
            and all(isinstance(e, dict) and "sessionId" in e and "messageId" in e for e in document[:20]))


def _prompt_text(message: dict[str, Any]) -> str:
    shown = message.get("displayContent")
    text = text_of(shown) if shown else text_of(message.get("content"))
    if "<hook_context>" in text:  # hook context the CLI put in the prompt (memdown's own digest): not typed
        text = without_hook_context(text)
    return "" if text.lstrip().startswith(_INJECTED) else text


def _tool_output(result: Any) -> str:
    parts = []
    for item in result if isinstance(result, list) else []:
        response = item.get("functionResponse") if isinstance(item, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            parts.append(text_of(body.get("output", body.get("error", ""))) or "")
    return "\n".join(p for p in parts if p)


def _feed(built: Turns, messages: list[Any]) -> None:
    for message in messages:
        if not isinstance(message, dict):
            continue
        stamp = str(message.get("timestamp") or "")
        if message.get("type") == "user":
            built.prompt(str(message.get("id") or f"gemini-{len(built.turns)}"), _prompt_text(message), stamp)
        elif message.get("type") == "gemini":
            built.say(text_of(message.get("content")), stamp)
            for n, call in enumerate(message.get("toolCalls") or []):
                if not isinstance(call, dict):
                    continue
                call_id = str(call.get("id") or f"{message.get('id')}-{n}")
                built.call(tool_call(call_id, str(call.get("name") or "?"), call.get("args") or {}), stamp)
                output = _tool_output(call.get("result")) or text_of(call.get("resultDisplay"))
                built.result(call_id, output, call.get("status") not in (None, "success"))


def _fold_lines(entries: list[Any]) -> dict[str, Any]:
    """A chat-jsonl file as the document it stands for (updates folded by id, ``$set`` applied)."""
    header: dict[str, Any] = {}
    messages: dict[str, Any] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if isinstance(entry.get("$set"), dict):
            patch = entry["$set"]
            if isinstance(patch.get("messages"), list):
                messages = {str(m.get("id") or n): m for n, m in enumerate(patch["messages"]) if isinstance(m, dict)}
            header.update({k: v for k, v in patch.items() if k != "messages"})
        elif "type" in entry and ("id" in entry or "content" in entry):
            key = str(entry.get("id") or f"line-{len(messages)}")
            messages[key] = {**messages.get(key, {}), **entry}
        elif not header and "sessionId" in entry:
            header.update(entry)
    return {**header, "messages": list(messages.values())}


def _project_root(path: Path) -> str:
    for folder in (path.parent, path.parent.parent):
        marker = folder / ".project_root"
        try:
            if marker.is_file() and marker.stat().st_size < 4096:
                return fsutil.read_text(marker, errors="replace").strip()
        except OSError:
            continue
    return ""


def parse_chat(path: Path, document: Any = None, *, start_offset: int = 0) -> Transcript:
    """A chat-json or chat-jsonl session as memdown's transcript model (``agent == "gemini"``)."""
    path = Path(path)
    bad = 0
    if document is None:
        document = load_document(path)
    if not is_chat(document):
        entries, bad = json_lines(path)
        document = _fold_lines(entries)
    built = Turns()
    _feed(built, document.get("messages") or [])
    session = str(document.get("sessionId") or path.stem)
    return transcript(path, AGENT, built, session=session, cwd=_project_root(path), bad_lines=bad,
                      start_offset=start_offset)


def parse_prompt_log(path: Path, document: Any = None, *, start_offset: int = 0) -> Transcript:
    """A logs.json (prompts of every session in the project) as one transcript of prompt-only turns."""
    path = Path(path)
    document = load_document(path) if document is None else document
    built = Turns()
    chats = chat_sessions(path.parent / "chats")
    left_out = 0
    for entry in document if isinstance(document, list) else []:
        if isinstance(entry, dict) and entry.get("type") == "user":
            if str(entry.get("sessionId")) in chats:
                left_out += 1
                continue
            uuid = f"{entry.get('sessionId')}-{entry.get('messageId')}"
            built.prompt(uuid, _prompt_text({"content": entry.get("message")}), str(entry.get("timestamp") or ""))
    session = f"gemini-logs-{path.parent.name[:16]}"
    parsed = transcript(path, AGENT, built, session=session, cwd=_project_root(path), start_offset=start_offset)
    if left_out:
        parsed.left_out[IN_A_CHAT] = left_out
    return parsed


def chat_sessions(folder: Path) -> set[str]:
    """The session ids of the chat files in ``folder`` (read from each file, not its name)."""
    found: set[str] = set()
    for chat in sorted(folder.glob("session-*.json*")) if folder.is_dir() else []:
        document = load_document(chat)
        if not is_chat(document):
            entries, _bad = json_lines(chat)
            document = entries[0] if entries else None
        if isinstance(document, dict) and document.get("sessionId"):
            found.add(str(document["sessionId"]))
    return found
