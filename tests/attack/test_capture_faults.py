"""Bad input keeps its promise (issue 18, item 7): damage skips only itself, a full disk costs no recorded turn."""
from __future__ import annotations

import errno
import json
import os
import sys
from pathlib import Path

import pytest

from transcript_factory import TranscriptBuilder

from memdown.config import load_config
from memdown.services.capture import job_status
from memdown.services.capture import jobs
from memdown.services.capture import worker
from memdown.transcript.parser import parse_transcript


@pytest.fixture(autouse=True)
def _sync_no_model(monkeypatch):
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.setenv("MEMDOWN_HOOK_SYNC", "1")


def _four_turns(tmp_path: Path) -> tuple[TranscriptBuilder, Path]:
    b = TranscriptBuilder()
    for n in range(4):
        b.prompt(f"turn {n}: rename the cache flag")
        b.reply(f"Renamed it, step {n}.")
    return b, b.write(tmp_path / "t" / f"{b.session_id}.jsonl")


def _damage(transcript: Path, after_line: int, junk: bytes) -> None:
    lines = transcript.read_bytes().split(b"\n")
    lines[after_line:after_line] = [junk]
    transcript.write_bytes(b"\n".join(lines))


@pytest.mark.parametrize("junk", [
    b"\x00" * 512,                                     # a crash mid-append: a run of NULs, its own line
    b"\x00" * 300 + b'{"type": "summary", "summary": "x"}',  # NULs, then the next writer's line
    b'{"type": "user", "message": {"content": "torn',  # a line cut in half
    b'{"type": "user", "message": "\\udc00 lone"}',     # a lone surrogate
    b"\xff\xfe\x00\x01 binary garbage \x00",
])
def test_damage_in_the_first_8kb_skips_only_itself(tmp_path, junk):
    b, transcript = _four_turns(tmp_path)
    _damage(transcript, 2, junk)  # between turn 0 and turn 1, well inside the first 8 KB
    turns = parse_transcript(transcript).turns
    assert [t.uuid for t in turns] == b.turn_uuids


def test_a_transcript_with_nul_bytes_is_recorded_by_the_worker(tmp_path, memory_root):
    b, transcript = _four_turns(tmp_path)
    _damage(transcript, 4, b"\x00" * 4096)
    job = jobs.enqueue(memory_root, "stop", {"session_id": b.session_id, "transcript_path": str(transcript),
                                             "cwd": str(memory_root.parent), "hook_event_name": "Stop"})
    assert worker.run_job_file(memory_root, load_config(memory_root), job)
    text = "".join(p.read_text() for p in (memory_root / "memory").glob("*.md"))
    assert all(f"turn:{u}" in text for u in b.turn_uuids)
    assert job_status.queue_status(memory_root).quarantined == 0


def test_a_full_memdown_home_never_quarantines_a_job_whose_entry_landed(tmp_path, memory_root, monkeypatch):
    """The archive (in MEMDOWN_HOME) fails with ENOSPC on every attempt: the turn is recorded once,
    the job is not quarantined, and the archive is tried again on its own once the disk has room."""
    b, transcript = _four_turns(tmp_path)
    full = {"on": True}
    from memdown.transcript import archive

    real_write = archive.atomic_write_bytes

    def write(path, data, **kw):
        if full["on"]:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real_write(path, data, **kw)

    monkeypatch.setattr(archive, "atomic_write_bytes", write)
    monkeypatch.setattr(jobs, "BACKOFF_FIRST", 0.0)
    config = load_config(memory_root)
    job = jobs.enqueue(memory_root, "sessionend", {"session_id": b.session_id, "transcript_path": str(transcript),
                                                   "cwd": str(memory_root.parent),
                                                   "hook_event_name": "SessionEnd"})
    for _ in range(jobs.MAX_ATTEMPTS + 1):
        if not job.exists():
            break
        worker.run_job_file(memory_root, config, job)
        assert job_status.verify_lines(memory_root) == []  # recorded: never reported as a turn waiting
    assert job_status.queue_status(memory_root).quarantined == 0
    text = "".join(p.read_text() for p in (memory_root / "memory").glob("*.md"))
    assert all(text.count(f"turn:{u}") == 1 for u in b.turn_uuids)
    assert job_status.verify_lines(memory_root) == []  # no turn reported as not recorded
    full["on"] = False  # room again: the next capture of the session archives it
    job = jobs.enqueue(memory_root, "stop", {"session_id": b.session_id, "transcript_path": str(transcript),
                                             "cwd": str(memory_root.parent), "hook_event_name": "Stop"})
    assert worker.run_job_file(memory_root, config, job)
    archived = list((Path(os.environ["MEMDOWN_HOME"]) / "transcripts").rglob("*"))
    assert any(p.is_file() for p in archived)
    assert json.loads(json.dumps(job_status.queue_status(memory_root))) == [0, 0, 0]


def test_a_line_written_after_a_nul_run_is_still_read(tmp_path):
    """A crash leaves NULs where its line should be; the next writer's line follows on the same line."""
    b, transcript = _four_turns(tmp_path)
    lines = transcript.read_bytes().split(b"\n")
    lines[2] = b"\x00" * 700 + lines[2]  # turn 1's prompt
    transcript.write_bytes(b"\n".join(lines))
    assert [t.uuid for t in parse_transcript(transcript).turns] == b.turn_uuids
