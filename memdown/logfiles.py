"""Log files under ``<root>/logs/``: rotated by size, a few generations kept, safe with several writers.

Several processes write the same log at once (hooks, detached workers, the
vector filler, the daemon), so rotation goes through concurrent-log-handler's
``ConcurrentRotatingFileHandler``: a lock file serialises the size check and
the renames (``worker.log`` → ``worker.log.1`` → … → ``.3``), and a writer
whose file was rotated by another process reopens the new one.

Detached children are started with stdout/stderr appended to their log, for
what does not go through ``logging`` (tracebacks, native libraries, prints).
:func:`log_to_file` makes those descriptors follow each rotation, so that
output lands in the current file and counts towards its size.

concurrent-log-handler costs ~50 ms to import: only background processes
import this module, and hooks only on the rare append that finds a log over
its size (``fsutil.append_line``).
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

try:
    from concurrent_log_handler import ConcurrentRotatingFileHandler
except ImportError:  # an environment installed before the dependency: rotation without the cross-process lock
    import logging.handlers

    class ConcurrentRotatingFileHandler(logging.handlers.RotatingFileHandler):  # type: ignore[no-redef]
        def __init__(self, filename: str, mode: str, *, chmod: int, terminator: str, **kwargs: object) -> None:
            super().__init__(filename, mode, **kwargs)  # type: ignore[arg-type]
            self.terminator = terminator

MAX_BYTES = 1_000_000
BACKUPS = 3
FORMAT = "%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"


class RotatingLog(ConcurrentRotatingFileHandler):
    """A private (0600) size-rotated log; ``follow_fds`` are re-pointed at the new file after a rotation."""

    def __init__(self, path: Path, *, max_bytes: int = MAX_BYTES, backups: int = BACKUPS,
                 follow_fds: tuple[int, ...] = (), terminator: str = "\n") -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        super().__init__(str(path), "a", maxBytes=max_bytes, backupCount=backups, encoding="utf-8",
                         chmod=0o600, terminator=terminator)
        self.follow_fds = follow_fds

    def doRollover(self) -> None:
        super().doRollover()
        if self.follow_fds:
            fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                for target in self.follow_fds:
                    os.dup2(fd, target)
            finally:
                os.close(fd)


def redirected_to(path: Path) -> tuple[int, ...]:
    """Which of stdout/stderr were opened on ``path`` by whoever started us (a terminal or pipe: none)."""
    try:
        target = os.stat(path)
    except OSError:
        return ()
    found = []
    for fd in (1, 2):
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        if (info.st_ino, info.st_dev) == (target.st_ino, target.st_dev):
            found.append(fd)
    return tuple(found)


def log_to_file(path: Path, *, logger: logging.Logger | None = None, level: int = logging.INFO,
                fmt: str = FORMAT, max_bytes: int = MAX_BYTES, backups: int = BACKUPS) -> RotatingLog:
    """Send ``logger`` (default: the root logger) to the rotating log at ``path``; returns the handler.

    A first line says the process started (rotating the file first when it is over size).
    """
    handler = RotatingLog(path, max_bytes=max_bytes, backups=backups, follow_fds=redirected_to(Path(path)))
    handler.setFormatter(logging.Formatter(fmt))
    target = logger if logger is not None else logging.getLogger()
    for old in list(target.handlers):
        if isinstance(old, RotatingLog) and old.baseFilename == handler.baseFilename:
            target.removeHandler(old)
            old.close()
    target.addHandler(handler)
    target.setLevel(level)
    target.log(max(level, logging.INFO), "pid %d writes this log", os.getpid())
    return handler


def append_rotating(path: Path, text: str, *, max_bytes: int = MAX_BYTES, backups: int = BACKUPS,
                    follow_fds: tuple[int, ...] = ()) -> None:
    """Append ``text`` as-is through the rotating handler (rotating first when the file is over size)."""
    handler = RotatingLog(path, max_bytes=max_bytes, backups=backups, terminator="", follow_fds=follow_fds)
    handler.handleError = _reraise  # type: ignore[method-assign]  # the caller decides (a hook never raises)
    try:
        handler.setFormatter(logging.Formatter("%(message)s"))
        handler.emit(logging.LogRecord("memdown.logfiles", logging.INFO, "", 0, text, None, None))
    finally:
        handler.close()


def _reraise(record: logging.LogRecord) -> None:
    raise  # the exception emit() is handling
