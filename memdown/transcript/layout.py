"""Where Claude Code keeps a session's files (main log, subagent logs).

Standard library only.

- main: ``~/.claude/projects/<escaped cwd>/<session>.jsonl``
- 2.1.x subagents: ``<session>/subagents/**/agent-<id>.jsonl`` next to it
- 2.0.x subagents: sibling ``agent-<id>.jsonl`` files carrying the session id
- the memdown archive mirrors this with ``.jsonl.gz`` files

``require_transcript`` is the gate ``memdown transcript`` passes every path
through: the recall skill may run ``memdown …`` without asking, and memory
anchors come from committed files, so a path is read only when it is a
Claude Code transcript under ``claude_home()/projects`` or the archive, or
one this project's memory recorded that also reads as a transcript.
"""
from __future__ import annotations

import contextlib
import gzip
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from .. import paths
from ..errors import MemdownError, NotATranscriptError
from ..fsutil.gz import BoundedGzip
from .reader import decode_line, iter_entries, open_stream

SUFFIXES = (".jsonl", ".jsonl.gz")


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


def session_id_of(path: Path) -> str:
    """The session a transcript file belongs to, as its Stop hook names it: Claude Code names the file
    after the session, and a resumed session's file may start with lines of the session it resumed
    (their ``sessionId`` is the older one). So the file's name when an entry in it carries that name
    as its ``sessionId``, else the first ``sessionId`` in it, else the file's name."""
    stem = session_stem(path)
    raw = stem.encode("utf-8", "surrogateescape")
    needle = re.compile(rb'"sessionId"\s*:\s*"' + re.escape(raw) + rb'"')
    tail = b""
    try:
        with open_stream(Path(path)) as stream:
            while chunk := stream.read(1 << 20):
                if raw in tail + chunk and needle.search(tail + chunk):
                    return stem
                tail = chunk[-(len(raw) + 64):]
    except (MemdownError, OSError, EOFError, zlib.error):
        pass
    return first_session_id(path) or stem


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


def _under(path: Path, folder: Path) -> bool:
    try:
        return path.is_relative_to(folder.resolve())
    except OSError:
        return False


# How far a file is read to tell whether it is a Claude Code transcript: clients write bookkeeping
# lines first (``file-history-snapshot``, ``summary``, ``queue-operation``, ``permission-mode``…; up to
# 29 before the first session line in the shared corpus, more after many resumes).
SNIFF_LINES = 500
SNIFF_BYTES = 16 << 20
_LINE_LIMIT = 4 << 20


class Sniff(NamedTuple):
    """What the head of a file says: ``problem`` ('' for a transcript), its first session id, cwd, time."""

    problem: str
    session_id: str = ""
    cwd: str = ""
    timestamp: str = ""


def sniff(path: Path) -> Sniff:
    """Whether ``path`` is a Claude Code transcript, by content: any of its first lines carries
    Claude Code's entry shape (a string ``type`` and a string ``sessionId``), whatever type comes
    first and whatever the suffix. ``problem`` says why not in a few words (the import report's reason)."""
    try:
        stream = open_stream(path)
    except MemdownError as exc:
        return Sniff(f"unreadable ({exc})")
    seen = read = objects = 0
    kinds: dict[str, None] = {}
    found = Sniff("")
    try:
        with stream:
            while seen < SNIFF_LINES and read < SNIFF_BYTES:
                raw = stream.readline(_LINE_LIMIT)
                if not raw:
                    break
                read += len(raw)
                entry = decode_line(raw)
                if entry is None:
                    seen += bool(raw.strip())
                    continue
                seen += 1
                objects += 1
                kind = entry.get("type")
                if isinstance(kind, str):
                    kinds.setdefault(kind, None)
                found = _note(found, entry, kind)
                if found.session_id and found.cwd:
                    return found
    except (OSError, EOFError, zlib.error) as exc:
        return Sniff(f"unreadable ({exc})")
    if found.session_id:
        return found  # a session without a recorded cwd (1.0.x wrote it on every line; some lines lack it)
    if not seen:
        return Sniff("empty")
    if not objects:
        return Sniff("not JSON lines")
    if kinds:
        shown = ", ".join(list(kinds)[:3])
        return Sniff(f"no conversation in its first {seen} line(s) (only {shown} entries, no sessionId)")
    return Sniff(f"not a Claude Code transcript (no entry with a type and a sessionId in its first {seen} line(s))")


def _note(found: Sniff, entry: dict, kind: object) -> Sniff:
    """``found`` with what ``entry`` adds: the first timestamp, the first session id, the first cwd."""
    if not found.timestamp and isinstance(entry.get("timestamp"), str):
        found = found._replace(timestamp=entry["timestamp"])
    session = entry.get("sessionId")
    if not found.session_id and isinstance(kind, str) and isinstance(session, str) and session:
        found = found._replace(session_id=session)
    cwd = entry.get("cwd")
    if found.session_id and not found.cwd and isinstance(cwd, str) and cwd:
        found = found._replace(cwd=cwd)
    return found


def last_timestamp(path: Path, window: int = 256 << 10) -> str:
    """The ``timestamp`` of the last entry that has one within the file's last ``window`` bytes ('' if none;
    a gzip file is not read: its end needs the whole stream)."""
    try:
        with open_stream(Path(path)) as stream:
            if isinstance(stream, (gzip.GzipFile, BoundedGzip)):
                return ""
            size = stream.seek(0, os.SEEK_END)
            stream.seek(max(0, size - window))
            lines = stream.read(window).splitlines()
    except (MemdownError, OSError):
        return ""
    for raw in reversed(lines[1:] if len(lines) > 1 else lines):
        entry = decode_line(raw)
        if entry is not None and isinstance(entry.get("timestamp"), str):
            return entry["timestamp"]
    return ""


def looks_like_transcript(path: Path) -> bool:
    """Claude Code's entry shape in one of the first lines (``sniff``)."""
    return not sniff(Path(path)).problem


def portable_path(path: Path) -> str:
    """``~/…`` when ``path`` is under the home directory, else the absolute path.

    Memory files are committed to git: a path stored there must not leak the
    user's home directory or user name. ``Path.home()`` is read at call time.
    """
    candidate = Path(os.path.abspath(Path(path).expanduser()))
    home = Path(os.path.abspath(Path.home()))
    pairs = [(candidate, home)]
    with contextlib.suppress(OSError, RuntimeError):
        # A symlinked home (/home -> /usr/home) must still be recognised.
        pairs.append((candidate.resolve(), home.resolve()))
    for cand, base in pairs:
        try:
            rel = cand.relative_to(base)
        except ValueError:
            continue
        text = rel.as_posix()
        return "~" if text in ("", ".") else f"~/{text}"
    return str(candidate)


def resolve_portable(text: str) -> Path:
    """Inverse of ``portable_path``: expand a leading ``~``."""
    return Path(str(text).strip()).expanduser()


def require_transcript(path: Path, recorded: Iterable[Path] = (), repository: Iterable[Path] = (),
                       other_client: Callable[[Path], bool] | None = None) -> Path:
    """``path`` when memdown may read it as a transcript; NotATranscriptError (one line) otherwise.

    Allowed: a regular ``.jsonl``/``.jsonl.gz`` file under ``claude_home()/projects``, the
    archive or Codex's ``sessions``/``archived_sessions`` (``codex_home()``), or one of ``recorded`` (transcript paths in this project's memory anchors) whose
    content reads as a Claude Code transcript, unless it lies inside ``repository`` (the project's
    folders): a file the repository holds is whatever its last committer made it (a gzip bomb, a
    forged session), and an anchor naming it comes from a commit too. Symlinks and ``..`` are
    resolved first. ``other_client`` (the caller's content test, ``memdown.clients`` sits above this
    layer) admits another agent's session log by what it holds, whatever its suffix: under that
    client's own folders (``paths.agent_homes``) or recorded, never inside the repository.
    """
    shown = portable_path(Path(path))
    hint = "memdown reads Claude Code transcripts under ~/.claude/projects, its archive, or sessions in this memory"
    try:
        real = Path(path).expanduser().resolve(strict=True)
        mode = os.stat(real).st_mode
    except (OSError, RuntimeError):
        raise NotATranscriptError(f"{shown} cannot be read", hint=hint) from None
    theirs = stat.S_ISREG(mode) and other_client is not None and other_client(real)
    if not stat.S_ISREG(mode) or not (real.name.endswith(SUFFIXES) or theirs):
        raise NotATranscriptError(f"{shown} is not a Claude Code transcript (.jsonl)", hint=hint)
    codex = paths.codex_home()  # Codex CLI's rollouts (memdown.clients reads them)
    homes = tuple(paths.agent_homes().values()) if theirs else ()
    if any(_under(real, root) for root in (paths.claude_home() / "projects", paths.transcript_archive_dir(),
                                           codex / "sessions", codex / "archived_sessions", *homes)):
        return real
    inside = next((folder for folder in repository if _under(real, Path(folder))), None)
    if inside is not None:
        raise NotATranscriptError(f"{shown} is inside the repository ({portable_path(Path(inside))}): memdown reads "
                                  "no transcript a repository holds, only the client's and its own archive", hint=hint)
    for item in recorded:
        try:
            same = Path(item).expanduser().resolve() == real
        except (OSError, RuntimeError):
            continue
        if same and (theirs or looks_like_transcript(real)):
            return real
    raise NotATranscriptError(f"{shown} is outside the transcripts memdown reads", hint=hint)
