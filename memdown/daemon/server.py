"""The watch daemon: single writer of the index and warm query server.

:class:`Daemon` puts the parts together and owns the daemon's edge: the
config (loaded once at start, and again only when a config file changes),
the idle timeout, the root's presence and stopping. Its threads:

- main: :meth:`Daemon.run_until_stopped` (signals, idle timeout, "is the
  root still there?", a dead file watcher); then cleanup.
- ``socket``: :class:`~.transport.LineServer`, handing each request line to
  :meth:`~.query.QueryHandler.handle_line` (one short thread per client).
- ``watchdog``: file events into a :class:`~.watcher.ChangeQueue`.
- ``indexer``: :class:`~.index_writer.IndexWriter`, the only index writer.

The query side and the writer share a :class:`~.state.SharedIndex` (the
Memory, its lock, counters).
"""
from __future__ import annotations

import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__, paths
from .index_writer import RECONCILE_SECONDS, WARMUP_DELAY, IndexWriter
from .query import QueryHandler
from .state import SharedIndex
from .transport import LineServer
from .watcher import ChangeQueue, Watcher

if TYPE_CHECKING:
    from ..config import Config


def config_files_sig(root: Path) -> tuple:
    """What the config files look like on disk now (a change means: reload)."""
    sig = []
    for path in (paths.global_config_file(), paths.project_config_file(root)):
        try:
            st = os.stat(path)
            sig.append((st.st_ino, st.st_mtime_ns, st.st_size))
        except OSError:
            sig.append(None)
    return tuple(sig)


def _model_settings(config: "Config") -> tuple:
    return (config["embedding.model"], config["embedding.batch_size"], config["embedding.threads"])


class Daemon:
    """Everything but the process-level bits (lock, pid file, signals): testable in-process.

    ``config`` and ``embedder`` are for tests: an injected config is never
    reloaded; an injected embedder survives reloads.
    """

    def __init__(self, root: Path, *, embedder=None, config: "Config | None" = None, debounce_ms: int | None = None,
                 idle_seconds: float | None = None, logger: logging.Logger | None = None,
                 warmup_delay: float = WARMUP_DELAY, reconcile_seconds: float = RECONCILE_SECONDS) -> None:
        from ..api import Memory
        from ..config import load_config

        self.root = Path(root).resolve()
        self.log = logger or logging.getLogger("memdown.daemon")
        self._follow_config = config is None
        self._config_sig = config_files_sig(self.root)
        self.config = config if config is not None else load_config(self.root)
        self._embedder = embedder
        self._overrides = (debounce_ms, idle_seconds)
        self.shared = SharedIndex(self.root, Memory(self.root, config=self.config, embedder=embedder), self.log)
        self.stop_event = threading.Event()
        self.queue = ChangeQueue()
        self.writer = IndexWriter(self.shared, self.queue, self.stop_event, on_root_gone=self._root_gone,
                                  before_pass=self.reload_config_if_changed, warmup_delay=warmup_delay,
                                  reconcile_seconds=reconcile_seconds)
        self.queries = QueryHandler(self.shared, status=self.status_info, before_query=self.reload_config_if_changed,
                                    on_activity=self.touch)
        self.socket_path = paths.socket_path(self.root)
        self.server = LineServer(self.socket_path, self.queries.handle_line, log=self.log)
        self.watcher = Watcher(self.root, self.queue, on_root_gone=self._root_gone,
                               on_activity=self.touch, logger=self.log, on_question=self._answer_freshness)
        self._apply_watch_settings()
        self._indexer: threading.Thread | None = None
        self._root_ino = os.stat(self.root).st_ino
        self.started = time.time()
        self.last_activity = time.monotonic()
        self.exit_reason = ""
        self._signalled: str | None = None  # set by signal handlers (which must not take locks)

    # --- what tests and status read ----------------------------------------
    @property
    def lock(self) -> threading.RLock:
        return self.shared.lock

    @property
    def counters(self) -> dict[str, int]:
        return self.shared.counters

    @property
    def warm(self) -> bool:
        return self.writer.warm

    @property
    def writing(self) -> bool:
        return self.writer.writing

    def _apply_watch_settings(self) -> None:
        debounce_ms, idle_seconds = self._overrides
        debounce = self.config["watch.debounce_ms"] if debounce_ms is None else debounce_ms
        self.writer.set_debounce(max(0, int(debounce)) / 1000.0)
        if idle_seconds is None:
            idle_seconds = float(self.config["watch.idle_minutes"]) * 60.0
        self.idle_seconds = idle_seconds if idle_seconds > 0 else None

    # --- config changes ----------------------------------------------------
    def reload_config_if_changed(self) -> None:
        """Reload the config when a config file changed.

        Queries must answer as the in-process CLI would, so a changed
        ``search.k`` or model applies at once; changed chunking or model
        settings make the next pass rebuild (the indexer compares identities).
        """
        if not self._follow_config or config_files_sig(self.root) == self._config_sig:
            return
        with self.shared.lock:
            sig = config_files_sig(self.root)
            if sig == self._config_sig:
                return  # another thread reloaded it meanwhile
            self._config_sig = sig
            self._reload_config()

    def _reload_config(self) -> None:
        """Load the config files again and swap in a Memory built on them (call with the lock held)."""
        from ..api import Memory
        from ..config import load_config
        from ..errors import ConfigError

        try:
            config = load_config(self.root)
        except ConfigError as exc:
            self.log.warning("config changed but cannot be read (%s); keeping the old settings", exc.one_line())
            return
        if config.values == self.config.values:
            return
        previous = self.shared.mem
        self.shared.mem = Memory(self.root, config=config, embedder=self._embedder)
        if _model_settings(config) == _model_settings(self.config):
            self.shared.mem.share_embedder(previous)
        else:
            self.writer.warm = False
        self.config = config
        self.shared.meta_sig = None
        self._apply_watch_settings()
        self.log.info("config changed: settings reloaded")
        self.queue.add(None, full=True, reason="config changed")

    # --- activity --------------------------------------------------------
    def touch(self) -> None:
        self.last_activity = time.monotonic()

    def idle_for(self) -> float:
        return time.monotonic() - self.last_activity

    def _root_gone(self) -> None:
        if not self.exit_reason:
            self.exit_reason = "memory root deleted"
        self.log.warning("memory root %s was deleted; exiting", self.root)
        self.stop_event.set()

    def root_present(self) -> bool:
        try:
            return os.stat(self.root).st_ino == self._root_ino
        except OSError:
            return False

    # --- start / stop ----------------------------------------------------
    def _answer_freshness(self, ask_path: str) -> None:
        """Clean: every file event so far is indexed (live/barrier.py; called in event order)."""
        from ..live import barrier

        clean = self.writer.caught_up and self.watcher.native and not self.queue.pending()
        barrier.answer(ask_path, clean=clean)

    def start(self) -> None:
        """Bind the socket, start watching and the index writer."""
        from ..live import barrier

        self.server.start()
        barrier.reset(self.root)  # questions of processes now gone
        self.watcher.start()
        self._indexer = threading.Thread(target=self.writer.run, name="indexer", daemon=True)
        self._indexer.start()
        self.log.info("watching %s (pid %d, socket %s, debounce %dms, idle exit %s)", self.root, os.getpid(),
                      self.socket_path, int(self.writer.debounce * 1000),
                      f"{self.idle_seconds:.0f}s" if self.idle_seconds else "never")

    def on_signal(self, signum: int, _frame=None) -> None:
        """Signal handler: only sets a flag (taking a lock here could deadlock the main thread)."""
        self._signalled = signal.Signals(signum).name

    def run_until_stopped(self, poll: float = 0.1) -> str:
        """Block until a stop request, the idle timeout or the root's deletion; return why."""
        while not self.stop_event.wait(poll):
            if self._signalled:
                self.exit_reason = self.exit_reason or f"signal {self._signalled}"
                break
            if not self.root_present():
                self._root_gone()
                break
            if self.writing or self.writer.warming or self.queries.busy():
                self.touch()  # idle time counts from the end of the last work, not from its start
            elif self.idle_seconds is not None and self.idle_for() > self.idle_seconds:
                self.exit_reason = f"idle for {self.idle_seconds:.0f}s"
                break
            if not self.watcher.alive() and not self._restart_watcher():
                break
        return self.exit_reason or "stopped"

    def _restart_watcher(self) -> bool:
        """Restart a dead file watcher; False (and an exit reason) when the daemon must stop instead."""
        if not self.root_present():
            self._root_gone()
            return False
        self.log.warning("the file watcher stopped; restarting it")
        try:
            self.watcher.stop()
            self.watcher.start()
            self.queue.add(None, full=True, reason="watcher restarted")
        except Exception:
            self.log.exception("cannot restart the file watcher; exiting")
            self.exit_reason = "file watcher failed"
            return False
        return True

    def request_stop(self, reason: str = "stop requested") -> None:
        if not self.exit_reason:
            self.exit_reason = reason
        self.stop_event.set()

    def shutdown(self, *, write_grace: float = 60.0) -> None:
        """Stop serving and watching; let a write in progress finish (bounded)."""
        self.stop_event.set()
        with self.queue.cond:
            self.queue.cond.notify_all()
        self.server.close()
        self.watcher.stop()
        deadline = time.monotonic() + write_grace
        thread = self._indexer
        if thread is not None:
            while thread.is_alive() and self.writing and time.monotonic() < deadline:
                thread.join(timeout=0.1)
        self.log.info("stopped: %s", self.exit_reason or "stopped")

    def status_info(self) -> dict[str, Any]:
        """What ``ping`` answers (and ``memdown watch --status`` shows)."""
        return {
            "pid": os.getpid(),
            "root": str(self.root),
            "version": __version__,
            "started": self.started,
            "uptime_seconds": round(time.time() - self.started, 1),
            "idle_seconds": round(self.idle_for(), 1),
            "idle_exit_seconds": self.idle_seconds,
            "debounce_ms": int(self.writer.debounce * 1000),
            "warm": self.writer.warm,
            "writing": self.writer.writing,
            "pending_files": self.queue.size(),
            "events": self.queue.events,
            **self.shared.counters,
            "last_index": self.writer.last_index,
            "last_error": self.shared.last_error,
        }
