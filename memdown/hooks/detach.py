"""Capture hooks: queue the job durably, then start a fully detached ``memdown worker``.

The job itself is already on disk (``services.jobs.enqueue``) before this
runs, so a worker that never starts loses nothing: the next Stop or
SessionStart starts another. ``os.posix_spawn`` with ``setsid`` instead of
``subprocess``: importing subprocess costs every hook several milliseconds.
With ``MEMDOWN_HOOK_SYNC=1`` (tests, debugging) the job runs in this process.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from .. import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


def start_worker(root: Path) -> None:
    """Spawn ``python -m memdown worker --dir ROOT`` in its own session, output to ``logs/worker.log``."""
    logs = paths.logs_dir(root)
    logs.mkdir(parents=True, exist_ok=True, mode=0o700)
    log = str(logs / "worker.log")
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
    os.posix_spawn(
        sys.executable,
        [sys.executable, "-m", "memdown", "worker", "--dir", str(root)],
        {**os.environ, "LANCEDB_LOG": "error"},
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, log, flags, 0o600),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ],
        setsid=True,  # survives the hook and Claude Code's process group
    )


def run_or_start(root: Path, job_file: Path) -> bool:
    """Run ``job_file`` here in sync mode (True when it succeeded), else start a worker (True)."""
    if os.environ.get("MEMDOWN_HOOK_SYNC") == "1":
        from ..services.worker import run_job_file

        return run_job_file(root, job_file)
    start_worker(root)
    return True


def capture_handler(job: str) -> "Callable[..., dict[str, Any]]":
    """The Stop/PreCompact/SessionEnd handler: durable job first, then the budget, then the worker."""

    def handler(payload: dict[str, Any], root: Path | None, budget: "Callable[[], None]" = lambda: None) -> dict[str, Any]:
        if root is None or payload.get("stop_hook_active") or not payload.get("transcript_path"):
            return {}
        from ..services.jobs import enqueue, hook_log

        job_file = enqueue(root, job, payload)  # durable first: no lock, no budget, no slow import
        budget()  # only now may the time budget run out
        if not run_or_start(root, job_file):
            hook_log(root, job, f"job {job_file.stem} not recorded (failed: retried later, or quarantined; "
                                "see the worker line)")
        return {}

    return handler
