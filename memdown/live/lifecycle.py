"""One watch daemon per memory root: lock, pid file, start, stop, status.

Standard library only: hooks call :func:`ensure_daemon` on their fast path.

The files involved:

- ``<root>/.watch.lock``: an ``fcntl.flock`` the daemon holds for its whole
  life. The kernel releases it when the process dies, however it dies, so
  "is a daemon running?" is exactly "is this lock held?"; a killed daemon
  never leaves a live lock behind.
- ``<root>/.watch.pid``: JSON (pid, start time, socket) written by the lock
  holder right after it takes the lock, removed before it lets go.
- the Unix socket at :func:`memdown.paths.socket_path` (private 0700 folder).

Stale pid and socket files (a killed daemon) are only ever removed by the next
daemon, after it holds the lock; clients just report them.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import fsutil
from .. import __version__, paths

if TYPE_CHECKING:
    from ..config import Config

LOCK_NAME = "watch"
START_TIMEOUT = 20.0
STOP_TIMEOUT = 15.0
_children: dict[int, subprocess.Popen] = {}  # daemons this process started (reaped on stop)


# --- the lock ---------------------------------------------------------------

def lock_path(root: Path) -> Path:
    return paths.lock_file(Path(root), LOCK_NAME)


class DaemonLock:
    """The daemon's exclusive lock; hold it for the process's lifetime."""

    def __init__(self, root: Path) -> None:
        self.path = lock_path(root)
        self.fd: int | None = None

    def acquire(self, timeout: float = 1.0) -> bool:
        """True once held; False if another process holds it after ``timeout``.

        A short retry covers status probes, which hold a shared lock for a
        few microseconds.
        """
        fd, _st = fsutil.open_file(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.fd = fd
                return True
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    os.close(fd)
                    raise
            if time.monotonic() >= deadline:
                os.close(fd)
                return False
            time.sleep(0.02)

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor releases the lock
            self.fd = None


def lock_held(root: Path) -> bool:
    """Whether some process (a live daemon) holds the root's watch lock."""
    try:
        fd, _st = fsutil.open_file(lock_path(root), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK)
    finally:
        os.close(fd)  # also drops our shared lock
    return False


# --- the pid file -----------------------------------------------------------

def write_pid_file(root: Path, *, socket: Path) -> None:
    from ..fsutil import atomic_write_text

    info = {"pid": os.getpid(), "started": time.time(), "socket": str(socket), "version": __version__,
            "fresh_barrier": 1}  # answers freshness questions (live/barrier.py)
    atomic_write_text(paths.pid_file(Path(root)), json.dumps(info) + "\n", mode=paths.PRIVATE_FILE_MODE)


def read_pid_file(root: Path) -> dict[str, Any] | None:
    try:
        text = fsutil.read_text(paths.pid_file(Path(root))).strip()
    except (OSError, UnicodeDecodeError):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        data = {"pid": int(text)} if text.isdigit() else None  # a bare pid, if anyone writes one
    if not isinstance(data, dict) or not isinstance(data.get("pid"), int) or data["pid"] <= 0:
        return None
    return data


def remove_pid_file(root: Path, pid: int | None = None) -> None:
    """Remove the pid file (only if it names ``pid``, when given)."""
    if pid is not None:
        info = read_pid_file(root)
        if info is not None and info["pid"] != pid:
            return
    fsutil.unlink(paths.pid_file(Path(root)))


def _looks_like_daemon(pid: int) -> bool:
    """Best effort: is ``pid`` a memdown process? (True where /proc is absent.)"""
    try:
        cmdline = fsutil.read_bytes(Path(f"/proc/{pid}/cmdline"))
    except FileNotFoundError:
        return not Path("/proc/self").exists() and _alive(pid)
    except OSError:
        return True
    return b"memdown" in cmdline


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_pid(root: Path, *, wait: float = 2.0) -> int | None:
    """The pid of the root's live daemon, or None if none runs.

    While a daemon is starting it may hold the lock before its pid file is
    written: wait up to ``wait`` seconds for a pid file that names it.
    """
    deadline = time.monotonic() + wait
    while True:
        if not lock_held(root):
            return None
        info = read_pid_file(root)
        if info is not None and _looks_like_daemon(info["pid"]):
            return info["pid"]
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.05)


# --- starting, stopping, status --------------------------------------------

def log_file(root: Path) -> Path:
    return paths.logs_dir(Path(root)) / "watch.log"


def _reap_children() -> None:
    for pid, proc in list(_children.items()):
        if proc.poll() is not None:
            _children.pop(pid, None)


def start_detached(root: Path, *, debounce_ms: int | None = None, idle_seconds: float | None = None) -> int:
    """Start ``memdown watch --foreground`` in its own session; return its pid.

    Does not wait: the caller polls :func:`wait_until_ready` if it cares.
    The child's stdout goes nowhere and its stderr (only ever an early crash;
    the daemon logs to ``logs/watch.log``) to ``logs/watch.stderr.log``.
    """
    root = Path(root)
    _reap_children()
    logs = paths.logs_dir(root)
    fsutil.make_dirs(logs)
    cmd = [sys.executable, "-m", "memdown", "watch", "--foreground", "--dir", str(root)]
    if debounce_ms is not None:
        cmd += ["--debounce-ms", str(int(debounce_ms))]
    if idle_seconds is not None:
        cmd += ["--idle-seconds", str(float(idle_seconds))]
    env = dict(os.environ)
    env.setdefault("LANCEDB_LOG", "error")
    err_fd, _st = fsutil.open_file(logs / "watch.stderr.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(err_fd, "ab") as err:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
            close_fds=True,
            cwd="/",
            env=env,
        )
    _children[proc.pid] = proc
    return proc.pid


def ping(root: Path, *, timeout: float = 0.5) -> dict[str, Any] | None:
    """The daemon's own status (op ``ping``), or None if it does not answer."""
    from .client import ask_daemon

    reply = ask_daemon(Path(root), "ping", {}, timeout=timeout, reply_timeout=max(timeout, 2.0))
    if reply is not None and reply.get("ok") and isinstance(reply.get("result"), dict):
        return reply["result"]
    return None


def wait_until_ready(root: Path, pid: int | None = None, *, timeout: float = START_TIMEOUT) -> bool:
    """Poll until the daemon answers a ping (False on timeout or if ``pid`` died)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ping(root, timeout=0.25) is not None:
            return True
        if pid is not None:
            proc = _children.get(pid)
            if (proc is not None and proc.poll() is not None) or (proc is None and not _alive(pid)):
                return ping(root, timeout=0.25) is not None  # another daemon may have won the race
        time.sleep(0.05)
    return False


def stop(root: Path, *, timeout: float = STOP_TIMEOUT) -> int | None:
    """SIGTERM the root's daemon and wait for it to let go of its lock.

    Escalates to SIGKILL after ``timeout``. Returns the pid stopped, or None
    if no daemon was running.
    """
    root = Path(root)
    pid = running_pid(root)
    if pid is None:
        _reap_children()
        return None
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + timeout
    while lock_held(root) and time.monotonic() < deadline:
        time.sleep(0.02)
    if lock_held(root) and _alive(pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        kill_deadline = time.monotonic() + 5
        while lock_held(root) and time.monotonic() < kill_deadline:
            time.sleep(0.02)
    proc = _children.pop(pid, None)
    if proc is not None:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    _reap_children()
    return pid


def status(root: Path, *, ask: bool = True) -> dict[str, Any]:
    """Everything ``memdown watch --status`` shows."""
    root = Path(root)
    sock = paths.socket_path(root)
    out: dict[str, Any] = {
        "root": str(root),
        "running": False,
        "pid": None,
        "socket": str(sock),
        "log": str(log_file(root)),
        "responding": False,
        "stale_files": [],
    }
    pid = running_pid(root, wait=0.5)
    if pid is not None:
        info = read_pid_file(root) or {}
        out.update(running=True, pid=pid, started=info.get("started"))
        if info.get("started"):
            out["uptime_seconds"] = round(time.time() - float(info["started"]), 1)
        if ask:
            result = ping(root)
            if result is not None:
                out["responding"] = True
                out["daemon"] = result
    else:
        stale = [str(p) for p in (paths.pid_file(root), sock) if p.exists() or p.is_symlink()]
        out["stale_files"] = stale
    return out


def ensure_daemon(root: Path | str, config: "Config | None" = None) -> str:
    """Make sure the root's daemon runs: "running", "started" or "disabled".

    For the SessionStart hook: standard library only and fast (it never waits
    for the daemon to come up). "disabled" means ``watch.enabled`` is false,
    the config cannot be read, or there is no memory root to watch.
    """
    root = Path(root)
    if not root.is_dir():
        return "disabled"
    try:
        if config is None:  # a caller that loaded the config passes it (SessionStart does)
            from ..config import load_config

            config = load_config(root)
        if not config["watch.enabled"]:
            return "disabled"
    except Exception:
        return "disabled"
    if lock_held(root):
        return "running"
    try:
        start_detached(root)
    except OSError:
        return "disabled"
    return "started"


def start_for_next_query(root: Path, config: "Config") -> str:
    """After a query answered in-process: start the root's daemon so the next CLI query is warm.

    Returns ``ensure_daemon``'s word ("started", "running" or "disabled";
    ``watch.start_on_query = false`` or ``watch.enabled = false`` turn it off,
    as do ``MEMDOWN_WATCH_START_ON_QUERY=0`` / ``MEMDOWN_WATCH_ENABLED=0``). It
    never waits for the daemon (loading the model there takes seconds) and
    never raises: this query's answer is already printed.
    """
    try:
        if not config["watch.start_on_query"]:
            return "disabled"
        return ensure_daemon(Path(root), config)
    except Exception as exc:  # a failed start must not fail the query that triggered it
        from .client import _notice

        _notice(Path(root), f"could not start the daemon after a cold query: {type(exc).__name__}: {exc}")
        return "disabled"
