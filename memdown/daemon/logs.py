"""The daemon's log: ``<root>/logs/watch.log``, rotated (``memdown.logfiles``), never the user's terminal."""
from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from .. import fsutil, paths

LOGGER_NAME = "memdown.daemon"
MAX_BYTES = 1_000_000
BACKUPS = 3
FORMAT = "%(asctime)s %(process)d %(levelname)s [%(threadName)s] %(message)s"


def log_file(root: Path) -> Path:
    return paths.logs_dir(Path(root)) / "watch.log"


def setup_logging(root: Path, *, level: int = logging.INFO, max_bytes: int = MAX_BYTES,
                  backups: int = BACKUPS) -> logging.Logger:
    """Send the daemon's logger (and watchdog's warnings) to a rotating file.

    ``logs/`` gets its own ``.gitignore`` so the log is never committed, even
    in a memory root that was not created by ``memdown init``.
    """
    folder = paths.logs_dir(Path(root))
    fsutil.make_dirs(folder)
    ignore = folder / ".gitignore"
    if fsutil.lstat(ignore) is None:
        try:
            fsutil.atomic_write_text(ignore, "*\n")
        except OSError:
            pass
    from ..logfiles import RotatingLog, append_rotating, redirected_to

    # A detached start appends the daemon's stderr (an early crash, native libraries' warnings) to
    # watch.stderr.log: rotated here, at each start, and stderr follows to the current file.
    stderr_log = folder / "watch.stderr.log"
    if redirected_to(stderr_log):
        append_rotating(stderr_log, f"{time.strftime('%Y-%m-%dT%H:%M:%S')} pid {os.getpid()} started\n",
                        max_bytes=max_bytes, backups=backups, follow_fds=redirected_to(stderr_log))
    # Safe with several writers (a daemon starting while the last one shuts down).
    handler = RotatingLog(log_file(root), max_bytes=max_bytes, backups=backups)
    handler.setFormatter(logging.Formatter(FORMAT))
    logger = logging.getLogger(LOGGER_NAME)
    for old in list(logger.handlers):
        if getattr(old, "_memdown_daemon", False):
            logger.removeHandler(old)
            old.close()
    handler._memdown_daemon = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    watchdog_logger = logging.getLogger("watchdog")
    for old in list(watchdog_logger.handlers):
        if getattr(old, "_memdown_daemon", False):
            watchdog_logger.removeHandler(old)
    watchdog_logger.addHandler(handler)
    watchdog_logger.setLevel(logging.WARNING)
    return logger


def close_logging() -> None:
    for name in (LOGGER_NAME, "watchdog"):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if getattr(handler, "_memdown_daemon", False):
                logger.removeHandler(handler)
                handler.close()


def get_logger() -> logging.Logger:
    return logging.getLogger(LOGGER_NAME)
