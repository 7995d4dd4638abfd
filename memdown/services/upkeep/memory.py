"""One memory root opened for use: its config, cached embedder, indexer and index table.

``Memory`` opens (building or refreshing when needed) the index, recovers from
a damaged table once, and answers search, concept search, expand and stats on
it. The public API (``memdown.api``) and the daemon hand this object to the
other services (queries, verify, worker); it lives here, in the services
layer, so those services never import the API above them.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ... import paths
from ...config import Config
from ...errors import IndexUnavailableError, LockTimeoutError, MemdownError
from ...fsutil import file_lock
from ...index.embedder import Embedder, embedder_from_config
from ...index.table import ChunkTable, damage_reason
from ...store.layout import init_layout
from ..recall.expand import Expansion, expand_row, find_row
from .indexing import (
    IndexReport, Indexer, ProgressCallback, changed_sources, chunk_options, index_identity,
)
from ..recall.search import ConceptMatch, Hit, SearchOptions, checked_query, concept_search, search_table

# How long a search waits for another writer building the first index (a big first build is text first).
FIRST_BUILD_WAIT = 300.0


class Memory:
    """One memory root: its markdown, config, embedder and index."""

    def __init__(self, root: Path, *, config: Config, embedder: Embedder | None = None) -> None:
        self.root = Path(root)
        self.config = config  # loaded once at the edge (cli, hooks, worker, daemon, ``memdown.api``)
        self._embedder_inner = embedder
        self._cached = None
        self._model: Embedder | None = None  # the model under the cache (and mixer), once built
        self._indexer: Indexer | None = None
        self._table_ready = False
        self.notices: list[str] = []  # one-line notes for the user (rebuilds, refreshes)
        # Shown by any (re)build this object starts on its own, e.g. a search that finds no index;
        # the CLI sets it to its progress bar (cli/progress.py).
        self.progress: ProgressCallback | None = None

    @classmethod
    def open(cls, root: str | Path | None = None, *, config: Config, embedder: Embedder | None = None) -> "Memory":
        return cls(paths.memory_root(root), config=config, embedder=embedder)

    # --- parts --------------------------------------------------------------
    @property
    def embedder(self):
        if self._cached is None:
            from ...index.cache import EmbeddingCache
            from .neighbours import index_embedder

            inner = self._model = self._embedder_inner or embedder_from_config(self.config)
            cache = EmbeddingCache(paths.embedding_cache_file(), on_notice=self.notices.append)
            self._cached = index_embedder(self.config, inner, cache)
        return self._cached

    def share_embedder(self, other: "Memory") -> None:
        """Reuse ``other``'s loaded model and cache (a long-lived process reloading settings)."""
        if other._cached is not None:
            self._cached = other._cached

    def invalidate_index(self) -> None:
        """Re-open (and re-check) the index on the next read: another process rewrote it."""
        self._table_ready = False

    @property
    def indexer(self) -> Indexer:
        if self._indexer is None:
            self._indexer = Indexer(self.root, self.config, self.embedder)
        return self._indexer

    @property
    def table(self) -> ChunkTable:
        return self.indexer.table

    # --- operations ---------------------------------------------------------
    def init(self) -> list[str]:
        return init_layout(self.root)

    def index(self, targets: list[Path] | None = None, *, rebuild: bool = False,
              progress: ProgressCallback | None = None) -> IndexReport:
        if not targets and not rebuild:
            from .quickcheck import report_if_current

            paths.require_root(self.root)
            current = report_if_current(self.root, self.embedder.model_id, index_identity(self.embedder, self.config))
            if current is not None:  # nothing changed: no LanceDB, no model
                if self.embedder.cache is not None:
                    self.embedder.cache.ensure_open()  # a damaged embedding cache is still healed and noticed
                self.table._load_sidecars()  # meta and file records, as after a full pass (the table stays closed)
                if self.table.meta is not None and self.table.meta.vectors_missing:
                    from .text_first import ensure_filler

                    ensure_filler(self.root)  # a killed filler resumes
                    current.vectors_pending = self.table.meta.vectors_missing
                return current
        self.embedder.load()
        report = self.indexer.run(targets, rebuild=rebuild, progress=progress or self.progress)
        self._table_ready = True
        return report

    def export_snapshot(self, dest: Path):
        """Write a verified snapshot of the (current) index to ``dest``; see services/upkeep/snapshot.py."""
        from .snapshot import export_snapshot

        return export_snapshot(self.root, Path(dest), self.embedder, self.config)

    def import_snapshot(self, src: Path):
        """Replace the index with the verified snapshot ``src``; ``index()`` then embeds only what differs."""
        from .snapshot import import_snapshot

        info = import_snapshot(self.root, Path(src), self.embedder, self.config)
        self._indexer = None  # its table object described the replaced index
        self._table_ready = False
        return info

    def ensure_index(self, *, refresh: bool = True) -> None:
        """Open the index for reading, building or refreshing it when needed.

        A refresh waits briefly for the index lock; if another writer (the
        watch daemon) holds it, we read what is there instead of waiting.
        """
        paths.require_root(self.root)
        if self._table_ready and not refresh:
            return
        stale = refresh and changed_sources(self.root)
        if not stale:
            try:
                self.table.open()
                meta = self.table.meta
                # An index built by another model (or chunking) must not answer
                # this embedder's query vectors: index() rebuilds it and says why.
                if meta is not None and meta.model_id == self.embedder.model_id and (
                    meta.fts_config == index_identity(self.embedder, self.config)
                ):
                    self._table_ready = True
                    return
            except IndexUnavailableError:
                pass  # index() below rebuilds it and reports why, in one line
        try:
            # No index yet while another writer (the daemon's catch-up, a Stop job) holds the lock: it is
            # building the first one, so wait for it and answer, never "no index yet" (issue 18).
            wait = 0 if self.table.exists() else FIRST_BUILD_WAIT
            with file_lock(paths.lock_file(self.root, "index-refresh"), timeout=wait):
                report = self.index()
        except LockTimeoutError:
            self.table.open(verify_count=False)
            self._table_ready = True
            return
        if not self._table_ready:  # the writer we waited for indexed it all: index() took its quick, closed path
            self.table.open(verify_count=False)
            self._table_ready = True
        if report.rebuilt:
            self.notices.append(f"index built: {report.chunks_total} chunks in {report.seconds:.1f}s ({report.rebuild_reason})")
        elif report.files_indexed or report.files_removed:
            self.notices.append(f"index refreshed: {report.files_indexed} file(s) updated, {report.files_removed} removed")

    def _with_recovery(self, action):
        """Run a read; if the table's files turn out damaged, rebuild once and retry.

        LanceDB has no exception classes of its own: a deleted or truncated data
        file surfaces as RuntimeError/OSError/ValueError on query.
        """
        try:
            return action()
        except MemdownError:
            raise
        except (RuntimeError, OSError, ValueError) as exc:
            self.notices.append(f"index damaged ({damage_reason(exc)}); rebuilt from markdown")
            self.index(rebuild=True)
        try:
            return action()
        except (RuntimeError, OSError, ValueError) as exc:
            raise IndexUnavailableError(f"index unreadable after a rebuild ({damage_reason(exc)})") from None

    def _options(self, **kw: Any) -> SearchOptions:
        return SearchOptions(
            k=kw["k"] if kw.get("k") is not None else self.config["search.k"],  # -k 0 is an error, not "default"
            window_chars=self.config["search.window_chars"],
            today=kw.get("today"),
            kind=kw.get("kind"),
            since=kw.get("since"),
            until=kw.get("until"),
            source=kw.get("source"),
            agent=kw.get("agent"),
            mode=kw.get("mode") or self.config["search.mode"],
            candidate_depth=self.config["search.candidate_depth"],
        )

    def search(self, query: str, *, k: int | None = None, kind: str | None = None, since: str | None = None,
               until: str | None = None, source: str | None = None, mode: str | None = None,
               refresh: bool = True, today: str | None = None, agent: str | None = None) -> list[Hit]:
        """``today`` (YYYY-MM-DD) is what relative dates in the query count from; None = the clock."""
        options = self._options(k=k, kind=kind, since=since, until=until, source=source, mode=mode, today=today,
                                agent=agent)
        options.validate()
        if query.strip():  # an over-long query is refused before the model or the index sees it
            checked_query(query)
        vector = None
        if options.mode != "text":
            _import_lancedb_meanwhile()
            self._load_for_queries()  # a missing model fails here, before the index is touched
            if query.strip():  # embedded while LanceDB still imports (search_table says why an empty query fails)
                vector = self.embedder.embed_query(query.strip())
        self.ensure_index(refresh=refresh)
        hits = self._with_recovery(lambda: search_table(self.table, self.embedder, query, options, self.root,
                                                        query_vector=vector))
        if options.mode != "text":
            self._note_partial_vectors(hits)
        if self.config["search.freshness"]:
            from ..recall.staleness import annotate, newer_first

            annotate(self.root, hits)
            hits = newer_first(hits)
        return hits

    def _load_for_queries(self) -> None:
        """Load what embedding a query needs: for the packaged model not fastembed (index/embedder.py)."""
        embedder = self.embedder
        light = getattr(self._model, "load_for_queries", None)
        if light is None:
            embedder.load()
            return
        if embedder.cache is not None:
            embedder.cache.ensure_open()  # as embedder.load() does: a damaged cache is healed and noticed
        light()

    def _note_partial_vectors(self, hits: list[Hit]) -> None:
        """Say when vectors are still being filled in (a text-first build), and keep a filler running."""
        from .text_first import ensure_filler, pending_vectors, progress_line

        missing = pending_vectors(self.root)  # from meta.json: a long-lived reader's meta is stale
        if not missing:
            return
        total = self.table.count()
        self.notices.append(progress_line(missing, total))
        for hit in hits:
            hit.partial_vectors = {"embedded": max(0, total - missing), "total": total}
        ensure_filler(self.root)

    def search_concepts(self, concepts: list[str], *, k: int | None = None, kind: str | None = None,
                        since: str | None = None, until: str | None = None, source: str | None = None,
                        mode: str | None = None, refresh: bool = True, agent: str | None = None) -> list[ConceptMatch]:
        options = self._options(k=k, kind=kind, since=since, until=until, source=source, mode=mode, agent=agent)
        options.validate()
        self.ensure_index(refresh=refresh)
        return self._with_recovery(lambda: concept_search(self.table, self.embedder, concepts, options))

    def expand(self, chunk_id: str, *, lines: int = 0) -> Expansion:
        self.ensure_index(refresh=False)
        row = self._with_recovery(lambda: find_row(self.table, chunk_id))
        expansion = expand_row(self.root, row, chunk_options(self.config), context_lines=max(0, lines))
        if self.config["search.freshness"]:
            from ..recall.staleness import judge_section

            expansion.freshness = judge_section(self.root, expansion.text, expansion.date)
        return expansion

    def _vector_progress(self) -> dict[str, Any]:
        """Embedded of total chunks, and whether a background filler is at work (text-first builds)."""
        from .text_first import filler_running, pending_vectors

        total = self.table.count()
        missing = pending_vectors(self.root)
        return {"embedded": max(0, total - missing), "total": total, "filling": bool(missing),
                "filler_running": bool(missing) and filler_running(self.root)}

    def stats(self) -> dict[str, Any]:
        from .status import memory_status

        paths.require_root(self.root)
        out: dict[str, Any] = {"root": str(self.root), "model": self.config["embedding.model"],
                               **memory_status(self.root, self.config)}
        try:
            self.table.open(verify_count=False)
            meta = self.table.meta
            out.update(
                files=len(self.table.files),
                chunks=self.table.count(),
                chunks_by_kind=self.table.count_by_kind(),
                index_bytes=self.table.size_bytes(),
                index_model=meta.model_id if meta else None,
                last_indexed=time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(meta.last_indexed)) if meta and meta.last_indexed else None,
                vectors=self._vector_progress(),
                **_lag(self.root),
            )
        except IndexUnavailableError as exc:
            out.update(files=0, chunks=0, chunks_by_kind={}, index_bytes=0, index_model=None,
                       last_indexed=None, index_state=f"unavailable: {exc}", vectors=None, behind=None)
        return out


def _lag(root: Path) -> dict[str, Any]:
    """``index_state`` ("ok", or "behind: …" while files or captured turns have not reached the index yet)
    and ``behind`` ({"files", "capture_jobs"}, or None when in step)."""
    from .freshness import files_behind
    from ..capture.job_status import queue_status

    files, jobs = files_behind(root), queue_status(root).pending
    if not files and not jobs:
        return {"index_state": "ok", "behind": None}
    parts = [f"{files} file(s) changed since the last indexing"] if files else []
    parts += [f"{jobs} turn(s) still being captured"] if jobs else []
    return {"index_state": "behind: " + ", ".join(parts) + " (the next search catches up; `memdown index` now)",
            "behind": {"files": files, "capture_jobs": jobs}}


def _import_lancedb_meanwhile() -> None:
    """Start importing LanceDB on a thread while this one loads the model: in a fresh process the two
    are most of a search, and they overlap (wall time only; the CPU is the same). The table's own
    ``import lancedb`` waits for this one; an error there is raised there, not here."""
    import sys

    if "lancedb" in sys.modules:
        return
    # numpy first, here: LanceDB and the model both import it, and while one thread held its import the
    # other waited on its lock and then on the GIL (~30 ms of a cold search's wall at load ~1.5).
    import numpy  # noqa: F401
    import threading

    def run() -> None:
        try:
            from ...index.lance_import import import_lancedb

            import_lancedb()
        except Exception:  # noqa: BLE001 - the import in index/table.py raises it where it is handled
            pass

    threading.Thread(target=run, name="memdown-import-lancedb", daemon=True).start()
