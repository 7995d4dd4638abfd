"""Capture hooks (Stop, PreCompact, SessionEnd): queue the job durably, then start the detached worker.

All the work is ``services.capture.detached.queue_job``; this only decides whether
there is a turn to capture. No config is read on this path.
"""
from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from ..config import Config

# Claude Code event -> the job the worker runs for it.
CAPTURE_JOBS = {"Stop": "stop", "PreCompact": "precompact", "SessionEnd": "sessionend"}


def capture(event: str, payload: dict[str, Any], root: str | os.PathLike[str] | None,
            budget: "Callable[[], None] | None" = None, config: "Config | None" = None,
            later: "list[Callable[[], None]] | None" = None) -> None:
    """Durable job first, then the budget, then the worker (left in ``later`` when given: started after the
    answer); nothing when there is no turn to capture."""
    if root is None or payload.get("stop_hook_active") or not payload.get("transcript_path"):
        return
    from ..services.capture.detached import queue_job

    queue_job(root, CAPTURE_JOBS[event], payload, budget, config, later)
