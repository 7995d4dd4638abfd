"""Bounded reads of compressed files, and no transcript read from inside the repository (issue 25, finding 7).

A committed ``.jsonl.gz`` that decompresses to hundreds of MB made ``memdown transcript`` run for minutes
at that size resident. Every gzip memdown reads stops at ``fsutil.gz``'s limit with one line; a transcript
an anchor names inside the project is refused before it is opened.
"""
from __future__ import annotations

import gzip
import json
import os
import zlib
from pathlib import Path

import pytest

from conftest import run_memdown
from memdown import fsutil, paths
from memdown.fsutil import gz
from transcript_factory import TranscriptBuilder

LINE = (json.dumps({"type": "user", "sessionId": "bomb-0001", "uuid": "u", "message": {"role": "user",
                    "content": "A" * 4000}}) + "\n").encode()


def bomb(path: Path, megabytes: int) -> Path:
    """A gzip file of valid transcript lines that decompresses to ``megabytes`` MB (a few hundred KB on disk)."""
    engine = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = LINE * ((1 << 20) // len(LINE) + 1)
    parts = [engine.compress(chunk[: 1 << 20]) for _ in range(megabytes)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(parts) + engine.flush())
    return path


def test_a_bomb_stops_at_the_limit_without_reading_past_it(tmp_path: Path) -> None:
    path = bomb(tmp_path / "s.jsonl.gz", 64)
    size = path.stat().st_size
    limit = gz.decompressed_limit(size)
    assert size < 1 << 20 and limit == gz.FLOOR
    stream = gz.BoundedGzip(path.open("rb"), path, size)
    with pytest.raises(gz.TooLargeError) as raised:
        while stream.readline(64 << 20):
            pass
    assert stream.tell() <= limit + 1  # never a byte past the limit (plus the one that proves it)
    stream.close()
    assert "s.jsonl.gz" in str(raised.value) and "decompresses to more than 16 MB" in str(raised.value)
    with pytest.raises(gz.TooLargeError):
        gz.gunzip(path.read_bytes(), path)
    with pytest.raises(gz.TooLargeError):
        gz.BoundedGzip(path.open("rb"), path, size).seek(limit + 1)


def test_ordinary_gzip_reads_whole(tmp_path: Path) -> None:
    data = b"".join(LINE.replace(b"AAAA", os.urandom(2).hex().encode()) for _ in range(3000))  # ~12 MB, ratio ~2
    members = gzip.compress(data[:1000]) + gzip.compress(data[1000:])  # two members, as `cat a.gz b.gz`
    assert gz.gunzip(members, "x") == data
    path = tmp_path / "ok.jsonl.gz"
    path.write_bytes(members)
    with gz.BoundedGzip(path.open("rb"), path, len(members)) as stream:
        assert stream.read() == data


def test_memdown_transcript_refuses_a_bomb_in_one_line() -> None:
    """Even where transcripts live (~/.claude/projects), a bomb is refused once past the limit: exit 7."""
    path = bomb(paths.claude_home() / "projects" / "-work-project" / "bomb-0001.jsonl.gz", 64)
    result = run_memdown("transcript", str(path))
    assert result.returncode == 7, (result.returncode, result.stdout[:300], result.stderr)
    assert result.stderr.count("\n") == 1 and "decompresses to more than 16 MB" in result.stderr


def test_the_archive_refuses_to_copy_a_bomb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from memdown.transcript.archive import archive_transcript

    path = bomb(tmp_path / "claude" / "bomb-0001.jsonl", 64)  # a gzip under a plain name: sniffed by content
    archive_transcript(path, "bomb-0001")
    assert not (paths.transcript_archive_dir() / "bomb-0001.jsonl.gz").exists()
    assert "decompresses to more than" in capsys.readouterr().err


def test_no_transcript_is_read_from_inside_the_repository(memory_root: Path, isolate_paths: Path) -> None:
    """An anchor in a committed day file names a committed transcript: refused before it is opened."""
    assert run_memdown("init").returncode == 0
    b = TranscriptBuilder(session_id="c0ffee00-0000-4000-8000-000000000001")
    b.prompt("ordinary prompt")
    b.reply("ordinary answer")
    inside = b.write(isolate_paths / "logs" / f"{b.session_id}.jsonl")
    gz_inside = bomb(isolate_paths / "logs" / "bomb-0001.jsonl.gz", 64)
    day = memory_root / "memory" / "2026-11-21.md"
    day.write_text("# 2026-11-21\n\n## Session 10:00\n\n### 10:00\n"
                   f"<!-- session:{b.session_id} turn:{b.turn_uuids[0]} transcript:{inside} -->\n- a note\n\n"
                   f"### 10:01\n<!-- session:bomb-0001 turn:u transcript:{gz_inside} -->\n- another\n")
    for path in (inside, gz_inside):
        result = run_memdown("transcript", str(path))
        assert result.returncode == 7, (result.returncode, result.stdout[:300])
        assert "is inside the repository" in result.stderr and result.stderr.count("\n") == 1
    # The same transcript where Claude Code keeps it is read as before.
    fsutil.make_dirs(paths.claude_home() / "projects" / "-work-project")
    outside = b.write(paths.claude_home() / "projects" / "-work-project" / f"{b.session_id}.jsonl")
    assert run_memdown("transcript", str(outside)).returncode == 0
