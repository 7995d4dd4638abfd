"""Running the daemon as a process: the lock, pid file, signals and logging around ``Daemon``."""
from __future__ import annotations

import logging
import os
import signal
from pathlib import Path

from .. import paths
from ..errors import MemdownError
from .server import Daemon


def serve(root: Path, *, debounce_ms: int | None = None, idle_seconds: float | None = None,
          on_ready=None) -> tuple[int, str]:
    """Run the daemon in this process until it stops; returns (exit code, message).

    Exit code 0 and a message when another daemon already runs for the root.
    """
    from ..live import lifecycle
    from .logs import close_logging, setup_logging

    root = Path(root).resolve()
    paths.require_root(root)
    lock = lifecycle.DaemonLock(root)
    if not lock.acquire(timeout=1.0):
        pid = lifecycle.running_pid(root)
        return 0, f"memdown watch is already running for {root}" + (f" (pid {pid})" if pid else "")
    log = setup_logging(root)
    logging.raiseExceptions = False  # a failed log write (root deleted) must not spam or kill us
    daemon: Daemon | None = None
    stale = lifecycle.read_pid_file(root)
    if stale is not None:
        log.info("replacing a stale pid file (pid %s)", stale.get("pid"))
    try:
        lifecycle.write_pid_file(root, socket=paths.socket_path(root))
        daemon = Daemon(root, debounce_ms=debounce_ms, idle_seconds=idle_seconds, logger=log)

        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, daemon.on_signal)
        daemon.start()
        if on_ready is not None:
            on_ready(daemon)
        reason = daemon.run_until_stopped()
        return 0, f"memdown watch stopped: {reason}"
    except MemdownError as exc:
        log.error("cannot run: %s", exc.one_line())
        raise
    except Exception:
        log.exception("daemon crashed")
        raise
    finally:
        if daemon is not None:
            try:
                daemon.shutdown()
            except Exception:
                log.exception("error during shutdown")
        lifecycle.remove_pid_file(root, os.getpid())
        lock.release()
        close_logging()
