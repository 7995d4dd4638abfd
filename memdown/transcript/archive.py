"""The transcript archive and transcript lookup.

Claude Code deletes transcripts after 30 days; memdown keeps a gzip copy of
every session it sees in ``paths.transcript_archive_dir()`` (a private 0700
folder) so drill-down links in memory keep working. The copy is redacted:
every string inside every JSON line goes through ``memdown.redact.redact``
and the line is written back as valid JSON, so the parser reads it as
before (a line that is not JSON is redacted as text).

Layout::

    <archive>/<session_id>.jsonl.gz
    <archive>/<session_id>/subagents/.../agent-<id>.jsonl.gz   (native 2.1.x layout)
    <archive>/<session_id>/agent-<id>.jsonl.gz                 (2.0.x sibling files)

Up-to-date check without a sidecar: the archive file's mtime is set to the
source's mtime, and the gzip header's MTIME field holds the source's size
(mod 2**32; redaction changes the archived size), so "same mtime and same
size" means nothing changed. Archives written before redaction carry 0
there and are rewritten, redacted, on the next capture.

Archiving runs in the detached worker (``services.capture.record``), never on a
hook's fast path.

Forgotten turns (``memdown forget``) are left out of every copy: the caller passes their uuids, and the
lines from such a turn's prompt up to the next prompt are not archived (``without_turns``); a forgotten
session is not archived at all.
"""
from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import struct
import zlib
from pathlib import Path

from .. import paths
from ..errors import AmbiguousIdError, InputFileError, NotFoundError, UsageError
from .. import fsutil
from ..fsutil import atomic_write_bytes
from ..fsutil.gz import gunzip
from .layout import first_session_id, portable_path, resolve_portable, session_stem, subagent_files

__all__ = ["portable_path", "resolve_portable", "archive_transcript", "find_transcript"]

_FILE_MODE = 0o600
_DIR_MODE = 0o700
_MIN_PREFIX = 8
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


# --- archiving ------------------------------------------------------------------


def _private_dir(directory: Path) -> None:
    fsutil.make_dirs(directory, mode=_DIR_MODE, exact=True)  # mkdir's mode is filtered by the umask


def _source_size(path: Path) -> int | None:
    """The source size stamped in the gzip header's MTIME field, None if unreadable."""
    try:
        with fsutil.open_stream(path) as handle:
            head = handle.read(8)
        return struct.unpack("<I", head[4:8])[0] if head[:2] == b"\x1f\x8b" else None
    except (OSError, struct.error):
        return None


def _redact_value(value: object) -> object:
    from ..redact import redact_structure  # by key name too: {"password": "…"} in a tool input

    return redact_structure(value)


def redact_jsonl(data: bytes) -> bytes:
    """Every string of every JSON line redacted; each line stays valid JSON."""
    from ..redact import redact

    out: list[bytes] = []
    for raw in data.split(b"\n"):
        if not raw.strip():
            out.append(raw)
            continue
        text = raw.decode("utf-8", errors="replace")
        try:
            entry = json.loads(text)
        except ValueError:
            out.append(redact(text).encode("utf-8"))
            continue
        cleaned = _redact_value(entry)
        if cleaned == entry:
            out.append(raw)  # nothing found: keep the line byte for byte
        else:
            out.append(json.dumps(cleaned, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    return b"\n".join(out)


def _up_to_date(source: os.stat_result, dest: Path) -> bool:
    try:
        stored = dest.stat()
    except OSError:
        return False
    return (
        stored.st_mtime_ns == source.st_mtime_ns
        and _source_size(dest) == source.st_size % (1 << 32)
    )


def turn_starts(path: Path) -> set[str]:
    """The uuids of the prompts that start the turns of the transcript ``path`` (plain or gzip)."""
    from .parser import parse_transcript

    return {_line_uuid(t.uuid) for t in parse_transcript(Path(path), include_subagents=False).turns if t.uuid} - {""}


def _line_uuid(turn_key: str) -> str:
    """The uuid on a turn's prompt line: the parser keys a reused uuid's n-th turn ``<uuid>@<n>`` and a
    prompt without one ``@<offset>`` (no line uuid to find)."""
    return turn_key.split("@", 1)[0]


def without_turns(data: bytes, drop: set[str] | frozenset[str], starts: set[str]) -> bytes:
    """``data`` (JSONL) without the lines of the turns in ``drop``: from the line whose uuid is a dropped
    turn's up to the next line that starts a turn (``starts``). Lines that are not JSON stay where they are."""
    out: list[bytes] = []
    dropping = False
    for raw in data.split(b"\n"):
        uuid = ""
        if raw.strip():
            try:
                line = json.loads(raw)
                uuid = line.get("uuid", "") if isinstance(line, dict) else ""
            except ValueError:
                pass
        if uuid and uuid in starts:
            dropping = uuid in drop
        if not dropping:
            out.append(raw)
    return b"\n".join(out)


def _copy_one(src: Path, dest: Path, drop: frozenset[str] = frozenset()) -> bool:
    """Gzip ``src`` into ``dest`` unless unchanged (without the lines of the turns in ``drop``). False when
    ``src`` vanished."""
    try:
        before = src.stat()
    except OSError:
        return False
    if _up_to_date(before, dest):
        return True
    try:
        with fsutil.open_stream(src) as handle:  # a transcript: no size cap, but never a FIFO or a link
            data = handle.read()
    except OSError:
        return False
    if data[:2] == b"\x1f\x8b":  # already compressed (archiving an archive): bounded, a bomb is refused
        try:
            data = gunzip(data, src)
        except fsutil.RefusedFileError as exc:
            fsutil.notice(exc)
            return False
        except (OSError, EOFError, zlib.error):
            pass
    # every forgotten turn whose uuid is here (a fork's copy holds its parent's turn uuids)
    drop = frozenset(u for u in map(_line_uuid, drop) if u and u.encode() in data)
    if drop:
        data = without_turns(data, drop, turn_starts(src) | set(drop))
    data = redact_jsonl(data)
    # The header's MTIME field carries the source size (see the module doc).
    try:
        packed = gzip.compress(data, compresslevel=6, mtime=before.st_size % (1 << 32))
        atomic_write_bytes(dest, packed, mode=_FILE_MODE)
    except OSError as exc:
        raise InputFileError(f"cannot write archive {portable_path(dest)}: {exc.strerror or exc}") from None
    with contextlib.suppress(OSError):
        os.utime(dest, ns=(before.st_atime_ns, before.st_mtime_ns))
    return True


def _safe_id(session_id: str) -> str:
    """A session id usable as a file name (ids are uuids; never trust them blindly)."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "_", session_id.strip()).lstrip(".")
    if not cleaned:
        raise UsageError(f"invalid session id {session_id!r}")
    return cleaned


def _archive_name(path: Path) -> str:
    return f"{session_stem(path)}.jsonl.gz"


def archive_transcript(path: Path, session_id: str | None = None, *, forgotten=None) -> Path | None:
    """Copy a transcript (and its subagent logs) into the archive, gzip, 0600.

    Returns the archive path, or None when the source does not exist (or its session was forgotten:
    ``forgotten`` is ``store.forgetting.Forgotten``, whose turns are left out of the copy). Copies
    that are already up to date are skipped, so calling this on every hook is
    cheap (two ``stat`` calls and a 4-byte read per file).
    """
    src = Path(path).expanduser()
    if not src.is_file():
        return None
    sid = _safe_id(session_id or session_stem(src))
    if forgotten is not None and sid in forgotten.sessions:
        return None
    drop = frozenset(forgotten.turns) if forgotten is not None else frozenset()
    archive_dir = paths.transcript_archive_dir()
    _private_dir(archive_dir)
    dest = archive_dir / f"{sid}.jsonl.gz"
    if not _copy_one(src, dest, drop):
        return None
    subagents = subagent_files(src, session_id or first_session_id(src) or sid)
    if subagents:
        session_dir = archive_dir / sid
        _private_dir(session_dir)
        own_folder = src.parent / session_stem(src)
        for sub in subagents:
            try:
                rel_parent = sub.parent.relative_to(own_folder)
            except ValueError:
                rel_parent = Path()  # a 2.0.x sibling file
            target_dir = session_dir
            for part in rel_parent.parts:
                target_dir = target_dir / part
                _private_dir(target_dir)
            _copy_one(sub, target_dir / _archive_name(sub))
    return dest


def archived_files(session_id: str) -> list[Path]:
    """The archive's copy of a session and its subagent logs (those that exist)."""
    sid = _safe_id(session_id)
    archive_dir = paths.transcript_archive_dir()
    found = [archive_dir / f"{sid}.jsonl.gz"] if (archive_dir / f"{sid}.jsonl.gz").is_file() else []
    if (archive_dir / sid).is_dir():
        found += sorted(p for p in (archive_dir / sid).rglob("*.jsonl.gz") if p.is_file())
    return found


def drop_from_archive(path: Path, turns: frozenset[str]) -> bool:
    """Rewrite the archived ``path`` without the lines of ``turns``, keeping its up-to-date stamp (mtime and
    the size in the gzip header); False when none of them was there."""
    try:
        before = path.stat()
        with fsutil.open_stream(path) as handle:
            packed = handle.read()
        data = gunzip(packed, path)
    except fsutil.RefusedFileError as exc:  # past the decompression limit: said, not silently kept
        fsutil.notice(exc)
        return False
    except (OSError, EOFError, zlib.error):
        return False
    turns = frozenset(_line_uuid(t) for t in turns) - {""}
    kept = without_turns(data, turns, turn_starts(path) | set(turns))
    if kept == data:
        return False
    size = _source_size(path) or 0
    atomic_write_bytes(path, gzip.compress(kept, compresslevel=6, mtime=size), mode=_FILE_MODE)
    with contextlib.suppress(OSError):
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    return True


# --- lookup ---------------------------------------------------------------------


def _looks_like_path(ref: str) -> bool:
    return (
        "/" in ref or os.sep in ref or ref.startswith("~") or ref.startswith(".")
        or ref.endswith((".jsonl", ".gz", ".json"))
    )


def _pick(matches: list[Path], ref: str, where: str) -> Path | None:
    if not matches:
        return None
    by_id: dict[str, list[Path]] = {}
    for match in matches:
        by_id.setdefault(session_stem(match), []).append(match)
    if len(by_id) > 1:
        shown = ", ".join(sorted(by_id)[:5])
        raise AmbiguousIdError(f"session prefix {ref!r} matches {len(by_id)} sessions in {where}: {shown}",
                         hint="give more characters")
    # One session in several project folders (moved repo): the newest copy wins.
    candidates = next(iter(by_id.values()))
    return max(candidates, key=lambda p: p.stat().st_mtime if p.exists() else 0)


def find_transcript(ref: str) -> Path:
    """Resolve a path, a portable ``~/`` path, or a session id (or unique prefix ≥ 8).

    Live transcripts under ``claude_home()/projects`` win over the archive.
    """
    text = str(ref or "").strip()
    if not text:
        raise UsageError("empty transcript reference", hint="pass a path or a session id")
    candidate = resolve_portable(text)
    if _looks_like_path(text) or candidate.is_file():
        if candidate.is_file():
            return candidate
        if candidate.exists():
            raise InputFileError(f"{text} is not a file")
        raise NotFoundError(f"no transcript file at {text}")
    if not _ID_RE.fullmatch(text):
        raise UsageError(f"invalid session id {text!r}")
    projects = paths.claude_home() / "projects"
    archive_dir = paths.transcript_archive_dir()
    hint = (
        f"looked in {portable_path(projects)} and {portable_path(archive_dir)}; "
        "pass a transcript path instead"
    )
    if len(text) < _MIN_PREFIX:
        raise NotFoundError(f"no session {text!r}", hint=f"use at least {_MIN_PREFIX} characters of the id")
    # An exact id wins over longer ids it happens to prefix.
    live = [p for p in sorted(projects.glob(f"*/{text}.jsonl")) if p.is_file()]
    if not live:
        live = [p for p in sorted(projects.glob(f"*/{text}*.jsonl")) if p.is_file()]
    found = _pick(live, text, portable_path(projects))
    if found is not None:
        return found
    archived = [p for p in [archive_dir / f"{text}.jsonl.gz"] if p.is_file()] or [
        p for p in sorted(archive_dir.glob(f"{text}*.jsonl.gz")) if p.is_file()
    ]
    found = _pick(archived, text, portable_path(archive_dir))
    if found is not None:
        return found
    raise NotFoundError(f"no transcript for session {text!r}", hint=hint)
