"""Is the index in step with the markdown? The list of files it should hold, and the cheap check.

``memory_files`` is the one list of what the index holds (the markdown under
the root plus Claude Code's auto-memory notes); ``changed_sources`` compares
it with ``files.json`` by stat alone, before every in-process search.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ... import paths
from ...index.records import FileRecord, read_records, stat_diff
from ...live.barrier import watcher_says_clean
from ...store.automemory import SOURCE_DIR as NOTES, note_files, source_for
from ...store.reader import source_of, walk_markdown


def is_note(root: Path, path: Path) -> bool:
    """A note of Claude Code's auto memory for this project (indexed although outside the root)."""
    try:
        source_for(root, path)
    except ValueError:
        return False
    return True


def memory_files(root: Path) -> list[tuple[str, str | Path]]:
    """``(source, path)`` of every file the index should hold: the markdown plus Claude Code's auto memory.

    Sources come from the walk itself; only a symlinked file pays for
    resolving (this runs before every in-process search).
    """
    out: list[tuple[str, str | Path]] = [
        (source_of(root, Path(path)) if link else rel, path) for path, rel, link in walk_markdown(root)
    ]
    return out + [(source_of(root, path), path) for path in note_files(root)]


def stale(root: Path, records: Mapping[str, FileRecord], *, trust_watcher: bool = True) -> bool:
    """Whether any file differs from ``records`` by size and mtime, or was added or removed.

    With ``trust_watcher``, a live daemon that vouches every file event is
    indexed (live/barrier.py) saves the walk: only the auto-memory notes,
    outside its watched root, are statted. Otherwise every file is statted.
    """
    if trust_watcher and watcher_says_clean(root):
        notes = [(source_of(root, path), path) for path in note_files(root)]
        noted = {source: rec for source, rec in records.items() if source.startswith(NOTES + "/")}
        return not stat_diff(noted, notes).clean
    return not stat_diff(records, memory_files(root)).clean


def changed_sources(root: Path, *, trust_watcher: bool = True) -> bool:
    """Cheap check (stat only, or the daemon's word) whether any markdown differs from the index's record."""
    records = read_records(paths.index_dir(root))
    if records is None:
        return True  # no index, or damaged: opening it finds out and rebuilds
    return stale(Path(root), records, trust_watcher=trust_watcher)


def files_behind(root: Path) -> int:
    """How many files the index does not yet hold as written (changed, added or removed), by stat;
    the daemon's word is not taken: this is what `stats` reports."""
    records = read_records(paths.index_dir(root))
    if records is None:
        return len(memory_files(root))
    diff = stat_diff(records, memory_files(root))
    return len(diff.changed) + len(diff.deleted)
