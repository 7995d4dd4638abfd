"""``memdown verify --repair``: fix what ``services.upkeep.verify`` found.

Lost entries are written back first (the only change to the markdown). Then the index: rebuilt whole
when it is missing, unreadable or built with another model or settings; otherwise only the affected
files are re-indexed (vectors come from the rows or the embedding cache, so little is re-embedded).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ... import fsutil, paths
from ...index.records import FileRecord
from ...index.table import ChunkTable
from ...store.daily import heal_all
from .verify import ProgressFn, VerifyReport, quiet, verify

if TYPE_CHECKING:
    from .memory import Memory


def repair(mem: "Memory", report: VerifyReport | None = None, progress: ProgressFn = quiet) -> VerifyReport:
    """Fix what :func:`verify` found; returns a fresh report of the repaired index.

    Writes back entries lost in a race, then touches only the index. Partial repair first (drop orphans, re-index
    affected files); if the index still does not verify, rebuild it whole.
    """
    report = report or verify(mem, progress)
    if report.ok:
        return report
    actions: list[str] = []
    if report.missing_turns:
        actions.append(f"wrote back {len(heal_all(mem.root))} entr(ies) lost in a race")
        report = verify(mem, progress)
    if report.embedding_cache != "ok":
        mem.embedder.cache.reset()
        actions.append("started a new embedding cache (the damaged one was moved aside)")
    if report.needs_rebuild or report.model_mismatch or report.settings_mismatch:
        actions.append(_rebuild(mem, report.index_state, progress))
    elif report.index_state == "ok":
        pass  # only the embedding cache needed fixing
    else:
        try:
            actions.append(_partial(mem, report, progress))
        except Exception as exc:  # the table would not take the partial fix: rebuild
            actions.append(f"partial repair failed ({type(exc).__name__}); {_rebuild(mem, 'partial repair failed', progress)}")
    after = verify(mem, progress)
    if not after.ok and not after.needs_rebuild:
        actions.append(_rebuild(mem, "still inconsistent after a partial repair", progress))
        after = verify(mem, progress)
    after.repaired = actions
    return after


def _rebuild(mem: "Memory", why: str, progress: ProgressFn) -> str:
    result = mem.index(rebuild=True, progress=progress)
    return (f"rebuilt the whole index ({why}): {result.chunks_total} chunks from {result.files_indexed} file(s), "
            f"{result.embedded} embedded")


def _partial(mem: "Memory", report: VerifyReport, progress: ProgressFn) -> str:
    """Make files.json agree with the rows, drop orphans, then re-index the affected files.

    Records of outdated files are set to "unknown" (size -1, no sha) with the
    row count they really have, so the table opens (counts agree) and the
    indexer re-reads exactly those files, reusing their rows' vectors.
    """
    root = mem.root
    table = ChunkTable(paths.index_dir(root))
    with fsutil.file_lock(paths.lock_file(root, "index"), timeout=120):
        table.open(verify_count=False)
        for source in report.orphaned:
            table.replace_source(source, [])
            table.files.pop(source, None)
        if report.outdated:
            counts = _rows_per_source(table, set(report.outdated))
            for source in report.outdated:
                old = table.files.get(source)
                table.files[source] = FileRecord(-1, old.mtime_ns if old else 0, "", counts.get(source, 0))
        table.save_sidecars()
    targets = [root / s for s in report.outdated + report.not_indexed]
    result = mem.index(targets, progress=progress) if targets else None
    parts = []
    if report.orphaned:
        parts.append(f"dropped {report.orphaned_chunks} orphaned chunk(s) of {len(report.orphaned)} file(s)")
    if result is not None:
        parts.append(f"re-indexed {len(targets)} file(s) (+{result.chunks_added}/-{result.chunks_removed} chunks, "
                     f"{result.embedded} embedded)")
    return "; ".join(parts) or "nothing to do"


def _rows_per_source(table: ChunkTable, sources: set[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for batch in table.table.search().select(["source"]).limit(None).to_batches(8192):
        for source in batch.column("source").to_pylist():
            if source in sources:
                counts[source] = counts.get(source, 0) + 1
    return counts
