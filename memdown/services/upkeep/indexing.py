"""Keeping the index in step with the markdown.

Incremental by default: a file whose size and mtime (then sha256) are
unchanged is skipped; a changed file is re-chunked and written in one merge;
vectors come from the existing rows, then the embedding cache, and only then
from the model. A missing, corrupted or incompatible index is rebuilt from
the markdown, which indexing never modifies.
"""
from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import paths
from ...config import Config
from ...errors import IndexUnavailableError, InputFileError
from ...fsutil import file_lock
from ...index.cache import CachedEmbedder
from ...index.embedder import Embedder
from ...index.records import FileRecord, chunk_key, row_key, rows_digest
from ...index.rows import Prepared, chunk_rows, prepare_rows, with_vectors
from ...index.table import MAX_ID_FILTER, ChunkTable, damage_reason
from ...index.textprep import FTS_OPTIONS, fts_config_id
from ...store.chunker import CHUNKER_VERSION, Chunk, ChunkOptions
from ...store.chunkpool import ChunkAhead
from .freshness import changed_sources, is_note, memory_files  # noqa: F401  (changed_sources: re-exported)
from ...store.reader import UnreadableFile, iter_markdown_files, read_memory_file, source_of
from .text_first import TextFirst, ensure_filler

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

ProgressCallback = Callable[[str, int, int], None]  # (stage, done, total)
EMBED_BATCH = 128  # texts per progress step; the model batches inside
# A full build streams: files are chunked, embedded and written this many
# chunks at a time, so its memory does not grow with the memory's size.
BUILD_BATCH = 4096
# Chunks per table write in a full build (fewer, larger fragments).
WRITE_ROWS = 65536
# What LanceDB raises on damaged files (it has no exception classes of its own).
_LANCE_ERRORS = (RuntimeError, OSError, ValueError)


@dataclass
class IndexReport:
    files_indexed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_total: int = 0
    embedded: int = 0
    vectors_pending: int = 0  # rows written without a vector, filled in the background (services/upkeep/vector_fill.py)
    seconds: float = 0.0
    rebuilt: bool = False
    rebuild_reason: str = ""
    warnings: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Pending:
    source: str
    record: FileRecord
    chunks: list[Chunk]  # empty in a full build: ``prepared`` holds its rows
    old_rows: dict[str, dict[str, Any]]
    kept: set[str] = field(default_factory=set)  # ids whose stored row is already right: not rewritten
    prepared: Prepared | None = None  # a full build's rows (made by a chunk worker when there is a pool)


def chunk_options(config: Config) -> ChunkOptions:
    return ChunkOptions(
        max_chars=config["chunking.max_chars"],
        context_chars=config["chunking.context_chars"],
        heading_context=config["chunking.heading_context"],
        neighbour_weight=config["chunking.neighbour_weight"],
        heading_weight=config["chunking.heading_weight"],
    )


def index_identity(embedder: Embedder, config: Config) -> str:
    """Everything that changes what rows contain; a change forces a rebuild."""
    options = chunk_options(config)
    mix = f":mix{options.neighbour_weight!r}:{options.heading_weight!r}" if options.neighbour_weight > 0 else ""
    return f"{fts_config_id()}|chunk{CHUNKER_VERSION}:{options.max_chars}:{options.context_chars}:{int(options.heading_context)}{mix}"


class Indexer:
    def __init__(self, root: Path, config: Config, embedder: CachedEmbedder) -> None:
        self.root = Path(root)
        self.config = config
        self.embedder = embedder
        self.table = ChunkTable(paths.index_dir(self.root))
        self.max_bytes = int(config["index.max_file_mb"] * 1_000_000)
        self._text_first: TextFirst | None = None  # a full build's model budget (services/upkeep/vector_fill.py)

    # --- opening ----------------------------------------------------------
    def open_table(self, report: IndexReport | None = None, *, rebuild: bool = False) -> bool:
        """Open the index, or create it empty when missing/damaged/incompatible.

        Returns True when the index was (re)created and needs a full pass.
        """
        if not rebuild:
            try:
                self.table.open()
                assert self.table.meta is not None
                if self.table.meta.model_id != self.embedder.model_id:
                    reason = f"embedding model changed ({self.table.meta.model_id} → {self.embedder.model_id})"
                elif self.table.meta.fts_config != index_identity(self.embedder, self.config):
                    reason = "chunking or full-text settings changed"
                else:
                    if not self.table.files_unchanged:  # else open() proved every file as written, by stat
                        self.table.probe()  # a deleted or truncated data file fails here, not mid-write
                    return False
            except IndexUnavailableError as exc:
                reason = str(exc)
        else:
            reason = "rebuild requested"
        self._recreate(report, reason)
        return True

    def _recreate(self, report: IndexReport | None, reason: str) -> None:
        if report is not None:
            report.rebuilt = True
            report.rebuild_reason = reason
        dim = self.embedder.dim or len(self.embedder.embed_query("dimension probe"))
        try:
            self.table.create(self.embedder.model_id, dim, index_identity(self.embedder, self.config))
        except _LANCE_ERRORS as exc:
            raise IndexUnavailableError(f"cannot create the index ({damage_reason(exc)})") from None

    # --- the pass ---------------------------------------------------------
    def run(
        self,
        targets: Iterable[Path] | None = None,
        *,
        rebuild: bool = False,
        progress: ProgressCallback | None = None,
    ) -> IndexReport:
        paths.require_root(self.root)
        started = time.perf_counter()
        report = IndexReport()
        embedded_before = self.embedder.embedded
        with file_lock(paths.lock_file(self.root, "index"), timeout=120):
            fresh = self.open_table(report, rebuild=rebuild)
            try:
                self._pass(targets, report, fresh=fresh, progress=progress)
            except _LANCE_ERRORS as exc:
                if fresh:
                    raise IndexUnavailableError(f"cannot write the index ({damage_reason(exc)})") from None
                # Damage found while updating (a data file gone or truncated): the
                # markdown is intact, so start over from it in this same run.
                report = IndexReport()
                self._recreate(report, f"index is corrupted ({damage_reason(exc)})")
                try:
                    self._pass(None, report, fresh=True, progress=progress)
                except _LANCE_ERRORS as again:
                    raise IndexUnavailableError(f"cannot write the index ({damage_reason(again)})") from None
            meta = self.table.meta
            assert meta is not None
            if meta.vectors_missing and not report.rebuilt:  # rows replaced while filling: recount
                meta.vectors_missing = self.table.table.count_rows("vector IS NULL")
                self.table.save_sidecars()
        report.embedded = self.embedder.embedded - embedded_before
        report.chunks_total = sum(r.chunks for r in self.table.files.values())
        report.vectors_pending = meta.vectors_missing
        if report.vectors_pending:
            ensure_filler(self.root)  # newest first, in the background; the ANN index waits for it
        self._maybe_start_vector_index(report.chunks_total)
        report.seconds = round(time.perf_counter() - started, 3)
        return report

    def _pass(self, targets: Iterable[Path] | None, report: IndexReport, *, fresh: bool,
              progress: ProgressCallback | None) -> None:
        explicit = targets is not None and not fresh
        if explicit:
            files = [(source_of(self.root, path), path) for path in self._resolve_targets(targets)]
        else:
            files = memory_files(self.root)
        if fresh:
            self._build(files, report, progress)
        else:
            pending = list(self._collect(files, report, explicit=explicit, fresh=fresh))
            if not explicit:
                self._remove_deleted({source for source, _path in files}, report)
            self._embed(pending, progress)
            self._write(pending, report)
        self.table.meta.last_indexed = time.time()  # type: ignore[union-attr]
        self.table.save_sidecars()

    def _resolve_targets(self, targets: Iterable[Path]) -> list[Path]:
        files: list[Path] = []
        root = self.root.resolve()
        for target in targets:
            target = Path(target).resolve()
            if not (target == root or root in target.parents) and not is_note(root, target):
                raise InputFileError(f"{target} is outside the memory root {root}")
            if target.is_dir():
                files.extend(iter_markdown_files(target) if target != root else iter_markdown_files(root))
            elif target.exists():
                files.append(target)
            else:
                # A deleted file named explicitly: drop its chunks.
                self.table.files.setdefault(source_of(root, target), FileRecord(0, 0, "", 0))
                files.append(target)
        return files

    def _collect(self, files: list[tuple[str, str | Path]], report: IndexReport, *, explicit: bool,
                 fresh: bool) -> Iterator[_Pending]:
        options = chunk_options(self.config)
        # Both cores for a build: the workers also prepare each file's rows (all but the vectors).
        ahead = ChunkAhead(self.root, files if fresh else (), options, max_bytes=self.max_bytes, prepare=prepare_rows)
        for source, path in files:
            known = self.table.files.get(source)
            try:
                stat = os.stat(path)
            except FileNotFoundError:
                if known is not None:
                    self._drop_source(source, report)
                continue
            if known and not fresh and known.same_stat(stat):
                report.files_unchanged += 1
                continue
            try:
                mfile = read_memory_file(self.root, Path(path), max_bytes=self.max_bytes)
            except UnreadableFile as exc:
                report.skipped.append({"source": source, "reason": str(exc)})
                if known is not None:  # keep nothing stale for a file we can no longer read
                    self._drop_source(source, report)
                continue
            report.warnings.extend(f"{source}: {w}" for w in mfile.warnings)
            digest = hashlib.sha256(mfile.raw_bytes).hexdigest()
            if known and not fresh and known.sha256 == digest:
                known.size, known.mtime_ns = stat.st_size, stat.st_mtime_ns
                report.files_unchanged += 1
                continue
            chunks, prepared = ahead.chunked(source, mfile.text, digest)
            if fresh:  # a build writes rows, as a chunk worker prepared them or as made here
                prepared = prepared or prepare_rows(chunks)
                record = FileRecord(stat.st_size, stat.st_mtime_ns, digest, prepared.rows.num_rows,
                                    rows=prepared.rows_digest)
                yield _Pending(source, record, [], {}, prepared=prepared)
                continue
            keys = [chunk_key(c) for c in chunks]
            record = FileRecord(stat.st_size, stat.st_mtime_ns, digest, len(chunks), rows=rows_digest(keys))
            if not known:
                yield _Pending(source, record, chunks, {})
            else:
                yield self._changed_file(source, record, chunks, keys)

    def _changed_file(self, source: str, record: FileRecord, chunks: list[Chunk], keys: list[tuple]) -> _Pending:
        """What a changed file's write needs: its stored rows, the ids already right (kept, not
        rewritten), and stored vectors only for rewritten chunks whose embedded text is unchanged."""
        old_rows = {r["id"]: r for r in self.table.rows_for_source(source, vectors=False)}
        kept = {c.id for c, key in zip(chunks, keys) if c.id in old_rows and row_key(old_rows[c.id]) == key}
        if len(old_rows.keys() - kept) > MAX_ID_FILTER:
            kept = set()  # the whole source is rewritten (_write): every chunk needs its vector
        reuse = {c.id for c in chunks if c.id not in kept and old_rows.get(c.id, {}).get("embed_hash") == c.embed_hash}
        if reuse:
            stored = self.table.rows_for_source(source, ids=reuse) if len(reuse) <= MAX_ID_FILTER else \
                self.table.rows_for_source(source)
            for row in stored:
                old_rows[row["id"]]["vector"] = row["vector"]
        return _Pending(source, record, chunks, old_rows, kept)

    def _embed(self, pending: list[_Pending], progress: ProgressCallback | None) -> None:
        """Fill vectors: reuse unchanged rows, then cache, then the model."""
        todo: list[Chunk] = []
        for item in pending:
            for chunk in item.chunks:
                if chunk.id in item.kept:
                    continue  # its row stays as it is
                old = item.old_rows.get(chunk.id)
                if old is not None and old.get("embed_hash") == chunk.embed_hash and old.get("vector") is not None:
                    chunk.vector = old["vector"]
                else:
                    todo.append(chunk)
        # Shortest first over the whole run (not only inside each progress step):
        # similar lengths share a model batch, so less padding is computed.
        todo.sort(key=lambda c: len(c.embed_text))
        total = len(todo)
        for start in range(0, total, EMBED_BATCH):
            batch = todo[start : start + EMBED_BATCH]
            texts = [c.embed_text for c in batch]
            for chunk, vector in zip(batch, self.embedder.embed_array(texts, [c.embed_hash for c in batch])):
                chunk.vector = vector
            if progress:
                progress("embedding", min(start + EMBED_BATCH, total), total)

    def _build(self, files: list[tuple[str, str | Path]], report: IndexReport, progress: ProgressCallback | None) -> None:
        """A full build in bounded memory: BUILD_BATCH chunks are chunked, embedded and
        turned into Arrow columns at a time; the table is written every WRITE_ROWS rows.

        Text first: once the model would have to embed more than ``index.defer_vectors_above``
        chunks, the rest are written without vectors (full-text search works at once) and
        counted in ``meta.vectors_missing`` for the background filler (services/upkeep/vector_fill.py).
        """
        self._text_first = TextFirst(self.embedder, self.config["index.defer_vectors_above"], self.table.meta.dim)  # type: ignore[union-attr]
        batch: list[_Pending] = []
        ready: list[pa.Table] = []
        chunks = ready_rows = 0
        for done, item in enumerate(self._collect(files, report, explicit=False, fresh=True), start=1):
            batch.append(item)
            chunks += item.record.chunks
            if chunks >= BUILD_BATCH:
                ready.append(self._arrow_batch(batch, report))
                ready_rows += chunks
                batch, chunks = [], 0
                if ready_rows >= WRITE_ROWS:
                    self._append(ready)
                    ready, ready_rows = [], 0
            if progress:
                progress("indexing files", done, len(files))
        if batch:
            ready.append(self._arrow_batch(batch, report))
        self._append(ready)
        self.table.meta.vectors_missing = self._text_first.missing  # type: ignore[union-attr]
        if self.table.files:
            self.table.ensure_indexes(FTS_OPTIONS)
        self.table.save_sidecars()

    def _arrow_batch(self, batch: list[_Pending], report: IndexReport) -> "pa.Table":
        import pyarrow as pa

        prepared = [item.prepared for item in batch if item.prepared is not None]
        hashes = [h for p in prepared for h in p.rows.column("embed_hash").to_pylist()]
        # The texts the model reads, asked for only when the batch goes to it.
        embed_texts = lambda: [text for p in prepared for text in p.embed_texts.to_pylist()]  # noqa: E731
        vectors, missing = self._text_first.vectors(hashes, embed_texts)  # type: ignore[union-attr]
        for item in batch:
            self.table.files[item.source] = item.record
            report.chunks_added += item.record.chunks
            report.files_indexed += 1
        rows = pa.concat_tables([p.rows for p in prepared])
        return with_vectors(rows, vectors, self.table.meta.dim, missing)  # type: ignore[union-attr]

    def _append(self, ready: list["pa.Table"]) -> None:
        if ready and any(b.num_rows for b in ready):
            import pyarrow as pa

            # A NULL vector is a row left for the background filler (text first), not a bad vector.
            deferring = self._text_first is not None and self._text_first.deferring
            self.table.table.add(pa.concat_tables(ready), on_bad_vectors="null" if deferring else "error")

    def _write(self, pending: list[_Pending], report: IndexReport) -> None:
        for item in pending:
            new_ids = {c.id for c in item.chunks}
            kept = item.kept
            drop = set(item.old_rows) - kept
            if drop or len(kept) < len(new_ids):
                dim = self.table.meta.dim  # type: ignore[union-attr]
                if len(drop) > MAX_ID_FILTER:
                    self.table.replace_source(item.source, chunk_rows(item.chunks, dim))
                else:  # only what changed: an appended section writes just its own chunks
                    self.table.update_source(item.source, drop, chunk_rows([c for c in item.chunks if c.id not in kept], dim))
                self.table.meta.merges_since_optimize += 1  # type: ignore[union-attr]
            report.chunks_added += len(new_ids - set(item.old_rows))
            report.chunks_removed += len(set(item.old_rows) - new_ids)
            report.files_indexed += 1
            self.table.files[item.source] = item.record
            self.table.save_sidecars()  # after every file: a crash loses at most one file's bookkeeping
        self._maybe_optimize()

    def _maybe_start_vector_index(self, rows: int) -> None:
        """Past ``index.ann_min_rows`` chunks, have the ANN index built in the background."""
        from .vector_index import ann_due, start_background_build

        min_rows = self.config["index.ann_min_rows"]
        if rows >= min_rows > 0 and ann_due(self.table, min_rows):
            start_background_build(self.root)

    def _maybe_optimize(self) -> None:
        meta = self.table.meta
        assert meta is not None
        if self.table.count():
            self.table.ensure_indexes(FTS_OPTIONS)
        if meta.merges_since_optimize >= self.config["index.optimize_every"]:
            self.table.optimize()

    def _remove_deleted(self, present: set[str], report: IndexReport) -> None:
        for source in sorted(set(self.table.files) - present):
            self._drop_source(source, report)

    def _drop_source(self, source: str, report: IndexReport) -> None:
        record = self.table.files.pop(source, None)
        self.table.replace_source(source, [])
        report.chunks_removed += record.chunks if record else 0
        report.files_removed += 1
        self.table.save_sidecars()
