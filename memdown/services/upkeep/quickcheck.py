"""A no-op ``memdown index`` answered without LanceDB or the model.

Importing LanceDB and loading the model cost seconds; when nothing changed,
``index`` needs neither. The index is current when, by stat and JSON alone:

- ``meta.json`` names this model, this schema and these chunking/full-text settings;
- every table data and index file has the size and mtime recorded at the last
  write (Lance never rewrites a file, so any difference is damage or a writer),
  and the newest manifest is the version recorded then (a deleted manifest
  would roll the table back);
- every markdown file has the size and mtime ``files.json`` records, and no
  file was added or removed.

Anything else (or a writer holding the index lock) returns None and the
caller runs the full pass, which opens, probes and heals the table.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from ... import paths
from ...errors import LockTimeoutError
from ...fsutil import atomic_write_text, file_lock
from ...paths import PRIVATE_FILE_MODE
from ...index.table import ChunkTable
from .freshness import stale
from .indexing import IndexReport


def report_if_current(root: Path, model_id: str, identity: str) -> IndexReport | None:
    """An IndexReport for "nothing to do" when the index is provably current; None to run the full pass."""
    started = time.perf_counter()
    table = ChunkTable(paths.index_dir(root))
    try:
        with file_lock(paths.lock_file(Path(root), "index"), timeout=0):
            if not table.unchanged_since_write():  # sidecars (index/records.py) and table files, by stat
                return None
            meta = table.meta
            assert meta is not None
            if (meta.model_id, meta.fts_config) != (model_id, identity):
                return None
            if stale(Path(root), table.files):  # the watch daemon's word, or a stat of every file
                return None
            meta.last_indexed = time.time()  # what `stats` shows as the last indexing time
            atomic_write_text(table.meta_path, json.dumps(meta.__dict__, indent=1), mode=PRIVATE_FILE_MODE)
    except LockTimeoutError:
        return None  # a writer is busy: the full pass waits for it
    return IndexReport(files_unchanged=len(table.files), chunks_total=sum(r.chunks for r in table.files.values()),
                       seconds=round(time.perf_counter() - started, 3))

