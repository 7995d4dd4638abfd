"""Starting a detached background process (the capture worker, the vector filler).

``os.posix_spawn`` with ``setsid`` instead of ``subprocess``: importing
subprocess costs every hook several milliseconds. Standard library only.
"""
from __future__ import annotations

import os
import sys

from ... import fsutil, pathstr


def spawn_detached(root: str | os.PathLike[str], args: list[str], log_name: str) -> None:
    """Spawn ``python ARGS`` in its own session (it outlives the caller), output appended to ``logs/LOG_NAME``."""
    logs = pathstr.logs_dir(root)
    fsutil.make_dirs(logs, mode=0o700)
    # opened here, through the file layer (a planted logs/ link is refused), and handed to the child
    log_fd, _st = fsutil.open_file(os.path.join(logs, log_name), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        _spawn(args, log_fd)
    finally:
        os.close(log_fd)


def _spawn(args: list[str], log_fd: int) -> None:
    os.posix_spawn(
        sys.executable,
        [sys.executable, *args],
        {**os.environ, "LANCEDB_LOG": "error"},
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, log_fd, 1),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ],
        setsid=True,  # survives the hook and Claude Code's process group
    )
