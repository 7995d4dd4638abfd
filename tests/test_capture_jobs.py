"""Lossless capture: the job queue (durable first, retried, quarantined), bad text and special files."""
from __future__ import annotations

import fcntl
import functools
import json
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import wait_for
from transcript_factory import TranscriptBuilder, hook_payload

from memdown import fsutil
from memdown.config import load_config
from memdown.errors import SpecialFileError
from memdown.hooks import runner
from memdown.services.capture import job_status
from memdown.services.capture import jobs
from memdown.services.capture import worker
from memdown.transcript.reader import LineReader

TOKEN = "ghp_" + "Zq9" * 12
NO_CLAUDE = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin"}


@pytest.fixture(autouse=True)
def _no_claude(monkeypatch):
    monkeypatch.setenv("PATH", NO_CLAUDE["PATH"])  # extractive summaries: no model, no network
    monkeypatch.setenv("MEMDOWN_HOOK_SYNC", "1")  # no settle sleep in the worker


def _session(tmp_path: Path, *prompts: str) -> tuple[TranscriptBuilder, Path]:
    b = TranscriptBuilder()
    for n, prompt in enumerate(prompts):
        b.prompt(prompt)
        b.reply(f"Reply {n} done.")
    return b, b.write(tmp_path / "t" / f"{b.session_id}.jsonl")


def _recorded(root: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted((root / "memory").glob("*.md")))


def _stop(b: TranscriptBuilder, transcript: Path, root: Path, **extra) -> dict:
    return {"session_id": b.session_id, "transcript_path": str(transcript), "cwd": str(root.parent),
            "hook_event_name": "Stop", **extra}


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _everything_under(folder: Path) -> str:
    return "".join(p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*") if p.is_file())


# --- durable first, redacted, private --------------------------------------------

def test_enqueue_is_private_redacted_and_recoverable(tmp_path, memory_root):
    b, transcript = _session(tmp_path, "deploy the thing")
    job = jobs.enqueue(memory_root, "stop", _stop(b, transcript, memory_root, extra_secret_field=TOKEN,
                                                  last_assistant_message=f"used token {TOKEN} to push"))
    assert _mode(job) == 0o600 and _mode(job.parent) == 0o700
    record = json.loads(job.read_text())
    assert record["payload"]["transcript_path"] == str(transcript)
    assert record["payload"]["session_id"] == b.session_id
    assert "[REDACTED" in record["payload"]["last_assistant_message"]
    assert TOKEN not in _everything_under(memory_root)  # unknown fields are dropped, text is redacted
    assert [p.name for p in job.parent.iterdir() if p.suffix == ".tmp"] == []  # the recovery copy is gone
    assert worker.run_job_file(memory_root, load_config(memory_root), job)
    assert f"turn:{b.turn_uuids[0]}" in _recorded(memory_root) and not job.exists()
    # The message is already in the transcript: the job holds ids only, and is private too.
    plain = jobs.enqueue(memory_root, "stop", _stop(b, transcript, memory_root, last_assistant_message="Reply 0 done."))
    assert _mode(plain) == 0o600 and "last_assistant_message" not in json.loads(plain.read_text())["payload"]


def test_hook_writes_the_job_before_the_budget_starts(tmp_path, memory_root, monkeypatch):
    """A budget that has already run out when the handler is called must not cost the turn."""
    b, transcript = _session(tmp_path, "first turn")
    monkeypatch.setenv("MEMDOWN_HOOK_SYNC", "0")
    started: list[bool] = []
    monkeypatch.setattr("memdown.services.capture.detached.start_worker", lambda root: started.append(True))

    def budget_gone() -> None:
        raise TimeoutError("budget")

    with pytest.raises(TimeoutError):
        runner.handle("Stop", _stop(b, transcript, memory_root), memory_root, budget_gone)
    assert len(jobs.pending_jobs(memory_root)) == 1 and not started
    monkeypatch.setenv("MEMDOWN_HOOK_SYNC", "1")
    assert worker.drain(memory_root, load_config(memory_root), max_seconds=5) == 1
    assert f"turn:{b.turn_uuids[0]}" in _recorded(memory_root)


# --- interrupted and legacy jobs -------------------------------------------------------

def test_interrupted_tmp_job_is_recovered_and_a_torn_one_quarantined(tmp_path, memory_root):
    b, transcript = _session(tmp_path, "interrupted turn")
    folder = memory_root / "state" / "jobs"
    folder.mkdir(parents=True)
    old = time.time() - 2 * jobs.STALE_TMP_SECONDS
    whole = folder / "100-1-stop.tmp"  # the hook died after the recovery copy, before the .json
    whole.write_text(json.dumps({"v": 1, "job": "stop", "created": old, "attempts": 0, "next_try": 0,
                                 "payload": _stop(b, transcript, memory_root)}))
    torn = folder / "101-1-stop.tmp"
    torn.write_text('{"v": 1, "job": "stop", "payload": {"session_id": "x", "last_assistant_message": "' + TOKEN)
    fresh = folder / "102-1-stop.tmp"  # a hook may still be writing this one
    fresh.write_text("{")
    for p in (whole, torn):
        os.utime(p, (old, old))
    assert job_status.queue_status(memory_root).pending == 3
    worker.drain(memory_root, load_config(memory_root), max_seconds=5)
    assert f"turn:{b.turn_uuids[0]}" in _recorded(memory_root)
    assert fresh.exists() and not whole.exists() and not torn.exists()
    quarantined = list(jobs.quarantine_dir(memory_root).glob("*.json"))
    assert len(quarantined) == 1 and _mode(quarantined[0]) == 0o600
    assert TOKEN not in quarantined[0].read_text()
    assert any("quarantined" in line for line in job_status.verify_lines(memory_root))


def test_legacy_failed_jobs_are_requeued_redacted_and_run(tmp_path, memory_root):
    b, transcript = _session(tmp_path, "turn parked by an older version")
    failed = memory_root / "state" / "jobs" / "failed"
    failed.mkdir(parents=True)
    parked = failed / "99-1-stop.json"
    parked.write_text(json.dumps({"job": "stop", "payload": _stop(b, transcript, memory_root,
                                                                  last_assistant_message=f"key {TOKEN}")}))
    parked.chmod(0o644)
    jobs.recover(memory_root)
    assert not parked.exists()
    assert TOKEN not in _everything_under(memory_root / "state")
    requeued = jobs.pending_jobs(memory_root)
    assert len(requeued) == 1 and _mode(requeued[0]) == 0o600
    worker.drain(memory_root, load_config(memory_root), max_seconds=5)
    assert f"turn:{b.turn_uuids[0]}" in _recorded(memory_root) and not jobs.pending_jobs(memory_root)


# --- retry with backoff, quarantine ---------------------------------------------------------

def _hold(path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_stranger_holding_the_day_lock_leaves_the_job_pending_then_it_is_recorded(tmp_path, memory_root,
                                                                                  monkeypatch):
    monkeypatch.setattr("memdown.store.daily.file_lock", functools.partial(fsutil.file_lock, timeout=0.2))
    b, transcript = _session(tmp_path, "turn during a held lock")
    job = jobs.enqueue(memory_root, "stop", _stop(b, transcript, memory_root))
    strangers = [_hold(memory_root / "memory" / f".2026-11-{day}.md.lock") for day in (19, 20, 21)]  # any zone
    try:
        assert not worker.run_job_file(memory_root, load_config(memory_root), job)
    finally:
        for fd in strangers:
            os.close(fd)
    record = json.loads(job.read_text())
    assert record["attempts"] == 1 and record["next_try"] > time.time() and "LockTimeoutError" in record["last_error"]
    assert _mode(job) == 0o600
    log = (memory_root / "logs" / "hooks.log").read_text()
    assert "failed (attempt 1/" in log and " done " not in log
    assert job_status.queue_status(memory_root) == job_status.QueueStatus(pending=1, quarantined=0, failing=1)
    assert worker.drain(memory_root, load_config(memory_root), max_seconds=0) == 0  # not due yet: backoff
    monkeypatch.setattr(jobs, "BACKOFF_FIRST", 0.0)
    record["next_try"] = 0
    jobs.save(job, record)
    assert worker.drain(memory_root, load_config(memory_root), max_seconds=5) == 1
    assert f"turn:{b.turn_uuids[0]}" in _recorded(memory_root) and not job.exists()


def test_a_job_that_always_fails_is_quarantined_after_max_attempts(tmp_path, memory_root, monkeypatch):
    b, transcript = _session(tmp_path, "turn that cannot be summarized")

    def broken(*_a, **_k):
        raise RuntimeError(f"disk on fire, token {TOKEN}")

    monkeypatch.setattr("memdown.services.capture.record.record_session", broken)
    monkeypatch.setattr(jobs, "BACKOFF_FIRST", 0.0)
    job = jobs.enqueue(memory_root, "stop", _stop(b, transcript, memory_root, last_assistant_message="hello"))
    for _ in range(jobs.MAX_ATTEMPTS):
        assert not worker.run_job_file(memory_root, load_config(memory_root), job)
    assert not job.exists()
    (quarantined,) = jobs.quarantine_dir(memory_root).glob("*.json")
    body = json.loads(quarantined.read_text())
    assert body["attempts"] == jobs.MAX_ATTEMPTS and "disk on fire" in body["reason"]
    assert TOKEN not in quarantined.read_text() and _mode(quarantined) == 0o600
    assert job_status.queue_status(memory_root) == job_status.QueueStatus(pending=0, quarantined=1, failing=0)


def test_a_job_whose_worker_died_every_time_ends_in_quarantine(tmp_path, memory_root):
    b, transcript = _session(tmp_path, "turn")
    job = jobs.enqueue(memory_root, "stop", _stop(b, transcript, memory_root))
    record = json.loads(job.read_text())
    record["attempts"] = jobs.MAX_ATTEMPTS  # counted before each attempt: the last worker never came back
    jobs.save(job, record)
    assert not worker.run_job_file(memory_root, load_config(memory_root), job)
    assert not job.exists() and len(list(jobs.quarantine_dir(memory_root).glob("*.json"))) == 1


# --- special files and bad text ------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_special_transcripts_are_refused_without_blocking(tmp_path, kind):
    target = {"device": Path("/dev/zero"), "directory": tmp_path}.get(kind, tmp_path / "t.jsonl")
    if kind == "fifo":
        os.mkfifo(target)
    errors: list[BaseException] = []
    reader = threading.Thread(target=lambda: _collect(errors, target), daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive(), "reading a special file blocked"
    assert len(errors) == 1 and isinstance(errors[0], SpecialFileError)


def _collect(errors: list[BaseException], path: Path) -> None:
    try:
        list(LineReader(path))
    except BaseException as exc:  # noqa: BLE001 - the test inspects it
        errors.append(exc)


def test_fifo_transcript_job_is_quarantined_by_a_real_detached_worker(tmp_path, memory_root):
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    payload = json.dumps({"session_id": "fifo-1", "transcript_path": str(fifo), "cwd": str(memory_root.parent),
                          "hook_event_name": "Stop"})
    env = {**os.environ, "MEMDOWN_HOOK_SYNC": "0"}
    proc = subprocess.run([sys.executable, "-m", "memdown", "hook", "Stop"], input=payload, capture_output=True,
                          text=True, timeout=60, env=env)
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}
    done = job_status.QueueStatus(pending=0, quarantined=1, failing=0)
    assert wait_for(lambda: job_status.queue_status(memory_root) == done, timeout=60)
    (quarantined,) = jobs.quarantine_dir(memory_root).glob("*.json")
    assert "FIFO" in json.loads(quarantined.read_text())["reason"]
    assert wait_for(lambda: not jobs.worker_running(memory_root), timeout=30)


def test_lone_surrogate_and_invalid_utf8_do_not_cost_later_turns(tmp_path, memory_root):
    b = TranscriptBuilder()
    b.prompt("first turn is fine")
    b.reply("ok")
    b.prompt("second turn has half an emoji: SURR")
    b.reply("reply with BADBYTE inside")
    b.prompt("third turn after the bad text")
    b.reply("still recorded")
    transcript = b.write(tmp_path / "t" / f"{b.session_id}.jsonl")
    raw = transcript.read_bytes().replace(b"SURR", b"\\ud83d").replace(b"BADBYTE", b"\xff\xfe")
    transcript.write_bytes(raw)
    for n in range(3):  # one Stop per turn, as in a real session
        lines = raw.split(b"\n")[: 2 * (n + 1)]
        transcript.write_bytes(b"\n".join(lines) + b"\n")
        job = jobs.enqueue(memory_root, "stop", _stop(b, transcript, memory_root,
                                                      last_assistant_message="half \ud83d an emoji"))
        assert worker.run_job_file(memory_root, load_config(memory_root), job), n
    text = _recorded(memory_root)
    for turn in b.turn_uuids:
        assert f"turn:{turn}" in text
    assert "\ufffd" in text  # repaired, and the day file is valid UTF-8 (strict read_text above)


def test_hook_stdin_with_invalid_utf8_and_surrogates_still_queues_the_turn(tmp_path, memory_root):
    b, transcript = _session(tmp_path, "turn with broken stdin text")
    payload = hook_payload("Stop", b, transcript, memory_root.parent,
                           last_assistant_message="\\ud83d done").replace("\\\\ud83d", "\\ud83d")
    data = payload.encode("utf-8").replace(b" done", b" \xff done")
    proc = subprocess.run([sys.executable, "-m", "memdown", "hook", "Stop"], input=data, capture_output=True,
                          timeout=60, env={**os.environ, "MEMDOWN_HOOK_SYNC": "1"})
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}
    assert f"turn:{b.turn_uuids[0]}" in _recorded(memory_root)
    assert not jobs.pending_jobs(memory_root) and job_status.queue_status(memory_root).quarantined == 0


# --- workers and locks ------------------------------------------------------------------------------

def test_session_start_starts_no_second_worker_and_reports_the_queue(tmp_path, memory_root, monkeypatch):
    b, transcript = _session(tmp_path, "pending turn")
    (memory_root / "memory").mkdir(parents=True)
    jobs.enqueue(memory_root, "stop", _stop(b, transcript, memory_root))
    started: list[Path] = []
    monkeypatch.setattr("memdown.services.capture.detached.start_worker", lambda root: started.append(root))
    slot = jobs.take_worker_slot(memory_root)  # a worker is running
    try:
        out = runner.handle("SessionStart", {"session_id": "n", "cwd": str(memory_root.parent)}, memory_root)
        assert started == []
        assert "1 turn job(s) pending capture" in out["systemMessage"]
    finally:
        os.close(slot)
    runner.handle("SessionStart", {"session_id": "n", "cwd": str(memory_root.parent)}, memory_root)
    assert started == [memory_root]


def test_drain_exits_at_once_when_every_slot_is_taken(memory_root):
    fds = [jobs.take_worker_slot(memory_root) for _ in range(jobs.WORKER_SLOTS)]
    try:
        assert all(fd is not None for fd in fds) and jobs.take_worker_slot(memory_root) is None
        assert jobs.worker_running(memory_root)
        started = time.monotonic()
        assert worker.drain(memory_root, load_config(memory_root), max_seconds=30) == 0 and time.monotonic() - started < 5
    finally:
        for fd in fds:
            os.close(fd)
    assert not jobs.worker_running(memory_root)


def test_lock_files_are_private_even_when_an_old_version_made_them_public(tmp_path):
    fresh = tmp_path / ".fresh.lock"
    with fsutil.file_lock(fresh):
        pass
    old = tmp_path / ".old.lock"
    old.write_text("")
    old.chmod(0o644)
    with fsutil.file_lock(old):
        pass
    assert _mode(fresh) == 0o600 and _mode(old) == 0o600


def test_verify_reports_pending_and_quarantined_turns(tmp_path, memory_root):
    from conftest import run_memdown

    b, transcript = _session(tmp_path, "pending turn")
    (memory_root / "memory").mkdir(parents=True)
    jobs.enqueue(memory_root, "stop", _stop(b, transcript, memory_root))
    jobs.quarantine(memory_root, "1-1-stop", None, "test", b"junk")
    proc = run_memdown("verify", "--json")
    capture = json.loads(proc.stdout)["capture"]
    assert any("1 turn job(s) pending capture" in line for line in capture)
    assert any("1 turn job(s) quarantined" in line for line in capture)


def test_atomic_write_keeps_the_old_file_when_the_write_fails(tmp_path, monkeypatch):
    """Fault injection: the data never reaches the disk (fsync fails); readers still see the old file whole."""
    target = tmp_path / "days" / "2026-11-20.md"
    fsutil.atomic_write_text(target, "old entry\n")

    def disk_error(_fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(fsutil.os, "fsync", disk_error)
    with pytest.raises(OSError):
        fsutil.atomic_write_text(target, "new entry that must not half-replace the old one\n")
    monkeypatch.undo()
    assert target.read_text() == "old entry\n"
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temp file left behind
