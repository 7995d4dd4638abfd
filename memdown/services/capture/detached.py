"""Starting the detached ``memdown worker`` that runs queued capture jobs.

The job itself is already on disk (``services.capture.jobs.enqueue``) before this
runs, so a worker that never starts loses nothing: the next Stop or
SessionStart starts another. ``os.posix_spawn`` with ``setsid`` instead of
``subprocess``: importing subprocess costs every hook several milliseconds.
With ``MEMDOWN_HOOK_SYNC=1`` (tests, debugging) the job runs in this process.

Standard library only: the Stop hook imports this on its fast path.
"""
from __future__ import annotations

import os

from ...envflags import hook_sync
from .spawn import spawn_detached

TYPE_CHECKING = False  # not `import typing` (nor pathlib) at run time: every hook pays for it
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Callable

    from ...config import Config


def start_worker(root: str | os.PathLike[str]) -> None:
    """Spawn ``python -m memdown worker --dir ROOT`` in its own session, output to ``logs/worker.log``."""
    spawn_detached(root, ["-m", "memdown", "worker", "--dir", str(root)], "worker.log")


def run_or_start(root: str | os.PathLike[str], job_file: str | os.PathLike[str], config: Config | None,
                 later: list[Callable[[], None]] | None = None) -> bool:
    """Run ``job_file`` here in sync mode (True when it succeeded), else start a worker (True): now, or, given
    ``later``, once the hook's answer is out (the caller runs what ``later`` holds).

    ``config`` is needed only in sync mode (the caller loads it only then).
    """
    if hook_sync() and config is not None:
        from pathlib import Path

        from .worker import run_job_file

        return run_job_file(Path(root), config, Path(job_file))
    if later is not None:
        later.append(lambda: start_worker(root))
    else:
        start_worker(root)
    return True


def queue_job(root: str | os.PathLike[str], job: str, payload: dict[str, Any],
              budget: Callable[[], None] | None = None, config: Config | None = None,
              later: list[Callable[[], None]] | None = None) -> None:
    """Durable job first, then the time budget (``budget()``), then the worker: a capture hook's whole work."""
    from .jobs import enqueue_file, hook_log

    # Durable first: no lock, no budget, no slow import (the redactor, when needed, runs after the answer).
    job_file = enqueue_file(root, job, payload, None if hook_sync() else later)
    if budget is not None:
        budget()  # only now may the time budget run out
    if not run_or_start(root, job_file, config, later):
        hook_log(root, job, f"job {os.path.basename(job_file).removesuffix('.json')} not recorded (failed: retried later, or quarantined; "
                            "see the worker line)")


def retry_pending_jobs(root: Path) -> str:
    """Start a worker for pending jobs unless one runs; the queue's status clause ('' when empty)."""
    from .job_status import queue_status
    from .jobs import worker_running

    queue = queue_status(root)
    if queue.pending and not worker_running(root):
        start_worker(root)
    return queue.summary()
