"""Where a hook's payload points (its memory root) and where a hook writes its log line.

Shared by the runner and the PreToolUse short path (``pretool``); imported only when needed there.
The root is a plain string (``pathstr``): a capture hook and a guard's log line never import pathlib.
"""
from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


def log_line(root: str | os.PathLike[str] | None, event: str, message: str) -> None:
    """One line in the hook log (rotated at 1 MB); never raises."""
    from ..services.capture.jobs import hook_log

    hook_log(root, event, message)


def root_path(payload: dict[str, Any]) -> str | None:
    """The memory root the payload's ``cwd`` belongs to (``pathstr.memory_root``), None when it cannot be told."""
    try:
        from .. import pathstr

        cwd = payload.get("cwd")
        start = cwd if isinstance(cwd, str) and cwd and os.path.isdir(cwd) else None
        return pathstr.memory_root(start=start)
    except Exception:
        return None


def root_for(payload: dict[str, Any]) -> Path | None:
    """``root_path`` as a ``Path``, for the handlers that work with one."""
    found = root_path(payload)
    if found is None:
        return None
    from pathlib import Path

    return Path(found)
