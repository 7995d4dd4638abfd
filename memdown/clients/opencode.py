"""OpenCode sessions (``~/.local/share/opencode/…``) → memdown turns.

A session is spread over files (../shared/agents/FORMATS.md); the file memdown is given is the session's
info file, and its messages and parts are read from beside it:
- storage v2 (1.0.x): ``storage/session/<projectID>/<ses>.json`` {id, version, directory (= cwd), time};
  ``storage/message/<ses>/<msg>.json``; ``storage/part/<msg>/<prt>.json``.
- storage v1 (0.5.x): ``project/<p>/storage/session/info/<ses>.json``; ``…/session/message/<ses>/<msg>.json``;
  ``…/session/part/<ses>/<msg>/<prt>.json``.
A user message's ``text`` parts are its typed prompt (``synthetic`` ones the client added are not);
assistant ``text`` parts the reply; a ``tool`` part is one call with its result (``state``). Ids are
time-ordered, so files are read in id order. Times are epoch milliseconds.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..transcript.model import Transcript
from .common import Turns, iso, load_document, tool_call, transcript

AGENT = "opencode"


def is_session_info(document: Any) -> bool:
    return (isinstance(document, dict) and str(document.get("id") or "").startswith("ses_")
            and isinstance(document.get("time"), dict) and "version" in document)


def _folders(path: Path, session: str) -> tuple[Path, Path]:
    """(the session's message folder, the folder holding its parts' folders)."""
    if path.parent.name == "info":  # v1
        base = path.parent.parent
        return base / "message" / session, base / "part" / session
    storage = path.parent.parent.parent  # v2: storage/session/<projectID>/<ses>.json
    return storage / "message" / session, storage / "part"


def _documents(folder: Path) -> tuple[list[dict[str, Any]], int]:
    """The JSON documents in ``folder`` in id order, and how many files there were not one."""
    found, bad = [], 0
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        document = load_document(path)
        if isinstance(document, dict):
            found.append(document)
        else:
            bad += 1
    return found, bad


def _tool(built: Turns, part: dict[str, Any], stamp: str) -> None:
    state = part.get("state") if isinstance(part.get("state"), dict) else {}
    call_id = str(part.get("callID") or part.get("id") or "")
    built.call(tool_call(call_id, str(part.get("tool") or "?"), state.get("input") or {}), stamp)
    failed = state.get("status") == "error"
    built.result(call_id, state.get("error") if failed else state.get("output") or "", failed)


def parse_session(path: Path, document: Any = None, *, start_offset: int = 0) -> Transcript:
    """One OpenCode session (its info file, messages and parts) as memdown's transcript model."""
    path = Path(path)
    info = load_document(path) if document is None else document
    session = str(info.get("id") or path.stem)
    message_folder, part_root = _folders(path, session)
    messages, bad = _documents(message_folder)
    built = Turns()
    cwd = str(info.get("directory") or "")
    for message in messages:
        stamp = iso((message.get("time") or {}).get("created")) if isinstance(message.get("time"), dict) else ""
        parts, broken = _documents(part_root / str(message.get("id") or ""))
        bad += broken
        if message.get("role") == "user":
            typed = [str(p.get("text") or "") for p in parts if p.get("type") == "text" and not p.get("synthetic")]
            built.prompt(str(message.get("id") or f"{session}-{len(built.turns)}"), "\n".join(typed), stamp)
            continue
        where = message.get("path") if isinstance(message.get("path"), dict) else {}
        cwd = cwd or str(where.get("cwd") or "")
        for part in parts:
            if part.get("type") == "text" and not part.get("synthetic"):
                built.say(str(part.get("text") or ""), stamp)
            elif part.get("type") == "tool":
                _tool(built, part, stamp)
    return transcript(path, AGENT, built, session=session, cwd=cwd, version=str(info.get("version") or ""),
                      bad_lines=bad, start_offset=start_offset)
