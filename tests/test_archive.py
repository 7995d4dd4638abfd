"""The transcript archive, portable paths and transcript lookup."""
from __future__ import annotations

import gzip
import json
import os
import stat
from pathlib import Path

import pytest

from memdown import paths
from memdown.errors import AmbiguousIdError, NotFoundError
from memdown.transcript import archive as A
from memdown.transcript.archive import (
    archive_transcript,
    find_transcript,
    portable_path,
    resolve_portable,
)
from memdown.transcript.parser import parse_transcript

SID = "0a1b2c3d-1111-2222-3333-444455556666"


def _lines(session: str, *prompts: str, sidechain: bool = False) -> bytes:
    out = []
    for i, prompt in enumerate(prompts):
        out.append({"type": "user", "uuid": f"u{i}-{session[:4]}", "parentUuid": None, "sessionId": session,
                    "isSidechain": sidechain, "message": {"role": "user", "content": prompt}})
        out.append({"type": "assistant", "uuid": f"a{i}-{session[:4]}", "parentUuid": f"u{i}", "sessionId": session,
                    "isSidechain": sidechain,
                    "message": {"id": f"m-{session}-{prompt}", "role": "assistant", "content": [{"type": "text", "text": "ok"}]}})
    return b"".join(json.dumps(e).encode() + b"\n" for e in out)


def _live(session: str = SID, *prompts: str, project: str = "-work-repo") -> Path:
    path = paths.claude_home() / "projects" / project / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_lines(session, *(prompts or ("hello",))))
    return path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- portable paths ---------------------------------------------------------------

def test_portable_path_round_trip() -> None:
    home = Path.home()
    target = home / ".claude" / "projects" / "-x" / "y.jsonl"
    text = portable_path(target)
    assert text == "~/.claude/projects/-x/y.jsonl"
    assert str(home) not in text and home.name not in text
    assert resolve_portable(text) == target
    assert portable_path(home) == "~"
    assert portable_path("/opt/elsewhere/t.jsonl") == "/opt/elsewhere/t.jsonl"
    assert resolve_portable("/opt/elsewhere/t.jsonl") == Path("/opt/elsewhere/t.jsonl")


def test_portable_path_follows_home_at_call_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "other-home"
    other.mkdir()
    monkeypatch.setenv("HOME", str(other))
    assert portable_path(other / "a.jsonl") == "~/a.jsonl"
    assert resolve_portable("~/a.jsonl") == other / "a.jsonl"


def test_portable_path_through_symlinked_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "real-home"
    (real / ".claude").mkdir(parents=True)
    link = tmp_path / "link-home"
    link.symlink_to(real)
    monkeypatch.setenv("HOME", str(link))
    assert portable_path(real / ".claude") == "~/.claude"


# --- archiving -----------------------------------------------------------------------

def test_archive_copies_gzip_private(tmp_path: Path) -> None:
    src = _live(SID, "first", "second")
    dest = archive_transcript(src)
    assert dest == paths.transcript_archive_dir() / f"{SID}.jsonl.gz"
    assert _mode(dest) == 0o600
    assert _mode(dest.parent) == 0o700
    assert gzip.decompress(dest.read_bytes()) == src.read_bytes()
    parsed = parse_transcript(dest)
    assert [t.prompt for t in parsed.turns] == ["first", "second"]
    assert parsed.session_id == SID


def test_archive_includes_subagents(tmp_path: Path) -> None:
    src = _live(SID, "main prompt")
    native = src.parent / SID / "subagents" / "workflows" / "wf_1" / "agent-a1.jsonl"
    native.parent.mkdir(parents=True)
    native.write_bytes(_lines(SID, "native", sidechain=True))
    sibling = src.parent / "agent-b2.jsonl"
    sibling.write_bytes(_lines(SID, "sibling", sidechain=True))
    foreign = src.parent / "agent-c3.jsonl"
    foreign.write_bytes(_lines("ffffffff-0000-0000-0000-000000000000", "not ours", sidechain=True))
    dest = archive_transcript(src)
    base = paths.transcript_archive_dir() / SID
    archived_native = base / "subagents" / "workflows" / "wf_1" / "agent-a1.jsonl.gz"
    assert archived_native.is_file() and (base / "agent-b2.jsonl.gz").is_file()
    assert not (base / "agent-c3.jsonl.gz").exists()
    for folder in (base, base / "subagents", base / "subagents" / "workflows", archived_native.parent):
        assert _mode(folder) == 0o700, folder
    assert _mode(archived_native) == 0o600
    parsed = parse_transcript(dest)
    assert sorted(s.turns[0].prompt for s in parsed.subagents) == ["native", "sibling"]


def test_archive_skips_when_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    src = _live(SID, "one")
    writes: list[Path] = []
    real_write = A.atomic_write_bytes

    def counting(path, data, *, mode=None):
        writes.append(Path(path))
        real_write(path, data, mode=mode)

    monkeypatch.setattr(A, "atomic_write_bytes", counting)
    dest = archive_transcript(src)
    assert len(writes) == 1
    assert archive_transcript(src) == dest
    assert len(writes) == 1  # unchanged: no rewrite
    with open(src, "ab") as handle:
        handle.write(_lines(SID, "two"))
    archive_transcript(src)
    assert len(writes) == 2
    assert [t.prompt for t in parse_transcript(dest).turns] == ["one", "two"]
    # Same size but a new mtime is a change too.
    os.utime(src, ns=(src.stat().st_atime_ns, src.stat().st_mtime_ns + 5_000_000_000))
    archive_transcript(src)
    assert len(writes) == 3


def test_archive_missing_source_returns_none(tmp_path: Path) -> None:
    assert archive_transcript(tmp_path / "nope.jsonl") is None
    assert archive_transcript(tmp_path) is None  # a directory is not a transcript
    assert not paths.transcript_archive_dir().exists()


def test_archive_explicit_session_id_is_sanitised(tmp_path: Path) -> None:
    src = tmp_path / "whatever.jsonl"
    src.write_bytes(_lines(SID, "x"))
    dest = archive_transcript(src, "../../evil id")
    assert dest is not None and dest.parent == paths.transcript_archive_dir()
    assert "/" not in dest.name and dest.name.endswith(".jsonl.gz") and dest.is_file()


# --- lookup ------------------------------------------------------------------------

def test_find_by_id_prefix_and_paths(tmp_path: Path) -> None:
    live = _live(SID)
    assert find_transcript(SID) == live
    assert find_transcript(SID[:8]) == live
    assert find_transcript(str(live)) == live
    assert find_transcript(portable_path(live)) == live
    assert portable_path(live).startswith("~/")


def test_find_prefers_live_then_archive() -> None:
    live = _live(SID)
    archived = archive_transcript(live)
    assert find_transcript(SID) == live
    live.unlink()
    assert find_transcript(SID) == archived
    assert find_transcript(SID[:10]) == archived
    assert [t.prompt for t in parse_transcript(find_transcript(SID)).turns] == ["hello"]


def test_find_errors() -> None:
    _live(SID)
    _live("0a1b2c3d-9999-2222-3333-444455556666")
    with pytest.raises(AmbiguousIdError):
        find_transcript("0a1b2c3d")
    with pytest.raises(NotFoundError) as short:
        find_transcript("0a1b")
    assert "8" in short.value.one_line()
    with pytest.raises(NotFoundError) as unknown:
        find_transcript("deadbeef-0000")
    message = unknown.value.one_line()
    assert "deadbeef-0000" in message and str(Path.home()) not in message
    with pytest.raises(NotFoundError):
        find_transcript("~/no/such/file.jsonl")
