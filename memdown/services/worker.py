"""Detached jobs handed over by hooks: capture turns, mine signals, index.

A job file is removed only after its job succeeded; a failed one moves to
``state/jobs/failed/`` with the error logged, so nothing is silently dropped.
"""
from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from .. import paths
from ..config import load_config
from ..errors import LockTimeoutError
from ..fsutil import file_lock

log = logging.getLogger("memdown.worker")

# Claude Code writes the transcript asynchronously; give the last lines a moment.
TRANSCRIPT_SETTLE_SECONDS = 1.0


def _capture(root: Path, payload: dict[str, Any], *, include_last_turn: bool) -> None:
    from .capture import record_session

    transcript = payload.get("transcript_path")
    if not transcript or not Path(transcript).exists():
        log.info("no transcript at %s", transcript)
        return
    if os.environ.get("MEMDOWN_HOOK_SYNC") != "1":
        time.sleep(TRANSCRIPT_SETTLE_SECONDS)
    report = record_session(
        root, Path(transcript), str(payload.get("session_id") or ""),
        last_message=payload.get("last_assistant_message") if include_last_turn else None,
        include_last_turn=include_last_turn,
    )
    log.info("capture %s: %s", payload.get("session_id"), report)


def _mine(root: Path, payload: dict[str, Any]) -> None:
    from ..signals.mining import mine_session

    transcript = payload.get("transcript_path")
    if transcript and Path(transcript).exists():
        signals = mine_session(root, Path(transcript), str(payload.get("session_id") or ""))
        log.info("mined %d signal(s)", len(signals))


def _sweep(root: Path) -> None:
    from ..learning.reflector import sweep

    log.info("sweep: %s", sweep(root))


def _index(root: Path) -> None:
    """Refresh the index unless the watch daemon (or another writer) is at it."""
    try:
        with file_lock(paths.lock_file(root, "index-refresh"), timeout=0):
            from ..api import Memory

            report = Memory.open(root).index()
            log.info("indexed: %d file(s), %d embedded", report.files_indexed, report.embedded)
    except LockTimeoutError:
        log.info("index busy; left to the current writer")


def _steps(root: Path, job: str, payload: dict[str, Any]) -> list[tuple[str, Any]]:
    capture_last = job != "precompact"  # auto-compaction may fire mid-turn
    steps: list[tuple[str, Any]] = [("capture", lambda: _capture(root, payload, include_last_turn=capture_last))]
    if job in ("precompact", "sessionend"):
        steps.append(("mine", lambda: _mine(root, payload)))
    if job == "sessionend":
        steps.append(("sweep", lambda: _sweep(root)))
        live = load_config(root)["watch.enabled"] and paths.socket_path(root).exists()
        if not live:  # otherwise the live daemon indexes the new entries itself
            steps.append(("index", lambda: _index(root)))
    return steps


def run_job(root: Path, job: str, payload: dict[str, Any]) -> None:
    """Run every step of a job; one failing step does not stop the others."""
    if job == "retry":
        for job_path in payload.get("jobs", []):
            if Path(job_path).exists():
                run_job_file(root, Path(job_path))
        return
    if job not in ("stop", "precompact", "sessionend"):
        raise ValueError(f"unknown job {job!r}")
    from ..redact import enable_maintained_detectors

    enable_maintained_detectors()  # detect-secrets joins our rules here: loaded up front, never under a lock
    failed: list[str] = []
    for name, step in _steps(root, job, payload):
        try:
            step()
        except Exception as exc:
            log.warning("step %s of %s failed: %s: %s", name, job, type(exc).__name__, exc)
            failed.append(name)
    if failed:
        raise RuntimeError(f"{job}: step(s) failed: {', '.join(failed)}")


def run_job_file(root: Path, job_file: Path) -> bool:
    """Run one job file; True on success (the file is then removed)."""
    try:
        data = json.loads(job_file.read_text())
        run_job(root, data["job"], data.get("payload") or {})
    except Exception as exc:
        log.warning("job %s failed (kept in jobs/failed/): %s", job_file.name, exc)
        failed = job_file.parent / "failed"
        failed.mkdir(exist_ok=True)
        try:
            os.replace(job_file, failed / job_file.name)
        except OSError:
            pass
        return False
    try:
        job_file.unlink()
    except FileNotFoundError:
        pass
    return True
