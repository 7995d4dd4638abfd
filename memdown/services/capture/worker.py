"""The detached worker: runs queued capture jobs (capture turns, mine signals, index).

``drain`` takes one of ``jobs.WORKER_SLOTS`` slots (a new worker exits at once
when all are taken; the running ones pick the new job up), then runs every
due job, oldest first, and stays while failed jobs wait for their backoff.
A job file is removed only after all its steps succeeded; a failure puts it
back with its attempt count and next try time, and a permanent error or the
last attempt quarantines it (see ``services.capture.jobs``). Every outcome is one line
in ``logs/hooks.log``: nothing there says ok for a job that failed.
"""
from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any, Callable

from ... import paths
from ...config import Config, hook_sync
from ...errors import InputFileError, LockTimeoutError, NotFoundError
from ...fsutil import file_lock
from . import jobs

log = logging.getLogger("memdown.worker")

# Claude Code writes the transcript asynchronously; give the last lines a moment
# (counted from the job's creation, so a queue of jobs does not sleep once per job).
TRANSCRIPT_SETTLE_SECONDS = 1.0
# How long a worker stays for jobs waiting on their backoff before leaving them
# to the next worker (every Stop and SessionStart starts one when jobs are pending).
MAX_WORKER_SECONDS = 900.0
POLL_SECONDS = 2.0


class PermanentJobError(Exception):
    """A job that can never succeed as it is: quarantine it now."""


def _capture(root: Path, config: Config, record: dict[str, Any], *, include_last_turn: bool,
             final: bool = False) -> None:
    from .record import record_session

    payload = record["payload"]
    transcript = payload.get("transcript_path")
    if not transcript or not isinstance(transcript, str):
        raise PermanentJobError("job has no transcript_path")
    if not os.path.lexists(transcript):
        raise PermanentJobError(f"transcript not found: {transcript}")
    if not hook_sync():
        settle = float(record.get("created") or 0) + TRANSCRIPT_SETTLE_SECONDS - time.time()
        if settle > 0:
            time.sleep(min(settle, TRANSCRIPT_SETTLE_SECONDS))
    report = record_session(
        root, Path(transcript), str(payload.get("session_id") or ""), config=config,
        last_message=payload.get("last_assistant_message") if include_last_turn else None,
        include_last_turn=include_last_turn,
        final=final,
    )
    log.info("capture %s: %s", payload.get("session_id"), report)


def _archive(root: Path, record: dict[str, Any]) -> None:
    """Copy the transcript into MEMDOWN_HOME/transcripts (its own step: a full disk there costs no entry)."""
    from ...store import forgetting
    from ...transcript.archive import archive_transcript

    payload = record["payload"]
    transcript = payload.get("transcript_path")
    if transcript and os.path.isfile(transcript) and _holds_many_sessions(Path(transcript)):
        log.info("not archived: %s holds every OpenCode session of every project (OpenCode keeps it)", transcript)
        return
    if transcript and os.path.isfile(transcript):
        archive_transcript(Path(transcript), str(payload.get("session_id") or ""), forgotten=forgetting.load(root))


def _holds_many_sessions(path: Path) -> bool:
    from ...clients import kind_of

    return kind_of(path).shape == "sqlite"


def _mine(root: Path, config: Config, record: dict[str, Any]) -> None:
    from .signal_mining import mine_session

    payload = record["payload"]
    transcript = payload.get("transcript_path")
    if transcript and os.path.isfile(transcript):
        signals = mine_session(root, Path(transcript), str(payload.get("session_id") or ""), config=config)
        log.info("mined %d signal(s)", len(signals))


def _sweep(root: Path, config: Config) -> None:
    from ...learning.sweep import sweep

    log.info("sweep: %s", sweep(root, config=config))


def _index(root: Path, config: Config) -> None:
    """Refresh the index unless the watch daemon (or another writer) is at it."""
    try:
        with file_lock(paths.lock_file(root, "index-refresh"), timeout=0):
            from ..upkeep.memory import Memory

            report = Memory.open(root, config=config).index()
            log.info("indexed: %d file(s), %d embedded", report.files_indexed, report.embedded)
    except LockTimeoutError:
        log.info("index busy; left to the current writer")


def _steps(root: Path, config: Config, record: dict[str, Any]) -> list[tuple[str, Callable[[], None]]]:
    job = record.get("job")
    if job not in jobs.KNOWN_JOBS:
        raise PermanentJobError(f"unknown job {job!r}")
    capture_last = job != "precompact"  # auto-compaction may fire mid-turn
    steps: list[tuple[str, Callable[[], None]]] = [
        ("capture", lambda: _capture(root, config, record, include_last_turn=capture_last, final=job == "sessionend"))]
    if config["archive.enabled"]:
        steps.append(("archive", lambda: _archive(root, record)))
    if job in ("precompact", "sessionend"):
        steps.append(("mine", lambda: _mine(root, config, record)))
    if job == "sessionend":
        steps.append(("sweep", lambda: _sweep(root, config)))
        live = config["watch.enabled"] and paths.socket_path(root).exists()
        if not live:  # otherwise the live daemon indexes the new entries itself
            steps.append(("index", lambda: _index(root, config)))
    return steps


def run_steps(root: Path, config: Config, record: dict[str, Any]) -> list[tuple[str, Exception]]:
    """Run the steps not done yet (recorded in ``done_steps``); one failing step does not stop the others."""
    from ...redact import enable_maintained_detectors

    enable_maintained_detectors()  # detect-secrets joins our rules here: loaded up front, never under a lock
    failures: list[tuple[str, Exception]] = []
    done = record.setdefault("done_steps", [])
    for name, step in _steps(root, config, record):
        if name in done:
            continue
        try:
            step()
            done.append(name)
        except Exception as exc:
            log.warning("step %s of %s failed: %s", name, record.get("job"), _describe(exc))
            failures.append((name, exc))
    return failures


def _describe(exc: BaseException) -> str:
    """``Type: message``, redacted: errors are written to job files and logs."""
    from ...redact import redact

    return redact(f"{type(exc).__name__}: {exc}")


def _is_permanent(exc: Exception) -> bool:
    return isinstance(exc, (PermanentJobError, InputFileError, NotFoundError))


def process(root: Path, config: Config, claimed: jobs.Claim) -> bool:
    """Run one claimed job; True when it is done. The claim is released in every case.

    The attempt is counted (and the next try scheduled) before the steps run,
    so a job that kills or hangs its worker still ends in quarantine.
    """
    name = claimed.path.stem
    finished = False
    try:
        record = claimed.record
        if record is None:
            jobs.quarantine(root, name, None, "job file is not a readable job", claimed.raw)
            finished = True
            return False
        attempts = int(record.get("attempts") or 0)
        if attempts >= jobs.MAX_ATTEMPTS:
            jobs.quarantine(root, name, record, f"gave up after {attempts} attempts; last error: "
                            f"{record.get('last_error') or 'the worker stopped during the attempt'}")
            finished = True
            return False
        record["attempts"] = attempts + 1
        record["next_try"] = time.time() + jobs.backoff(record["attempts"])
        jobs.save(claimed.path, record)
        try:
            failures = run_steps(root, config, record)
        except PermanentJobError as exc:
            failures = [("setup", exc)]
        if not failures:
            finished = True
            jobs.hook_log(root, "worker", f"job {name} done ({record.get('job')}, attempt {record['attempts']})")
            return True
        record["last_error"] = "; ".join(f"{step}: {_describe(exc)}" for step, exc in failures)[:2000]
        if "capture" in record["done_steps"] and record["attempts"] >= jobs.MAX_ATTEMPTS:
            # The turns are in the markdown: a later step (archive, mining, index) never quarantines them.
            jobs.hook_log(root, "worker", f"job {name} recorded; gave up on later steps: {record['last_error'][:300]}")
            finished = True
            return True
        landed = "capture" in record["done_steps"]  # then an error is retried, not final (a disk may get room)
        if (not landed and any(_is_permanent(exc) for _, exc in failures)) or record["attempts"] >= jobs.MAX_ATTEMPTS:
            jobs.quarantine(root, name, record, record["last_error"])
            finished = True
            return False
        delay = jobs.backoff(record["attempts"])
        record["next_try"] = time.time() + delay
        jobs.save(claimed.path, record)
        jobs.hook_log(root, "worker", f"job {name} failed (attempt {record['attempts']}/{jobs.MAX_ATTEMPTS}), "
                                      f"retry in {delay:.0f}s: {record['last_error'][:300]}")
        return False
    finally:
        jobs.release(claimed, remove=finished)


def run_job_file(root: Path, config: Config, job_file: Path) -> bool:
    """Run one job now, whatever its backoff says (sync mode, tests); True when done.

    False when it failed (it stays pending, or was quarantined) or another
    worker holds it.
    """
    claimed = jobs.claim(job_file, due_only=False)
    if claimed is None:
        return False
    return process(root, config, claimed)


def _run_due(root: Path, config: Config) -> int:
    ran = 0
    for path in jobs.pending_jobs(root):
        claimed = jobs.claim(path)
        if claimed is not None:
            process(root, config, claimed)
            ran += 1
    return ran


def drain(root: Path, config: Config, *, max_seconds: float = MAX_WORKER_SECONDS) -> int:
    """Run due jobs until none is pending (or ``max_seconds``); the number run.

    Returns at once when every worker slot is taken. After giving its slot back
    it looks once more, so a job queued just as it finished is not stranded.
    """
    deadline = time.monotonic() + max_seconds
    total = 0
    while True:
        slot = jobs.take_worker_slot(root)
        if slot is None:
            return total
        try:
            while True:
                jobs.recover(root)
                ran = _run_due(root, config)
                total += ran
                if ran:
                    continue
                wait = jobs.seconds_to_next(root)
                if wait is None or time.monotonic() + wait > deadline:
                    break
                time.sleep(min(max(wait, 0.2), POLL_SECONDS))
        finally:
            os.close(slot)
        wait = jobs.seconds_to_next(root)
        if wait is None or wait > 0 or time.monotonic() > deadline:
            return total


def main(argv: list[str]) -> int:
    """``memdown worker [--dir ROOT]``: drain the root's job queue (what hooks start, detached)."""
    root: Path | None = None
    rest = list(argv)
    if "--dir" in rest:
        at = rest.index("--dir")
        root = Path(rest[at + 1]) if at + 1 < len(rest) else None
        del rest[at:at + 2]
    root = paths.memory_root(root)
    try:
        from ...logfiles import log_to_file

        log_to_file(paths.logs_dir(root) / "worker.log")  # rotated; shared with the other workers
    except OSError:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    for extra in rest:  # an old-style job file argument: make sure it is in this root's queue
        log.info("draining %s (job %s)", root, extra)
    from ...config import load_config

    drain(root, load_config(root))  # the worker process is an edge: config loaded once, here
    return 0
