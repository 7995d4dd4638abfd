"""The daemon's index writer: the only thread that writes the index.

It debounces the :class:`~.watcher.ChangeQueue`, indexes what changed in
batches of a few dozen files (each batch under the shared lock, so a burst
does not starve queries), warms the model and table shortly after start,
and re-checks everything by stat once a minute in case events were lost
(and, when nothing changed, the index's health). A failed write is retried
with a growing back-off; a write that failed for an unknown reason, or
damage found by the health check, rebuilds the index from the markdown.
"""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any, Callable

from .. import paths
from ..errors import (
    IndexUnavailableError,
    LockTimeoutError,
    MemdownError,
    ModelUnavailableError,
    NotInitializedError,
)
from ..fsutil import file_lock
from .state import SharedIndex
from .watcher import BATCH_FILES, REBUILD_FILES, REBUILD_SHARE, ChangeQueue, diff_targets, indexed_files

WARMUP_DELAY = 1.0  # seconds after start before loading lancedb and the model (start/stop stays cheap)
RECONCILE_SECONDS = 60.0  # stat-compare everything this often, in case events were lost
MAX_WRITE_BACKOFF = 300.0
FIRST_WRITE_BACKOFF = 5.0


class IndexWriter:
    """Runs :meth:`run` on its own thread until ``stop_event`` is set.

    ``before_pass`` runs at the top of every loop turn (the daemon reloads a
    changed config there); ``on_root_gone`` is called when the memory root
    has disappeared.
    """

    def __init__(self, shared: SharedIndex, queue: ChangeQueue, stop_event: threading.Event, *,
                 on_root_gone: Callable[[], None], before_pass: Callable[[], None] = lambda: None,
                 debounce: float = 0.0, warmup_delay: float = WARMUP_DELAY,
                 reconcile_seconds: float = RECONCILE_SECONDS) -> None:
        self.shared = shared
        self.root = shared.root
        self.log = shared.log
        self.queue = queue
        self.stop_event = stop_event
        self.on_root_gone = on_root_gone
        self.before_pass = before_pass
        self.set_debounce(debounce)
        self.warmup_delay = warmup_delay
        self.reconcile_seconds = reconcile_seconds
        self.writing = False
        self.warming = False  # the warm-up is work too: no idle exit while it runs
        self.warm = False
        self.last_index: dict[str, Any] | None = None
        self._backoff_until = 0.0
        self._backoff = FIRST_WRITE_BACKOFF
        self._needs_rebuild = False
        self.caught_up = False  # the start-up check has queued whatever changed while no daemon watched

    def set_debounce(self, seconds: float) -> None:
        """Wait for ``seconds`` of quiet before indexing, but never longer than ``max_delay`` in all."""
        self.debounce = seconds
        self.max_delay = max(5.0, 4 * seconds)

    # --- the loop ------------------------------------------------------------
    def run(self) -> None:
        from ..services.upkeep.freshness import changed_sources

        try:
            if changed_sources(self.root, trust_watcher=False):  # we are the watcher: walk
                self.queue.add(None, full=True, reason="catching up at start")
        except Exception:
            self.log.exception("start-up check failed")
            self.queue.add(None, full=True, reason="catching up at start")
        self.caught_up = True
        warm_at = time.monotonic() + self.warmup_delay
        next_reconcile = time.monotonic() + self.reconcile_seconds
        while not self.stop_event.is_set():
            try:
                self.before_pass()
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
                    if changed_sources(self.root, trust_watcher=False):
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
            with self.shared.lock:
                if self.writing:
                    return
                mem = self.shared.mem
                if mem.embedder.cache is not None:
                    mem.embedder.cache.revalidate()
                    self.shared.log_notices()
                if not table.exists():
                    raise IndexUnavailableError("the index is missing")
                table.open()
                table.probe()
        except IndexUnavailableError as exc:
            self.log.warning("index damaged (%s); rebuilding from the markdown", exc.one_line())
            self.shared.mem.invalidate_index()
            self._needs_rebuild = True  # a full pass finds no changed markdown: rebuild outright
            self.queue.add(None, full=True, reason="index damaged")

    def _warm_up(self) -> None:
        """Load lancedb, the table and the model once, so the first search is warm."""
        started = time.perf_counter()
        self.warming = True
        try:
            with self.shared.lock:
                from ..services.recall.queries import run_query

                mem = self.shared.mem
                mem.notices.clear()
                mem.ensure_index(refresh=False)
                mem.embedder.embed_query("warm up")
                try:
                    run_query(mem, "search", {"query": "warm up", "k": 1}, refresh=False)
                except MemdownError:
                    pass
                self.shared.log_notices(logging.INFO, prefix="warm-up: ")
                self.shared.mark_seen()
            self.log.info("warm in %.2fs", time.perf_counter() - started)
        except NotInitializedError:
            self.on_root_gone()
        except Exception as exc:
            self.log.warning("warm-up failed (%s: %s); queries will load on demand", type(exc).__name__, exc)
        finally:
            self.warming = False
        self.warm = True

    # --- writing -------------------------------------------------------------
    def _process_pending(self) -> None:
        changed, full, reasons = self.queue.take()
        try:
            if full:
                self.log.info("full check (%s)", "; ".join(reasons) or "requested")
                targets = diff_targets(self.root)
            else:
                targets = changed
            self.apply(targets)
            self._backoff = FIRST_WRITE_BACKOFF
        except NotInitializedError:
            self.on_root_gone()
        except (LockTimeoutError, ModelUnavailableError, IndexUnavailableError) as exc:
            self._retry_later(changed, full, exc, quiet=True)
        except Exception as exc:
            self._retry_later(changed, full, exc, rebuild=True)
        finally:
            self.queue.done()

    def _retry_later(self, changed: list[Path], full: bool, exc: BaseException, *, rebuild: bool = False,
                     quiet: bool = False) -> None:
        detail = exc.one_line() if isinstance(exc, MemdownError) else f"{type(exc).__name__}: {exc}"
        self.shared.last_error = f"index: {detail}"[:300]
        if not quiet:
            self.log.exception("indexing failed")  # a bug: keep the traceback in the daemon's log
        self.log.warning("indexing failed (%s); retrying in %.0fs", self.shared.last_error, self._backoff)
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
        with self.shared.lock:
            self.writing = True
            try:
                with file_lock(paths.lock_file(self.root, "index-refresh"), timeout=600):
                    report = self.shared.mem.index(batch, rebuild=rebuild)
            finally:
                self.writing = False
                self.shared.mark_seen()
                self.shared.log_notices()  # e.g. a damaged embedding cache started afresh
        self._record(report, batch, time.perf_counter() - started, requested=rebuild)

    def _record(self, report, batch: list[Path] | None, seconds: float, *, requested: bool = False) -> None:
        """Count a finished write and log what it did."""
        counters = self.shared.counters
        counters["index_passes"] += 1
        counters["files_indexed"] += report.files_indexed
        counters["files_removed"] += report.files_removed
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
            what, seconds, report.files_indexed, report.files_unchanged, report.files_removed,
            report.chunks_added, report.chunks_removed, report.chunks_total,
            f"; rebuilt ({report.rebuild_reason})" if report.rebuilt else "",
        )
        if report.rebuilt and not requested:  # not asked for: the index was damaged or incompatible
            self.log.warning("index rebuilt from the markdown (%s)", report.rebuild_reason)
        for warning in report.warnings:
            self.log.warning("%s", warning)
        for skipped in report.skipped:
            self.log.warning("skipped %s: %s", skipped["source"], skipped["reason"])
