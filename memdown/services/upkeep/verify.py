"""``memdown verify [--repair]``: compare the index with what the markdown produces.

The markdown is the truth. Checked:

- turns memdown recorded that are no longer in the markdown and no person
  deleted (``store.written``): reported, and written back by ``--repair``
  (the only change repair makes to the markdown);

- files not indexed, and files indexed from an older version (outdated: the
  chunks the file produces now differ from the rows, or the recorded sha256
  differs);
- orphaned chunks (rows, or ``files.json`` records, whose file is gone);
- the row count against the chunks the markdown produces (a deleted newest
  manifest makes LanceDB open the previous version without any error: only
  this count and the per-file comparison notice);
- the embedding model and chunking settings the index was built with;
- unreadable index files (a full scan of every column, plus a full-text
  probe: a deleted or truncated data file fails here), rows whose text
  differs from the markdown's chunk with the same id, and vectors that
  cannot be right (not finite, or unlike the embedding cache's vector
  for the same text): random bytes in a data file may be
  read back without any error, so only this comparison notices;
- the embedding cache (an SQLite integrity check; it is only a cache).

A file whose bytes (sha256) are those recorded in ``files.json`` is not
re-chunked: with the same model and settings it produces the rows it did when
indexed, so the digest of its rows in the table must equal the fingerprint
recorded then (``FileRecord.rows``). Only changed files, and records without a
fingerprint, are chunked again.

Repair (``services.upkeep.repair``) acts on what this finds.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ... import fsutil, paths
from ...errors import IndexUnavailableError, MemdownError
from ...index.records import INT_ROW_FIELDS, ROW_FIELDS, FileRecord, chunk_key, read_records, rows_digest
from ...index.table import ChunkTable, IndexMeta, damage_reason
from ...store.chunker import chunk_markdown
from ...store.daily import vanished
from ...store.reader import UnreadableFile, read_memory_file
from .indexing import chunk_options, index_identity, memory_files
from ..capture.job_status import verify_lines as capture_status
from .vector_spotcheck import spot_check

if TYPE_CHECKING:
    from ...index.cache_scan import VectorCheck
    from .memory import Memory

_SCAN_COLUMNS = ["id", "source", "kind", "heading", "start_line", "end_line", "section_start", "section_end",
                 "date", "session", "turn", "transcript", "text", "fts_text", "embed_hash", "vector"]
_SCAN_BATCH = 16384  # rows per Arrow batch of the full scan

# ``progress(stage, done, total)``, as ``cli.progress.Progress`` takes it.
ProgressFn = Callable[[str, int, int], None]


def quiet(stage: str, done: int, total: int) -> None:
    pass


@dataclass
class VerifyReport:
    root: str
    ok: bool = True
    index_state: str = "ok"  # ok | missing | corrupted | incompatible | inconsistent
    markdown_files: int = 0
    chunks_expected: int = 0  # chunks the readable markdown produces
    rows: int | None = None  # rows in the table (None: unreadable)
    rows_recorded: int | None = None  # chunk total in files.json
    not_indexed: list[str] = field(default_factory=list)
    outdated: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)  # sources indexed but no longer markdown
    orphaned_chunks: int = 0
    duplicate_rows: int = 0
    count_mismatch: bool = False
    model: dict[str, str | None] = field(default_factory=dict)
    model_mismatch: bool = False
    settings_mismatch: bool = False
    corrupted: list[str] = field(default_factory=list)
    unreadable_markdown: list[dict[str, str]] = field(default_factory=list)
    bad_vectors: int = 0  # rows whose vector cannot be what the model produced
    vectors_pending: int = 0  # rows without a vector while meta.json says they are being filled in: not damage
    embedding_cache: str = "ok"  # ok, or why the cache is unusable
    problems: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    capture: list[str] = field(default_factory=list)  # turns pending capture or quarantined (services.capture.jobs)
    missing_turns: list[str] = field(default_factory=list)  # recorded, then lost in a race (store.written)
    deleted_turns: list[str] = field(default_factory=list)  # recorded, then deleted by a person: respected
    purged: int = 0  # deleted by a person: the rest of them (archive, signals, index history) forgotten now
    cut: int = 0  # entries kept with words a person cut: those words forgotten everywhere else now
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def needs_rebuild(self) -> bool:
        return self.index_state in ("missing", "corrupted", "incompatible") or self.duplicate_rows > 0


@dataclass
class _Expected:
    path: Path
    sha256: str
    rows: dict[str, tuple] | None  # id -> comparable fields; None: the record's fingerprint stands in
    fingerprint: str = ""  # rows_digest the table's rows must have (when rows is None)
    count: int = 0


def _fingerprints(mem: "Memory") -> dict[str, FileRecord]:
    """Records whose row fingerprint can stand in for re-chunking: same model and settings only."""
    index_dir = paths.index_dir(mem.root)
    try:
        meta = IndexMeta.from_json(json.loads(fsutil.read_text(index_dir / "meta.json")))
    except (OSError, ValueError, TypeError):
        return {}
    if meta.model_id != mem.embedder.model_id or meta.fts_config != index_identity(mem.embedder, mem.config):
        return {}
    return {source: rec for source, rec in (read_records(index_dir) or {}).items() if rec.rows}


def _markdown_side(mem: "Memory", report: VerifyReport, progress: ProgressFn) -> dict[str, _Expected]:
    """What each file must have in the index: its chunks, or (content unchanged) its recorded fingerprint."""
    options = chunk_options(mem.config)
    max_bytes = int(mem.config["index.max_file_mb"] * 1_000_000)
    known = _fingerprints(mem)
    expected: dict[str, _Expected] = {}
    files = list(memory_files(mem.root))  # + Claude Code's auto memory
    for done, (source, path) in enumerate(files):
        progress("reading the markdown", done, len(files))
        report.markdown_files += 1
        try:
            mfile = read_memory_file(mem.root, Path(path), max_bytes=max_bytes)
        except UnreadableFile as exc:
            report.unreadable_markdown.append({"source": source, "reason": str(exc)})
            continue
        sha256 = hashlib.sha256(mfile.raw_bytes).hexdigest()
        rec = known.get(source)
        if rec is not None and rec.sha256 == sha256:
            # The same bytes, model and settings chunk to the rows fingerprinted when indexed.
            expected[source] = _Expected(Path(path), sha256, None, rec.rows, rec.chunks)
            report.chunks_expected += rec.chunks
            continue
        chunks = chunk_markdown(source, mfile.text, options)
        rows = {c.id: chunk_key(c) for c in chunks}
        expected[source] = _Expected(Path(path), sha256, rows)
        report.chunks_expected += len(rows)
    progress("reading the markdown", len(files), len(files))
    return expected


def _scan_table(table: ChunkTable, report: VerifyReport, cached: "VectorCheck | None" = None,
                progress: ProgressFn = quiet) -> dict[str, dict[str, tuple]] | None:
    """Every row, read column by column (damaged files fail here); None if unreadable.

    Rows become Python values only as the comparable tuples (nulls filled by
    Arrow, tuples built by ``zip``), and vectors are checked as one float
    array per batch: this scan is most of ``verify``'s time at a million rows.
    """
    by_source: dict[str, dict[str, tuple]] = {}
    seen = 0
    filling = bool(table.meta and table.meta.vectors_missing)  # NULL vectors are pending, not damage
    try:
        counted = table.count()
        progress("checking every row", 0, counted)
        reader = table.table.search().select(_SCAN_COLUMNS).limit(None).to_batches(_SCAN_BATCH)
        for batch in reader:  # every column is read (damage fails here); only these become Python values
            keys = _row_keys(batch)
            checked, hashes = batch, batch.column("embed_hash").to_pylist()
            if filling and batch.column("vector").null_count:
                report.vectors_pending += batch.column("vector").null_count
                checked = batch.filter(batch.column("vector").is_valid())
                hashes = checked.column("embed_hash").to_pylist()
            report.bad_vectors += _implausible_vectors(checked, hashes, cached)
            sources = batch.column("source").to_pylist()
            for source, key in zip(sources, keys):
                rows = by_source.get(source)
                if rows is None:
                    rows = by_source[source] = {}
                if key[0] in rows:
                    report.duplicate_rows += 1
                rows[key[0]] = key
            seen += batch.num_rows
            progress("checking every row", min(seen, counted), counted)
        if counted != seen:
            report.corrupted.append(f"the table counts {counted} rows but a full scan read {seen}")
        if report.bad_vectors:
            report.corrupted.append(f"{report.bad_vectors} row(s) hold vectors that cannot be right")
        report.rows = seen
        if seen:
            table.table.search("verify", query_type="fts", fts_columns="fts_text").limit(1).to_list()
    except Exception as exc:  # LanceDB has no exception classes of its own
        report.corrupted.append(f"index files unreadable ({damage_reason(exc)})")
        return None
    return by_source


def _row_keys(batch) -> list[tuple]:
    """``records.row_key`` of every row of ``batch``: nulls read as 0 / "" (filled by Arrow), one tuple a row."""
    import pyarrow.compute as pc

    columns = []
    for name in ROW_FIELDS:
        column = batch.column(name)
        if column.null_count:
            column = pc.fill_null(column, 0 if name in INT_ROW_FIELDS else "")
        columns.append(column.to_pylist())
    return list(zip(*columns))


def _implausible_vectors(batch, hashes: list[str], cached: "VectorCheck | None") -> int:
    """Rows whose vector is not as the model made it: not finite, or unlike the embedding
    cache's vector for the same text (any model's vectors pass the first; the cache knows)."""
    import numpy as np

    column = batch.column("vector")
    if column.null_count:
        return column.null_count
    dim = column.type.list_size
    with np.errstate(all="ignore"):  # garbage bytes overflow here; they are what we look for
        vectors = column.flatten().to_numpy(zero_copy_only=False).reshape(-1, dim)
        bad = ~np.isfinite(np.einsum("ij,ij->i", vectors, vectors, dtype=np.float64))
    if cached is not None:
        bad |= cached.unlike(hashes, vectors, ~bad)
    return int(bad.sum())


def _vector_check(mem: "Memory", dim: int) -> "VectorCheck":
    from ...index.cache_scan import VectorCheck

    return VectorCheck(mem.embedder.cache, mem.embedder.model_id, dim)


def verify(mem: "Memory", progress: ProgressFn = quiet) -> VerifyReport:
    """Check the index against the markdown; changes no markdown. An entry a person deleted is forgotten
    everywhere else first (``forget.purge_deleted``: deleted means deleted). ``progress(stage, done, total)``
    hears how far the two long parts are: reading the markdown (files) and checking every row (rows)."""
    started = time.perf_counter()
    paths.require_root(mem.root)
    report = VerifyReport(root=str(mem.root))
    report.missing_turns, report.deleted_turns = vanished(mem.root)
    report.purged, report.cut = _purge_deleted(mem)
    expected = _markdown_side(mem, report, progress)
    configured = mem.embedder.model_id  # no model load: the id is known up front
    report.model = {"configured": configured, "index": None}
    _check_cache(mem, report)
    table = ChunkTable(paths.index_dir(mem.root))
    actual: dict[str, dict[str, tuple]] | None = None
    if not table.exists():
        report.index_state = "missing"
        report.problems.append("no index (or its table or metadata is missing)")
    else:
        try:
            table.open(verify_count=False)
        except IndexUnavailableError as exc:
            report.corrupted.append(str(exc))
        else:
            assert table.meta is not None
            report.model["index"] = table.meta.model_id
            report.rows_recorded = sum(r.chunks for r in table.files.values())
            if table.meta.model_id != configured:
                report.model_mismatch = True
                report.problems.append(f"index built with {table.meta.model_id}, config says {configured}")
            if table.meta.fts_config != index_identity(mem.embedder, mem.config):
                report.settings_mismatch = True
                report.problems.append("index built with other chunking or full-text settings")
            usable = report.embedding_cache == "ok" and mem.embedder.cache is not None
            actual = _scan_table(table, report, _vector_check(mem, table.meta.dim) if usable else None, progress)
            spot_check(mem, report)  # are the cached vectors their text's at all?
        if report.corrupted:
            report.index_state = "corrupted"
            report.problems.extend(report.corrupted)
        elif report.model_mismatch or report.settings_mismatch:
            report.index_state = "incompatible"
    if actual is not None:
        _compare(table, expected, actual, report)
    if report.missing_turns:
        report.problems.append(f"{len(report.missing_turns)} recorded turn(s) missing from the markdown "
                               "(lost in a race; --repair writes them back)")
    report.ok = not report.problems
    report.capture = capture_status(mem.root)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _purge_deleted(mem: "Memory") -> tuple[int, int]:
    """A person's edits of the day files, reconciled: (entries deleted, entries with words cut) forgotten
    everywhere else (``forget.purge_deleted``, ``forget_cuts.purge_cuts``)."""
    from .forget import purge_deleted
    from .forget_cuts import purge_cuts

    done = [0, 0]
    for n, purge in enumerate((purge_deleted, purge_cuts)):
        try:
            done[n] = purge(mem)
        except MemdownError:  # an index that cannot open: its history is purged at the next purge that can
            continue
    return done[0], done[1]


def _check_cache(mem: "Memory", report: VerifyReport) -> None:
    cache = mem.embedder.cache
    problem = cache.check() if cache is not None else None
    if problem:
        report.embedding_cache = problem
        report.problems.append(f"embedding cache damaged ({problem})")


def _compare(table: ChunkTable, expected: dict[str, _Expected], actual: dict[str, dict[str, tuple]],
             report: VerifyReport) -> None:
    records = table.files
    for source, exp in sorted(expected.items()):
        rows = actual.get(source, {})
        rec = records.get(source)
        if exp.rows is None:
            same = len(rows) == exp.count and rows_digest(rows.values()) == exp.fingerprint
        else:
            same = rows == exp.rows
        if rec is None and not rows:
            report.not_indexed.append(source)
        elif not same or rec is None or rec.sha256 != exp.sha256 or rec.chunks != len(rows):
            report.outdated.append(source)
    unreadable = {u["source"] for u in report.unreadable_markdown}
    for source in sorted((set(actual) | set(records)) - set(expected)):
        report.orphaned.append(source)
        report.orphaned_chunks += len(actual.get(source, {}))
        if source in unreadable and not actual.get(source):
            report.orphaned.pop()  # an unreadable file the indexer already dropped: nothing to fix
    report.count_mismatch = report.rows is not None and report.rows != report.chunks_expected
    if report.not_indexed:
        report.problems.append(f"{len(report.not_indexed)} file(s) not indexed")
    if report.outdated:
        report.problems.append(f"{len(report.outdated)} file(s) indexed from an older version")
    if report.orphaned:
        report.problems.append(
            f"{report.orphaned_chunks} orphaned chunk(s) from {len(report.orphaned)} file(s) no longer in the markdown"
        )
    if report.duplicate_rows:
        report.problems.append(f"{report.duplicate_rows} duplicate row(s)")
    if report.count_mismatch:
        report.problems.append(f"the index holds {report.rows} chunks but the markdown produces {report.chunks_expected}")
    if report.problems and report.index_state == "ok":
        report.index_state = "inconsistent"
