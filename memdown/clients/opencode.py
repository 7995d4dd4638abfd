"""OpenCode sessions (``~/.local/share/opencode/…``) → memdown turns.

A session is spread over files (../shared/agents/FORMATS.md); the file memdown is given is the session's
info file, and its messages and parts are read from beside it:
- storage v2 (1.0.x): ``storage/session/<projectID>/<ses>.json`` {id, version, directory (= cwd), time};
  ``storage/message/<ses>/<msg>.json``; ``storage/part/<msg>/<prt>.json``.
- storage v1 (0.5.x): ``project/<p>/storage/session/info/<ses>.json``; ``…/session/message/<ses>/<msg>.json``;
  ``…/session/part/<ses>/<msg>/<prt>.json``.
- SQLite (1.2 on): ``opencode.db`` (+ ``-wal``), tables ``session``, ``message``, ``part`` whose ``data`` is
  the v2 JSON: many sessions in one file, read as one transcript (``parse_database``).
A user message's ``text`` parts are its typed prompt (``synthetic`` ones the client added are not, unless
they are all it has: the person ran a command themselves);
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


def _message(built: Turns, message: dict[str, Any], parts: list[dict[str, Any]], stamp: str) -> str:
    """One message and its parts into ``built``; the cwd an assistant message names ('' for none)."""
    if message.get("role") == "user":
        texts = [p for p in parts if p.get("type") == "text"]
        # Only client-written (synthetic) text: the person ran a command themselves ("!cmd"); that is the turn.
        typed = [str(p.get("text") or "") for p in texts if not p.get("synthetic")] or [
            str(p.get("text") or "") for p in texts]
        built.prompt(str(message.get("id") or f"opencode-{len(built.turns)}"), "\n".join(typed), stamp)
        return ""
    for part in parts:
        if part.get("type") == "text" and not part.get("synthetic"):
            built.say(str(part.get("text") or ""), stamp)
        elif part.get("type") == "tool":
            _tool(built, part, stamp)
    where = message.get("path") if isinstance(message.get("path"), dict) else {}
    return str(where.get("cwd") or "")


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
        where = _message(built, message, parts, stamp)
        cwd = cwd or where
    return transcript(path, AGENT, built, session=session, cwd=cwd, version=str(info.get("version") or ""),
                      bad_lines=bad, start_offset=start_offset)


SQLITE_MAGIC = b"SQLite format 3\x00"


def is_database(head: bytes) -> bool:
    return head.startswith(SQLITE_MAGIC)


def _rows(path: Path) -> tuple[list[Any], list[Any], list[Any]]:
    """(sessions, messages, parts) of an OpenCode database, read from a private copy with its ``-wal``
    (the log holds much of the content, and the owner's files may be read-only or in use)."""
    import shutil
    import sqlite3
    import tempfile

    with tempfile.TemporaryDirectory(prefix="memdown-opencode-") as folder:
        copy = Path(folder) / "opencode.db"
        for suffix in ("", "-wal"):
            if Path(f"{path}{suffix}").is_file():
                shutil.copyfile(f"{path}{suffix}", f"{copy}{suffix}")
        connection = sqlite3.connect(copy)
        try:
            sessions = connection.execute(
                "SELECT id, directory, version FROM session WHERE parent_id IS NULL ORDER BY time_created, id").fetchall()
            messages = connection.execute(
                "SELECT id, session_id, time_created, data FROM message ORDER BY time_created, id").fetchall()
            parts = connection.execute("SELECT message_id, data FROM part ORDER BY id").fetchall()
        finally:
            connection.close()
    return sessions, messages, parts


def parse_database(path: Path, *, start_offset: int = 0, session: str = "") -> Transcript:
    """An OpenCode SQLite database (1.2 on): every top-level session's turns, in time order, as one
    transcript (one file, many sessions, like Gemini's logs.json); its cwd when every session shares one.
    ``session`` (an OpenCode id, ``ses_…``): that session alone, under its own id (a live capture)."""
    import json as _json

    path = Path(path)
    sessions, messages, parts = _rows(path)
    one = session.startswith("ses_")
    if one:
        sessions = [row for row in sessions if row[0] == session]
    ours = {row[0]: row for row in sessions}
    by_message: dict[str, list[dict[str, Any]]] = {}
    bad = 0
    for message_id, data in parts:
        try:
            by_message.setdefault(message_id, []).append(_json.loads(data))
        except (TypeError, ValueError):
            bad += 1
    built = Turns()
    for message_id, session_id, created, data in messages:
        if session_id not in ours:  # a sub-agent's (child) session: its parent holds the work
            continue
        try:
            message = {**_json.loads(data), "id": message_id}
        except (TypeError, ValueError):
            bad += 1
            continue
        _message(built, message, [p for p in by_message.get(message_id, []) if isinstance(p, dict)], iso(created))
    folders = {str(row[1] or "") for row in sessions}
    versions = [str(row[2] or "") for row in sessions]
    return transcript(path, AGENT, built, session=session if one else f"opencode-db-{path.stem}",
                      cwd=folders.pop() if len(folders) == 1 else "", version=versions[-1] if versions else "",
                      bad_lines=bad, start_offset=start_offset)
