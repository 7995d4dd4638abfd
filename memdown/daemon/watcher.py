"""File events → a debounced queue of markdown files to re-index.

watchdog's Observer (inotify on Linux) feeds :class:`ChangeQueue`; the
daemon's index worker takes batches from it once the root has been quiet for
the debounce time. A burst of many events (``git checkout``), a folder event
or a lost-events signal (inotify queue overflow) turns the batch into a
"full" pass, which compares every file's size and mtime with ``files.json``
and re-indexes only what differs.
"""
from __future__ import annotations

import logging
import os
import threading
import time
import warnings
from pathlib import Path

from .. import paths
from ..live import barrier
from ..index.records import read_records, stat_diff
from ..services.upkeep.indexing import memory_files
from ..store.kinds import EXCLUDED_DIRS
from ..store.reader import path_of

STORM_EVENTS = 200  # more distinct files than this in one batch: do a full pass
BATCH_FILES = 50  # files per index write (readers get a turn between batches)
# A full pass that finds more changed files than this, and at least REBUILD_SHARE of
# the index, rebuilds in bulk: per-file merges cost ~40 ms each (one LanceDB commit
# plus fsynced sidecars), a bulk rebuild a few ms per file (vectors come from the cache).
REBUILD_FILES = 200
REBUILD_SHARE = 0.2


def classify(root: str, path: str, *, is_directory: bool) -> str | None:
    """"file" (a markdown file), "dir" (a folder that may hold some) or None (ignore)."""
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return None
    if rel == "." or rel.startswith(".." + os.sep) or rel == "..":
        return None
    parts = rel.split(os.sep)
    if parts[0] in EXCLUDED_DIRS or any(p.startswith(".") for p in parts):
        return None  # index/, logs/, state/, backups/, locks, pid, hidden temp files
    if is_directory:
        return "dir"
    name = parts[-1]
    if not name.endswith(".md"):
        return None  # *.tmp, *.sock, editor swap files, config.toml …
    return "file"


class ChangeQueue:
    """Pending changes, with the times needed for debouncing (thread safe)."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.paths: set[Path] = set()
        self.full = False
        self.reasons: list[str] = []
        self.first_event = 0.0
        self.last_event = 0.0
        self.events = 0  # relevant events seen, ever
        self.active = False  # a taken batch is being indexed

    def add(self, path: Path | None, *, full: bool = False, reason: str = "") -> None:
        now = time.monotonic()
        with self.cond:
            if path is not None:
                self.paths.add(path)
            if full or len(self.paths) > STORM_EVENTS:
                if not self.full and reason:
                    self.reasons.append(reason)
                self.full = True
            if not self.first_event:
                self.first_event = now
            self.last_event = now
            self.events += 1
            self.cond.notify_all()

    def pending(self) -> bool:
        """Changes waiting or being indexed right now."""
        with self.cond:
            return bool(self.paths) or self.full or self.active

    def size(self) -> int:
        with self.cond:
            return len(self.paths)

    def take(self) -> tuple[list[Path], bool, list[str]]:
        with self.cond:
            taken = sorted(self.paths)
            full, reasons = self.full, list(self.reasons)
            self.paths = set()
            self.full = False
            self.reasons = []
            self.first_event = self.last_event = 0.0
            self.active = True
            return taken, full, reasons

    def done(self) -> None:
        with self.cond:
            self.active = False
            self.cond.notify_all()

    def due(self, debounce: float, max_delay: float) -> float | None:
        """Seconds until the pending batch should run (0 = now); None if nothing is pending."""
        with self.cond:
            if not self.paths and not self.full:
                return None
            now = time.monotonic()
            wait = min(self.last_event + debounce, self.first_event + max_delay) - now
            return max(0.0, wait)


def diff_targets(root: Path) -> list[Path] | None:
    """Files whose size/mtime differ from ``files.json``, new files and deleted ones.

    None when ``files.json`` is missing or damaged (index everything; opening the index rebuilds it).
    """
    records = read_records(paths.index_dir(root))
    if records is None:
        return None
    diff = stat_diff(records, memory_files(root))
    return diff.changed + [path_of(root, source) for source in diff.deleted]


def indexed_files(root: Path) -> int:
    """How many files ``files.json`` records (0 if unreadable)."""
    return len(read_records(paths.index_dir(root)) or {})


class _OverflowSignal(logging.Handler):
    """watchdog only logs an inotify queue overflow; turn that log line into a full pass."""

    def __init__(self, queue: ChangeQueue) -> None:
        super().__init__(level=logging.WARNING)
        self.queue = queue

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if "overflow" in record.getMessage().lower():
                self.queue.add(None, full=True, reason="inotify queue overflow")
        except Exception:  # pragma: no cover - logging must never raise
            pass


class Watcher:
    """A recursive watchdog Observer on the memory root feeding a ChangeQueue."""

    def __init__(self, root: Path, queue: ChangeQueue, *, on_root_gone, on_activity, logger: logging.Logger,
                 on_question=None) -> None:
        self.root = Path(root)
        self.queue = queue
        self.on_root_gone = on_root_gone
        self.on_activity = on_activity
        self.on_question = on_question  # a freshness question (live/barrier.py), seen in event order
        self.log = logger
        self.observer = None
        self.native = False  # inotify (events in order); False while polling
        self._overflow = _OverflowSignal(queue)

    def start(self) -> None:
        from watchdog.events import (
            DirCreatedEvent,
            DirDeletedEvent,
            DirMovedEvent,
            FileAttribEvent,
            FileClosedEvent,
            FileCreatedEvent,
            FileDeletedEvent,
            FileModifiedEvent,
            FileMovedEvent,
            FileSystemEventHandler,
        )
        from watchdog.observers import Observer

        watcher = self
        root = str(self.root)

        class Handler(FileSystemEventHandler):
            def dispatch(self, event) -> None:  # noqa: D401 - watchdog's callback
                try:
                    watcher._on_event(root, event)
                except Exception:  # never let one odd event kill the observer thread
                    watcher.log.exception("error handling file event %r", event)

        # watchdog warns when LanceDB replaces a folder it watches under index/; harmless.
        warnings.filterwarnings("ignore", message="Callback with id", category=RuntimeWarning)
        logging.getLogger("watchdog").addHandler(self._overflow)
        event_filter = [
            FileCreatedEvent, FileModifiedEvent, FileDeletedEvent, FileMovedEvent, FileClosedEvent,
            FileAttribEvent, DirCreatedEvent, DirDeletedEvent, DirMovedEvent,
        ]
        try:
            self.observer = self._observer(Observer, Handler(), root, event_filter)
            self.native = True
        except OSError as exc:  # inotify watch or instance limits: poll instead
            from watchdog.observers.polling import PollingObserver

            self.log.warning("native file watching failed (%s); polling every 2s instead", exc)
            self.observer = self._observer(lambda: PollingObserver(timeout=2), Handler(), root, event_filter)

    @staticmethod
    def _observer(factory, handler, root: str, event_filter):
        observer = factory()
        observer.name = "watchdog"
        observer.daemon = True
        observer.schedule(handler, root, recursive=True, event_filter=event_filter)
        try:
            observer.start()
        except BaseException:
            observer.stop()
            raise
        return observer

    def _on_event(self, root: str, event) -> None:
        kind = event.event_type  # created, modified, deleted, moved, closed, attrib, …
        if kind in ("opened", "closed_no_write"):
            return
        src = os.fsdecode(event.src_path)
        if kind == "created" and self.on_question is not None and barrier.is_question(root, src):
            self.on_question(src)  # every event before it has been handled: the queue is up to date
            return
        if event.is_directory and kind == "deleted" and os.path.normpath(src) == os.path.normpath(root):
            self.on_root_gone()
            return
        candidates = [src]
        dest = os.fsdecode(getattr(event, "dest_path", "") or "")
        if dest:
            candidates.append(dest)
        for path in candidates:
            what = classify(root, path, is_directory=event.is_directory)
            if what is None:
                continue
            if what == "dir":
                if kind == "modified" or kind == "attrib":
                    continue  # a folder's own mtime: the file events tell us more
                self.queue.add(None, full=True, reason=f"folder {kind}: {os.path.relpath(path, root)}")
            else:
                self.queue.add(Path(path), reason="many files changed")
            self.on_activity()

    def alive(self) -> bool:
        return self.observer is not None and self.observer.is_alive()

    def stop(self) -> None:
        logging.getLogger("watchdog").removeHandler(self._overflow)
        if self.observer is not None:
            try:
                self.observer.stop()
                self.observer.join(timeout=3)
            except Exception:  # pragma: no cover - shutting down anyway
                self.log.exception("error stopping the file watcher")
            self.observer = None
