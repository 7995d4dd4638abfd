"""The watch daemon: single writer of the index and warm query server.

Threads:

- main: signals, idle timeout, "is the root still there?"; then cleanup.
- ``socket``: a ``ThreadingUnixStreamServer`` accepting one JSON line per
  connection (one short thread per client).
- ``watchdog``: file events into a :class:`~.watcher.ChangeQueue`.
- ``indexer``: debounces the queue and writes the index; warms the model and
  table shortly after start; re-checks everything by stat once a minute in
  case events were lost.

Queries and index writes take one lock (``Daemon.lock``), so a query sees
the index before or after a batch of file updates, never in between; writes
go in batches of a few dozen files so a burst does not starve readers. All
queries go through :func:`memdown.services.queries.run_query` with
``refresh=False`` (the daemon keeps the index current itself), the same code
the CLI runs in-process, so the output is identical.
"""
from __future__ import annotations

import json
import logging
import os
import signal
import socketserver
import threading
import time
from pathlib import Path
from typing import Any

from .. import __version__, paths
from ..errors import (
    IndexUnavailableError,
    LockTimeoutError,
    MemdownError,
    ModelUnavailableError,
    NotInitializedError,
)
from ..fsutil import file_lock
from .protocol import PROTOCOL_VERSION, QUERY_OPS
from .transport import clean_params, error_reply, make_server, prepare_socket_dir
from .watcher import BATCH_FILES, REBUILD_FILES, REBUILD_SHARE, ChangeQueue, Watcher, diff_targets, indexed_files

WARMUP_DELAY = 1.0  # seconds after start before loading lancedb and the model (start/stop stays cheap)
RECONCILE_SECONDS = 60.0  # stat-compare everything this often, in case events were lost
MAX_WRITE_BACKOFF = 300.0


class Daemon:
    """Everything but the process-level bits (lock, pid file, signals): testable in-process."""

    def __init__(self, root: Path, *, embedder=None, config=None, debounce_ms: int | None = None,
                 idle_seconds: float | None = None, logger: logging.Logger | None = None,
                 warmup_delay: float = WARMUP_DELAY, reconcile_seconds: float = RECONCILE_SECONDS) -> None:
        from ..api import Memory

        self.root = Path(root).resolve()
        self.mem = Memory(self.root, config=config, embedder=embedder)
        self.config = self.mem.config
        self._injected = (embedder, config)  # tests inject these; a config reload keeps them
        self._overrides = (debounce_ms, idle_seconds)
        self._config_sig = self._read_config_sig()
        self.log = logger or logging.getLogger("memdown.daemon")
        self._apply_watch_settings(debounce_ms, idle_seconds)
        self.warmup_delay = warmup_delay
        self.reconcile_seconds = reconcile_seconds
        self.socket_path = paths.socket_path(self.root)

        self.lock = threading.RLock()  # queries vs index writes
        self.stop_event = threading.Event()
        self.queue = ChangeQueue()
        self.watcher = Watcher(self.root, self.queue, on_root_gone=self._root_gone,
                               on_activity=self.touch, logger=self.log)
        self.server: socketserver.ThreadingUnixStreamServer | None = None
        self._socket_ino: int | None = None
        self._threads: list[threading.Thread] = []
        self._root_ino = os.stat(self.root).st_ino
        self._meta_sig: tuple | None = None

        self.started = time.time()
        self.last_activity = time.monotonic()
        self.exit_reason = ""
        self.writing = False
        self.warm = False
        self.counters = {"requests": 0, "errors": 0, "bad_requests": 0, "index_passes": 0, "files_indexed": 0,
                         "files_removed": 0}
        self.last_index: dict[str, Any] | None = None
        self.last_error: str | None = None
        self._backoff_until = 0.0
        self._backoff = 5.0
        self._needs_rebuild = False
        self._signalled: str | None = None  # set by signal handlers (which must not take locks)

    def _apply_watch_settings(self, debounce_ms: int | None, idle_seconds: float | None) -> None:
        debounce = self.config["watch.debounce_ms"] if debounce_ms is None else debounce_ms
        self.debounce = max(0, int(debounce)) / 1000.0
        self.max_delay = max(5.0, 4 * self.debounce)
        if idle_seconds is None:
            idle_seconds = float(self.config["watch.idle_minutes"]) * 60.0
        self.idle_seconds = idle_seconds if idle_seconds > 0 else None

    # --- config changes ----------------------------------------------------
    def _read_config_sig(self) -> tuple:
        sig = []
        for path in (paths.global_config_file(), paths.project_config_file(self.root)):
            try:
                st = os.stat(path)
                sig.append((st.st_ino, st.st_mtime_ns, st.st_size))
            except OSError:
                sig.append(None)
        return tuple(sig)

    def _check_config(self) -> None:
        """Reload the config when a config file changed (call with ``self.lock`` held).

        Queries must answer as the in-process CLI would, so a changed
        ``search.k`` or model applies at once; changed chunking or model
        settings make the next pass rebuild (the indexer compares identities).
        """
        sig = self._read_config_sig()
        if sig == self._config_sig or self._injected[1] is not None:
            return
        self._config_sig = sig
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
        old_model = (self.config["embedding.model"], self.config["embedding.batch_size"], self.config["embedding.threads"])
        new_model = (config["embedding.model"], config["embedding.batch_size"], config["embedding.threads"])
        previous = self.mem
        self.mem = Memory(self.root, config=config, embedder=self._injected[0])
        self.config = config
        if old_model == new_model:
            self.mem.share_embedder(previous)
        else:
            self.warm = False
        self._meta_sig = None
        self._apply_watch_settings(*self._overrides)
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
    def start(self) -> None:
        """Bind the socket, start watching and the index worker."""
        prepare_socket_dir(self.socket_path)
        if self.socket_path.exists() or self.socket_path.is_symlink():
            # Only the lock holder gets here, so a socket file is a dead daemon's.
            self.log.info("removing a stale socket %s", self.socket_path)
            self.socket_path.unlink()
        self.server = make_server(str(self.socket_path))
        self.server.daemon = self  # type: ignore[attr-defined]
        os.chmod(self.socket_path, 0o600)
        self._socket_ino = os.stat(self.socket_path).st_ino
        self.watcher.start()
        server = self.server
        for name, target in (("socket", lambda: server.serve_forever(poll_interval=0.05)),
                             ("indexer", self._index_loop)):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        self.log.info("watching %s (pid %d, socket %s, debounce %dms, idle exit %s)", self.root, os.getpid(),
                      self.socket_path, int(self.debounce * 1000),
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
            if self.idle_seconds is not None and self.idle_for() > self.idle_seconds and not self.writing:
                self.exit_reason = f"idle for {self.idle_seconds:.0f}s"
                break
            if not self.watcher.alive():
                if not self.root_present():
                    self._root_gone()
                    break
                self.log.warning("the file watcher stopped; restarting it")
                try:
                    self.watcher.stop()
                    self.watcher.start()
                    self.queue.add(None, full=True, reason="watcher restarted")
                except Exception:
                    self.log.exception("cannot restart the file watcher; exiting")
                    self.exit_reason = "file watcher failed"
                    break
        return self.exit_reason or "stopped"

    def request_stop(self, reason: str = "stop requested") -> None:
        if not self.exit_reason:
            self.exit_reason = reason
        self.stop_event.set()

    def shutdown(self, *, write_grace: float = 60.0) -> None:
        """Stop serving and watching; let a write in progress finish (bounded)."""
        self.stop_event.set()
        with self.queue.cond:
            self.queue.cond.notify_all()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            try:
                if self._socket_ino is not None and os.stat(self.socket_path).st_ino == self._socket_ino:
                    self.socket_path.unlink()
            except FileNotFoundError:
                pass
            self.server = None
        self.watcher.stop()
        deadline = time.monotonic() + write_grace
        for thread in self._threads:
            if thread.name == "indexer":
                while thread.is_alive() and self.writing and time.monotonic() < deadline:
                    thread.join(timeout=0.1)
        self.log.info("stopped: %s", self.exit_reason or "stopped")

    # --- requests ----------------------------------------------------------
    def handle_line(self, line: bytes) -> dict[str, Any]:
        try:
            request = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self.counters["bad_requests"] += 1
            self.log.warning("garbage on the socket (%d bytes): %r", len(line), line[:80])
            return error_reply("bad request: expected one JSON object per line", 2)
        if not isinstance(request, dict):
            self.counters["bad_requests"] += 1
            self.log.warning("bad request: not a JSON object")
            return error_reply("bad request: expected a JSON object", 2)
        if request.get("v") != PROTOCOL_VERSION:
            self.log.info("request with protocol version %r; asking the client to answer itself", request.get("v"))
            return error_reply(f"protocol version {request.get('v')!r} not supported", 2, fallback=True)
        op, params = request.get("op"), request.get("params", {})
        if params is None:
            params = {}
        if not isinstance(op, str) or not isinstance(params, dict):
            self.counters["bad_requests"] += 1
            self.log.warning("bad request: op %r, params of type %s", op, type(params).__name__)
            return error_reply("bad request: op must be a string and params an object", 2)
        asked_root = request.get("root")
        if asked_root is not None:
            try:
                same = Path(str(asked_root)).resolve() == self.root
            except (OSError, ValueError):
                same = False
            if not same:
                self.log.warning("request for another root %r", asked_root)
                return error_reply(f"this daemon serves {self.root}", 2, fallback=True)
        if op == "ping":
            return {"ok": True, "result": self.status_info(), "notices": []}
        if op not in QUERY_OPS:
            self.counters["bad_requests"] += 1
            self.log.warning("unknown op %r", op[:40])
            return error_reply(f"unknown query {op[:40]!r}", 2)
        return self.query(op, params)

    def query(self, op: str, params: dict[str, Any]) -> dict[str, Any]:
        self.touch()
        self.counters["requests"] += 1
        started = time.perf_counter()
        notices: list[str] = []
        try:
            with self.lock:
                self._check_config()
                self._refresh_reader()
                self.mem.notices.clear()
                try:
                    from ..services.queries import run_query

                    result = run_query(self.mem, op, clean_params(params), refresh=False)
                finally:
                    notices = list(self.mem.notices)
                    self.mem.notices.clear()
                    self._meta_sig = self._read_meta_sig()
                    for note in notices:  # e.g. a damaged index rebuilt while answering
                        self.log.warning("%s: %s", op, note)
        except MemdownError as exc:
            self.counters["errors"] += 1
            self.log.info("%s failed: %s", op, exc.one_line())
            return {**error_reply(exc.one_line(), exc.exit_code), "notices": notices}
        except Exception as exc:  # a bug or an unexpected library error: let the client answer itself
            self.counters["errors"] += 1
            self.last_error = f"{op}: {type(exc).__name__}: {exc}"[:300]
            self.log.exception("%s raised", op)
            return error_reply(f"daemon error: {type(exc).__name__}", 1, fallback=True)
        finally:
            self.touch()
        self.log.debug("%s answered in %.1f ms", op, (time.perf_counter() - started) * 1000)
        return {"ok": True, "result": result, "notices": notices}

    def _read_meta_sig(self) -> tuple | None:
        try:
            st = os.stat(paths.index_dir(self.root) / "meta.json")
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _refresh_reader(self) -> None:
        """Re-open the table if another process rewrote the index since we last looked."""
        sig = self._read_meta_sig()
        if sig != self._meta_sig or self.mem.table.rolled_back():
            self.mem.invalidate_index()  # Memory.ensure_index re-opens (and checks the count)

    def status_info(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "root": str(self.root),
            "version": __version__,
            "started": self.started,
            "uptime_seconds": round(time.time() - self.started, 1),
            "idle_seconds": round(self.idle_for(), 1),
            "idle_exit_seconds": self.idle_seconds,
            "debounce_ms": int(self.debounce * 1000),
            "warm": self.warm,
            "writing": self.writing,
            "pending_files": self.queue.size(),
            "events": self.queue.events,
            **self.counters,
            "last_index": self.last_index,
            "last_error": self.last_error,
        }

    # --- the index worker ----------------------------------------------------
    def _index_loop(self) -> None:
        from ..services.indexing import changed_sources

        try:
            if changed_sources(self.root):
                self.queue.add(None, full=True, reason="catching up at start")
        except Exception:
            self.log.exception("start-up check failed")
            self.queue.add(None, full=True, reason="catching up at start")
        warm_at = time.monotonic() + self.warmup_delay
        next_reconcile = time.monotonic() + self.reconcile_seconds
        while not self.stop_event.is_set():
            try:
                if self._read_config_sig() != self._config_sig:
                    with self.lock:
                        self._check_config()
                due = self.queue.due(self.debounce, self.max_delay)
                now = time.monotonic()
                if due == 0.0 and now >= self._backoff_until:
                    self._process_pending()
                    continue
                if not self.warm and now >= warm_at:
                    self._warm_up()
                    continue
                if now >= next_reconcile:
                    next_reconcile = now + self.reconcile_seconds
                    if changed_sources(self.root):
                        self.queue.add(None, full=True, reason="periodic check found changes")
                    elif now >= self._backoff_until:
                        self._check_health()
                    continue
                waits = [next_reconcile - now, 1.0]
                if due is not None:
                    waits.append(max(due, self._backoff_until - now))
                if not self.warm:
                    waits.append(warm_at - now)
                with self.queue.cond:
                    if not self.stop_event.is_set():
                        self.queue.cond.wait(timeout=max(0.01, min(waits)))
            except Exception:
                self.log.exception("index worker error")
                time.sleep(1.0)

    def _check_health(self) -> None:
        """Catch damage that gives no error (a rolled-back manifest) or none until read.

        Opens the table with its count and version checks and reads every id;
        damage queues a full pass, which rebuilds from the markdown.
        """
        from ..index.table import ChunkTable

        table = ChunkTable(paths.index_dir(self.root))
        try:
            with self.lock:
                if self.writing:
                    return
                if self.mem.embedder.cache is not None:
                    self.mem.embedder.cache.revalidate()
                    for note in self.mem.notices:
                        self.log.warning("%s", note)
                    self.mem.notices.clear()
                if not table.exists():
                    raise IndexUnavailableError("the index is missing")
                table.open()
                table.probe()
        except IndexUnavailableError as exc:
            self.log.warning("index damaged (%s); rebuilding from the markdown", exc.one_line())
            self.mem.invalidate_index()
            self._needs_rebuild = True  # a full pass finds no changed markdown: rebuild outright
            self.queue.add(None, full=True, reason="index damaged")

    def _warm_up(self) -> None:
        """Load lancedb, the table and the model once, so the first search is warm."""
        started = time.perf_counter()
        try:
            with self.lock:
                from ..services.queries import run_query

                self.mem.notices.clear()
                self.mem.ensure_index(refresh=False)
                self.mem.embedder.embed_query("warm up")
                try:
                    run_query(self.mem, "search", {"query": "warm up", "k": 1}, refresh=False)
                except MemdownError:
                    pass
                for note in self.mem.notices:
                    self.log.info("warm-up: %s", note)
                self.mem.notices.clear()
                self._meta_sig = self._read_meta_sig()
            self.log.info("warm in %.2fs", time.perf_counter() - started)
        except NotInitializedError:
            self._root_gone()
        except Exception as exc:
            self.log.warning("warm-up failed (%s: %s); queries will load on demand", type(exc).__name__, exc)
        self.warm = True

    def _process_pending(self) -> None:
        changed, full, reasons = self.queue.take()
        try:
            if full:
                self.log.info("full check (%s)", "; ".join(reasons) or "requested")
                targets = diff_targets(self.root)
            else:
                targets = changed
            self.apply(targets)
            self._backoff = 5.0
        except NotInitializedError:
            self._root_gone()
        except (LockTimeoutError, ModelUnavailableError, IndexUnavailableError) as exc:
            self._retry_later(changed, full, exc, quiet=True)
        except Exception as exc:
            self._retry_later(changed, full, exc, rebuild=True)
        finally:
            self.queue.done()

    def _retry_later(self, changed: list[Path], full: bool, exc: BaseException, *, rebuild: bool = False,
                     quiet: bool = False) -> None:
        detail = exc.one_line() if isinstance(exc, MemdownError) else f"{type(exc).__name__}: {exc}"
        self.last_error = f"index: {detail}"[:300]
        if not quiet:
            self.log.exception("indexing failed")  # a bug: keep the traceback in the daemon's log
        self.log.warning("indexing failed (%s); retrying in %.0fs", self.last_error, self._backoff)
        if rebuild:
            self._needs_rebuild = True
        for path in changed:
            self.queue.add(path)
        if full or rebuild:
            self.queue.add(None, full=True, reason="retry")
        self._backoff_until = time.monotonic() + self._backoff
        self._backoff = min(self._backoff * 2, MAX_WRITE_BACKOFF)

    def apply(self, targets: list[Path] | None) -> None:
        """Index ``targets`` (None: a full pass) in batches, each under the query lock."""
        if self._needs_rebuild:
            self._needs_rebuild = False
            self.log.warning("rebuilding the index from the markdown (damaged, or a write failed)")
            self._write(None, rebuild=True)
            return
        if targets is None:
            self._write(None)
            return
        if not targets:
            return
        known = indexed_files(self.root)
        if len(targets) > REBUILD_FILES and len(targets) >= REBUILD_SHARE * known:
            self.log.info("%d files changed (of %d indexed): rebuilding in bulk", len(targets), known)
            self._write(None, rebuild=True)
            return
        for start in range(0, len(targets), BATCH_FILES):
            if self.stop_event.is_set():
                self.log.info("stopping with %d file(s) not yet indexed (the next start catches up)",
                              len(targets) - start)
                return
            self._write(targets[start : start + BATCH_FILES])

    def _write(self, batch: list[Path] | None, *, rebuild: bool = False) -> None:
        started = time.perf_counter()
        with self.lock:
            self.writing = True
            try:
                with file_lock(paths.lock_file(self.root, "index-refresh"), timeout=600):
                    report = self.mem.index(batch, rebuild=rebuild)
            finally:
                self.writing = False
                self._meta_sig = self._read_meta_sig()
                for note in self.mem.notices:  # e.g. a damaged embedding cache started afresh
                    self.log.warning("%s", note)
                self.mem.notices.clear()
        self.counters["index_passes"] += 1
        self.counters["files_indexed"] += report.files_indexed
        self.counters["files_removed"] += report.files_removed
        self.last_index = {
            "at": time.time(),
            "files_indexed": report.files_indexed,
            "files_removed": report.files_removed,
            "chunks_total": report.chunks_total,
            "rebuilt": report.rebuilt,
            "seconds": report.seconds,
        }
        what = "all files" if batch is None else f"{len(batch)} file(s)"
        self.log.info(
            "indexed %s in %.2fs: %d updated, %d unchanged, %d removed, +%d/-%d chunks (%d total)%s",
            what, time.perf_counter() - started, report.files_indexed, report.files_unchanged, report.files_removed,
            report.chunks_added, report.chunks_removed, report.chunks_total,
            f"; rebuilt ({report.rebuild_reason})" if report.rebuilt else "",
        )
        if report.rebuilt and batch is not None:  # not asked for: the index was damaged or incompatible
            self.log.warning("index rebuilt from the markdown (%s)", report.rebuild_reason)
        for warning in report.warnings:
            self.log.warning("%s", warning)
        for skipped in report.skipped:
            self.log.warning("skipped %s: %s", skipped["source"], skipped["reason"])
