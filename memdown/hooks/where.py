"""Where a hook's payload points (its memory root) and where a hook writes its log line.

Shared by the runner and the PreToolUse short path (``pretool``); imported only when needed there.
"""
from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def log_line(root: Path | None, event: str, message: str) -> None:
    """One line in the hook log (rotated at 1 MB); never raises."""
    from ..services.capture.jobs import hook_log

    hook_log(root, event, message)


def root_for(payload: dict[str, Any]) -> Path | None:
    try:
        from .. import paths

        cwd = payload.get("cwd")
        start = Path(cwd) if isinstance(cwd, str) and cwd and os.path.isdir(cwd) else None
        return paths.memory_root(start=start)
    except Exception:
        return None
