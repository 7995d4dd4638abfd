"""``memdown import`` of Gemini CLI, Copilot CLI, Cursor and OpenCode sessions: their side of ``import_sources``.

A file is told by its content (``clients.kind_of``), never its name. This project's sessions are found:
- Gemini CLI: the project's folder under ``~/.gemini/tmp`` (the SHA-256 of the project path, or the short
  name ``~/.gemini/projects.json`` gives it); Cursor: ``~/.cursor/projects/<the path with / → ->``. Every
  file in such a folder is this project's, whatever cwd it names (a chat file names none).
- Copilot CLI and OpenCode: every session whose recorded cwd is the project (``started_in``); a session
  that records no cwd (Copilot's older shapes) is skipped with that reason: name its file to import it.
An OpenCode SQLite database (1.2 on) is read whole, every session in it (a person names it, or its folder).
OpenCode's message and part files are read with their session's info file, so they are skipped with that
reason. The rest of the import (capture, mining, idempotency, counts) is the one Claude Code uses.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from ... import paths
from ...clients import CLAUDE_CODE, codex, kind_of, parse_log
from ...clients.common import load_document
from ...transcript.layout import Sniff

OPENCODE_PIECE = "OpenCode message or part file (read with its session's info file)"
NO_CWD = "no working folder recorded, so not known to be this project's (name the file to import it)"
OPENCODE_DB = "a .db file that is not an OpenCode session database"
OTHER_CLIENTS = ("gemini", "copilot", "cursor", "opencode")


def client_sniff(path: Path) -> Sniff | None:
    """``path``'s head as the import reads a transcript's, when another client (not Claude Code or Codex)
    wrote it; a problem for files of those clients' folders that are not sessions; else None."""
    try:
        agent, _shape = kind_of(path)
    except Exception:  # unreadable: the Claude Code sniff says why
        return None
    if agent in (CLAUDE_CODE, codex.AGENT):
        if path.suffix == ".json" and _opencode_piece(path):
            return Sniff(OPENCODE_PIECE)
        if path.suffix == ".db":
            return Sniff(OPENCODE_DB)
        return None
    try:
        parsed = parse_log(path)
    except Exception as exc:  # a reader's failure names the file, never stops the import
        return Sniff(f"unreadable {agent} log ({type(exc).__name__})")
    first = next((t.timestamp for t in parsed.turns if t.timestamp), "")
    return _ClientSniff("", parsed.session_id, parsed.cwd, first)


def is_client_head(sniffed: Sniff) -> bool:
    """Whether a head came from ``client_sniff`` (a session of one of ``OTHER_CLIENTS``)."""
    return isinstance(sniffed, _ClientSniff)


class _ClientSniff(Sniff):
    """A Sniff from ``client_sniff`` (the import asks these for a recorded cwd)."""


def _opencode_piece(path: Path) -> bool:
    document = load_document(path)
    return isinstance(document, dict) and str(document.get("id") or "").startswith(("msg_", "prt_"))


def client_session_id(path: Path) -> str:
    found = client_sniff(path)
    return found.session_id if found is not None and not found.problem else ""


def _gemini_folders(places: list[Path], gemini: Path) -> list[Path]:
    names = {hashlib.sha256(str(place).encode()).hexdigest(): None for place in places}
    registry = load_document(gemini / "projects.json") if (gemini / "projects.json").is_file() else None
    projects = registry.get("projects", registry) if isinstance(registry, dict) else {}
    for place in places:
        short = projects.get(str(place)) if isinstance(projects, dict) else None
        if isinstance(short, str) and short and "/" not in short:
            names.setdefault(short, None)
    return [gemini / "tmp" / name for name in names]


def project_folders(places: list[Path]) -> list[Path]:
    """The folders that hold only this project's Gemini CLI and Cursor sessions (existing or not)."""
    homes = paths.agent_homes()
    cursor = [homes["cursor"] / "projects" / str(place).strip("/").replace("/", "-") for place in places]
    return _gemini_folders(places, homes["gemini"]) + list(dict.fromkeys(cursor))


def shared_folders() -> list[Path]:
    """The folders of Copilot CLI and OpenCode sessions of every project (matched by their cwd)."""
    homes = paths.agent_homes()
    return [homes["copilot"] / "session-state", homes["copilot"] / "history-session-state",
            homes["opencode"] / "storage" / "session", homes["opencode"] / "project"]
