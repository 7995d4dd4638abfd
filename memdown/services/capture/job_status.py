"""How the capture queue stands: pending, failing and quarantined jobs, as counts and one-line reports.

What ``memdown verify`` and the SessionStart status line say about turns not
yet recorded. Standard library only (SessionStart reads it on its fast path).
"""
from __future__ import annotations

import os
from pathlib import Path

from ... import fsutil
from .jobs import jobs_dir, pending_jobs, quarantine_dir, read_record


class QueueStatus(tuple):
    """(pending, quarantined, failing): failing counts pending jobs that failed at least once."""

    __slots__ = ()

    def __new__(cls, pending: int, quarantined: int, failing: int) -> "QueueStatus":
        return super().__new__(cls, (pending, quarantined, failing))

    @property
    def pending(self) -> int:
        return self[0]

    @property
    def quarantined(self) -> int:
        return self[1]

    @property
    def failing(self) -> int:
        return self[2]

    def lines(self, root: Path | None = None) -> list[str]:
        """One line per kind of waiting job (none when the queue is empty); ``root`` adds the folders."""
        pending_in = f" in {jobs_dir(root)}" if root is not None else ""
        quarantine_in = quarantine_dir(root) if root is not None else "state/jobs/quarantine"
        out = []
        if self.pending:
            out.append(f"{self.pending} turn job(s) pending capture{pending_in}"
                       + (f" ({self.failing} failed at least once and will be retried)" if self.failing else ""))
        if self.quarantined:
            out.append(f"{self.quarantined} turn job(s) quarantined in {quarantine_in} (could not be recorded; "
                       "see `memdown verify`)")
        return out

    def summary(self) -> str:
        """A short clause for status lines ('' when nothing is waiting)."""
        return ", ".join(self.lines())


def queue_status(root: Path) -> QueueStatus:
    """Pending and quarantined jobs (what ``verify`` and the SessionStart status line report)."""
    waiting = failing = 0
    for path in pending_jobs(root):
        try:
            record = read_record(fsutil.read_bytes(path))
        except (OSError, ValueError, UnicodeDecodeError):
            waiting, failing = waiting + 1, failing + 1
            continue
        if "capture" in (record.get("done_steps") or []):
            continue  # its turns are in the markdown; a later step (archive, index) retries on its own
        waiting += 1
        failing += 1 if record.get("attempts") else 0
    folder = jobs_dir(root)
    stranded = 0  # interrupted .tmp and legacy failed/ jobs are pending too until recovered
    for sub in (folder, folder / "failed"):
        try:
            stranded += sum(1 for e in os.scandir(sub) if e.name.endswith(".tmp") or sub.name == "failed")
        except OSError:
            pass
    try:
        quarantined = sum(1 for e in os.scandir(quarantine_dir(root)) if e.name.endswith(".json"))
    except OSError:
        quarantined = 0
    return QueueStatus(waiting + stranded, quarantined, failing)


def verify_lines(root: Path) -> list[str]:
    """Problems for ``memdown verify``: turns not yet captured, and quarantined ones."""
    return queue_status(root).lines(root)
