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

from .. import paths
from ..errors import LockTimeoutError
from ..fsutil import atomic_write_text, file_lock
from ..paths import PRIVATE_FILE_MODE
from ..index.table import SCHEMA_VERSION, TABLE_NAME, ChunkTable, IndexMeta
from .indexing import IndexReport, changed_sources


def _manifest_version(name: str) -> int | None:
    stem = name[: -len(".manifest")]
    if not stem.isdigit():
        return None
    number = int(stem)
    return (1 << 64) - 1 - number if number > (1 << 63) else number  # Lance's "V2" names count down


def newest_manifest(table_dir: Path) -> int | None:
    try:
        names = [p.name for p in (table_dir / "_versions").iterdir() if p.name.endswith(".manifest")]
    except OSError:
        return None
    versions = [v for v in map(_manifest_version, names) if v is not None]
    return max(versions) if versions else None


def report_if_current(root: Path, model_id: str, identity: str) -> IndexReport | None:
    """An IndexReport for "nothing to do" when the index is provably current; None to run the full pass."""
    started = time.perf_counter()
    table = ChunkTable(paths.index_dir(root))
    try:
        with file_lock(paths.lock_file(Path(root), "index"), timeout=0):
            try:
                meta = IndexMeta.from_json(json.loads(table.meta_path.read_text()))
                files = json.loads(table.files_path.read_text())
            except (OSError, ValueError, TypeError):
                return None
            if (meta.schema_version, meta.model_id, meta.fts_config) != (SCHEMA_VERSION, model_id, identity):
                return None
            if not meta.table_files or table._table_files() != meta.table_files:
                return None
            if newest_manifest(table.dir / f"{TABLE_NAME}.lance") != meta.table_version:
                return None
            if changed_sources(Path(root)):
                return None
            chunks = [rec.get("chunks") for rec in files.values()]
            if not all(isinstance(n, int) and n >= 0 for n in chunks):
                return None
            meta.last_indexed = time.time()  # what `stats` shows as the last indexing time
            atomic_write_text(table.meta_path, json.dumps(meta.__dict__, indent=1), mode=PRIVATE_FILE_MODE)
    except LockTimeoutError:
        return None  # a writer is busy: the full pass waits for it
    return IndexReport(files_unchanged=len(files), chunks_total=sum(chunks),
                       seconds=round(time.perf_counter() - started, 3))

