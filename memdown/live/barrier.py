"""Ask the root's watch daemon "is the index current?" without statting every file (standard library only).

A folder's mtime does not change when a file in it is edited in place, so
nothing short of one stat per file proves the markdown unchanged, except a
watcher that saw every change. The daemon's watcher is one, but a question
must not overtake an edit the watcher has not seen yet. So the question is
itself a file event: the asker creates ``state/fresh/<nonce>.ask`` inside the
watched root. inotify delivers one instance's events in the order they
happened and watchdog dispatches them in that order, so when the daemon's
handler sees the ``.ask`` it has already queued every edit made before it.
It then answers in ``<nonce>.answer``: clean only when nothing is queued or
being indexed, its start-up catch-up is done, and it watches natively
(a polling fallback gives no order).

No daemon, an old one, no answer within ``TIMEOUT``, or "not clean": the
caller falls back to the stat walk. Auto-memory notes live outside the
watched root; callers stat those themselves.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from .. import fsutil
from .. import paths
from . import lifecycle

FOLDER = "fresh"
ASK = ".ask"
ANSWER = ".answer"
TIMEOUT = 0.25  # seconds to wait for the daemon's answer before walking the files instead
FEATURE = "fresh_barrier"  # in the pid file: this daemon answers (1 = this protocol)


def folder(root: Path) -> Path:
    return paths.state_dir(Path(root)) / FOLDER


def watcher_says_clean(root: Path, *, timeout: float = TIMEOUT) -> bool:
    """True only when the root's live daemon vouches that every file event so far is indexed."""
    root = Path(root)
    info = lifecycle.read_pid_file(root)
    where = folder(root)
    if info is None or info.get(FEATURE) != 1 or not where.is_dir() or not lifecycle.lock_held(root):
        return False
    nonce = f"{os.getpid()}-{time.time_ns()}"
    ask, answer = where / (nonce + ASK), where / (nonce + ANSWER)
    try:
        os.close(fsutil.open_file(ask, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)[0])
    except OSError:
        return False
    try:
        deadline, pause = time.monotonic() + timeout, 0.0005
        while True:
            try:
                reply = json.loads(fsutil.read_text(answer))
                return isinstance(reply, dict) and reply.get("clean") is True and reply.get("pid") == info["pid"]
            except (OSError, ValueError):
                pass
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.01)
    finally:
        for path in (ask, answer):
            try:
                fsutil.unlink(path)
            except OSError:
                pass


def answer(ask_path: str, *, clean: bool) -> None:
    """The daemon's side: reply to one ``.ask`` (written whole: temp file, then rename)."""
    if not ask_path.endswith(ASK):
        return
    target = ask_path[: -len(ASK)] + ANSWER
    try:
        fsutil.atomic_write_text(Path(target), json.dumps({"clean": clean, "pid": os.getpid()}), durable=False)
    except OSError:
        pass


def reset(root: Path) -> None:
    """Empty the question folder (a starting daemon: questions of processes now gone)."""
    where = folder(root)
    for path in fsutil.list_files(where, hidden=True):
        try:
            fsutil.unlink(path)
        except OSError:
            pass
    fsutil.make_dirs(where)


def is_question(root: str, path: str) -> bool:
    """Whether ``path`` (from a file event under ``root``) is a freshness question."""
    return path.endswith(ASK) and os.path.dirname(path) == str(folder(Path(root)))
