"""Index snapshots a team can share: export a verified copy, import it, embed only the difference.

A snapshot is one tar file (stdlib ``tarfile``) holding:

- ``snapshot.json``: format version, model id and dimension, the index identity
  (full-text settings and chunker version, see ``index_identity``), the row
  count, every indexed markdown file's sha256 and chunk count, and the sha256
  and size of every other member;
- ``index/``: a compact LanceDB table (one version, no history) with its
  full-text and scalar indexes, and ``files.json``/``meta.json`` sidecars.

Import checks everything before it touches the local index: the manifest,
each member's sha256, the model and index identity against this machine's
config (a different model is refused: its vectors would be meaningless here),
and that the table opens with the row count the manifest claims. Only then is
the verified folder swapped in for the local one (rename; the old index is
removed after). The next ``memdown index`` compares local markdown with the
imported per-file sha256: equal files are kept as they are, changed or
local-only files are re-chunked and only their new chunks are embedded
(unchanged chunks keep the snapshot's vectors).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import fsutil
from ... import paths
from ...config import Config
from ...errors import IndexUnavailableError, SnapshotError, SnapshotMismatchError, VectorsPendingError
from ...fsutil import file_lock
from ...index.embedder import Embedder
from ...index.table import TABLE_NAME, ChunkTable, damage_reason
from ...index.textprep import FTS_OPTIONS
from .indexing import index_identity

FORMAT = "memdown-index-snapshot"
FORMAT_VERSION = 1
MANIFEST = "snapshot.json"
INDEX_FOLDER = "index"
_BATCH_ROWS = 8192
_MAX_MANIFEST_BYTES = 64 << 20


@dataclass
class SnapshotInfo:
    """What a snapshot holds (``export`` returns it; ``import`` returns the one it installed)."""

    path: str
    model_id: str
    dim: int
    identity: str
    rows: int
    files: int
    created: float
    bytes: int = 0
    replaced: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _members(folder: Path) -> dict[str, dict[str, Any]]:
    """sha256 and size of every file below ``folder``, by relative POSIX path."""
    found: dict[str, dict[str, Any]] = {}
    for dirpath, _dirs, names in os.walk(folder):
        for name in names:
            path = Path(dirpath) / name
            found[path.relative_to(folder).as_posix()] = {"sha256": _sha256(path), "size": path.stat().st_size}
    return dict(sorted(found.items()))


# --- export -------------------------------------------------------------------

def export_snapshot(root: Path, dest: Path, embedder: Embedder, config: Config) -> SnapshotInfo:
    """Write a verified snapshot of ``root``'s index to ``dest`` (atomically: temp file, then rename).

    The index must be current and intact (run ``memdown index`` first): a
    damaged or out-of-date index raises instead of being shared.
    """
    root, dest = Path(root), Path(dest)
    if dest.is_dir():
        raise SnapshotError(f"{dest} is a folder; name the snapshot file to write")
    with file_lock(paths.lock_file(root, "index"), timeout=120):
        source = ChunkTable(paths.index_dir(root))
        source.open()  # row counts, rollback and table-file checks; raises IndexUnavailableError
        source.probe()
        meta = source.meta
        assert meta is not None
        if meta.model_id != embedder.model_id or meta.fts_config != index_identity(embedder, config):
            raise IndexUnavailableError("the index was built with other settings than the config's; run `memdown index` first")
        if meta.vectors_missing:
            raise VectorsPendingError(f"the index still waits for {meta.vectors_missing} vectors (filled in the "
                                      "background); export once `memdown stats` shows them complete")
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=".snapshot-", dir=dest.parent) as tmp:  # same file system: rename
            stage = Path(tmp) / INDEX_FOLDER
            copy = ChunkTable(stage)
            copy.create(meta.model_id, meta.dim, meta.fts_config)
            try:
                reader = source.table.search().limit(None).to_batches(_BATCH_ROWS)
                for batch in reader:  # bounded memory: one batch of rows at a time
                    copy.table.add(batch)
                if copy.count():
                    copy.ensure_indexes(FTS_OPTIONS)
            except (RuntimeError, OSError, ValueError) as exc:
                raise IndexUnavailableError(f"cannot copy the index ({damage_reason(exc)})") from None
            copy.files = dict(source.files)
            copy.meta.last_indexed = meta.last_indexed  # type: ignore[union-attr]
            copy.save_sidecars()
            rows = copy.count()
            manifest = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "model_id": meta.model_id,
                "dim": meta.dim,
                "identity": meta.fts_config,
                "rows": rows,
                "created": time.time(),
                "files": {s: {"sha256": r.sha256, "chunks": r.chunks} for s, r in sorted(source.files.items())},
                "members": _members(stage),
            }
            (Path(tmp) / MANIFEST).write_text(json.dumps(manifest, indent=1))
            partial = Path(tmp) / "snapshot.tar"
            with tarfile.open(partial, "w") as tar:
                tar.add(Path(tmp) / MANIFEST, arcname=MANIFEST)
                tar.add(stage, arcname=INDEX_FOLDER)
            with open(partial, "rb+") as handle:
                os.fsync(handle.fileno())
            os.replace(partial, dest)
    return SnapshotInfo(path=str(dest), model_id=meta.model_id, dim=meta.dim, identity=meta.fts_config, rows=rows,
                        files=len(source.files), created=manifest["created"], bytes=dest.stat().st_size)


# --- import -------------------------------------------------------------------

def _read_manifest(tar: tarfile.TarFile) -> dict[str, Any]:
    try:
        member = tar.getmember(MANIFEST)
    except KeyError:
        raise SnapshotError("not a memdown index snapshot (no snapshot.json)") from None
    if not member.isfile() or member.size > _MAX_MANIFEST_BYTES:
        raise SnapshotError("snapshot.json is not a plain file of sane size")
    handle = tar.extractfile(member)
    assert handle is not None
    try:
        manifest = json.loads(handle.read().decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise SnapshotError("snapshot.json is not valid JSON") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise SnapshotError("not a memdown index snapshot (unknown format)")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise SnapshotError(f"snapshot format version {manifest.get('format_version')!r} is not {FORMAT_VERSION}; "
                            "export it again with this memdown version")
    checks = (("model_id", str), ("identity", str), ("dim", int), ("rows", int), ("files", dict), ("members", dict))
    for key, kind in checks:
        if not isinstance(manifest.get(key), kind):
            raise SnapshotError(f"snapshot.json: {key} is missing or has the wrong type")
    return manifest


def check_compatible(manifest: dict[str, Any], embedder: Embedder, config: Config) -> None:
    """Refuse a snapshot built with another model or other chunking/full-text settings."""
    if manifest["model_id"] != embedder.model_id:
        raise SnapshotMismatchError(
            f"snapshot was embedded with {manifest['model_id']} but this memory uses {embedder.model_id}",
            hint="use a snapshot built with the same embedding.model, or run `memdown index` to embed locally",
        )
    if embedder.dim and manifest["dim"] != embedder.dim:
        raise SnapshotMismatchError(f"snapshot vectors have {manifest['dim']} dimensions, this model {embedder.dim}")
    if manifest["identity"] != index_identity(embedder, config):
        raise SnapshotMismatchError(
            "snapshot was built with other chunking or full-text settings (or another memdown version)",
            hint="export it again with this memdown version and config",
        )


def _extract_verified(tar: tarfile.TarFile, manifest: dict[str, Any], into: Path) -> Path:
    """Extract ``index/`` into ``into`` and check every file against the manifest."""
    wanted = manifest["members"]
    for member in tar.getmembers():
        if member.name == MANIFEST:
            continue
        name = member.name
        if not (name == INDEX_FOLDER or name.startswith(INDEX_FOLDER + "/")):
            raise SnapshotError(f"snapshot holds an unexpected member {name!r}")
        if not (member.isdir() or member.isfile()):
            raise SnapshotError(f"snapshot member {name!r} is not a plain file")
        if member.isfile() and name[len(INDEX_FOLDER) + 1:] not in wanted:
            raise SnapshotError(f"snapshot member {name!r} is not listed in its manifest")
    try:
        tar.extractall(into, filter="data")  # refuses absolute paths, '..', links out of the folder
    except (tarfile.TarError, OSError) as exc:
        raise SnapshotError(f"snapshot cannot be unpacked ({type(exc).__name__}: {str(exc)[:120]})") from None
    folder = into / INDEX_FOLDER
    for rel, want in wanted.items():
        path = folder / rel
        if not isinstance(want, dict) or not path.is_file():
            raise SnapshotError(f"snapshot is incomplete: {rel} is missing")
        if path.stat().st_size != want.get("size") or _sha256(path) != want.get("sha256"):
            raise SnapshotError(f"snapshot is corrupt: {rel} does not match its checksum")
    return folder


def import_snapshot(root: Path, src: Path, embedder: Embedder, config: Config) -> SnapshotInfo:
    """Replace ``root``'s index with the verified snapshot at ``src``.

    Nothing local is touched until the snapshot is fully verified; a bad or
    mismatched snapshot raises (``SnapshotError`` / ``SnapshotMismatchError``)
    and leaves the existing index exactly as it was. The markdown is never
    touched: run ``memdown index`` after, which embeds only what differs.
    """
    root, src = Path(root), Path(src)
    paths.require_root(root)
    if not src.is_file():
        raise SnapshotError(f"{src} is not a file")
    index_dir = paths.index_dir(root)
    with file_lock(paths.lock_file(root, "index"), timeout=120):
        with tempfile.TemporaryDirectory(prefix=".import-", dir=index_dir.parent) as tmp:
            try:
                with tarfile.open(src, "r:*") as tar:
                    manifest = _read_manifest(tar)
                    check_compatible(manifest, embedder, config)
                    folder = _extract_verified(tar, manifest, Path(tmp))
            except tarfile.TarError as exc:
                raise SnapshotError(f"{src.name} is not a readable snapshot ({str(exc)[:120]})") from None
            _forget_file_times(folder)
            staged = ChunkTable(folder)
            try:
                staged.open()  # sidecars, row counts, version
                staged.probe()
            except IndexUnavailableError as exc:
                raise SnapshotError(f"snapshot is corrupt ({exc})") from None
            meta = staged.meta
            assert meta is not None
            if (meta.model_id, meta.dim, meta.fts_config) != (manifest["model_id"], manifest["dim"], manifest["identity"]) \
                    or staged.count() != manifest["rows"] \
                    or {s: r.sha256 for s, r in staged.files.items()} != {s: f.get("sha256") for s, f in manifest["files"].items()}:
                raise SnapshotError("snapshot is corrupt: its index does not match its manifest")
            _adopt_local_times(root, staged)
            staged.save_sidecars()  # record this machine's file times for the table-file check
            replaced = _swap_in(folder, index_dir)
    return SnapshotInfo(path=str(src), model_id=manifest["model_id"], dim=manifest["dim"],
                        identity=manifest["identity"], rows=manifest["rows"], files=len(manifest["files"]),
                        created=float(manifest.get("created") or 0), bytes=src.stat().st_size, replaced=replaced)


def _adopt_local_times(root: Path, table: ChunkTable) -> None:
    """A local file whose bytes equal the snapshot's record takes the local size and mtime.

    The indexer does the same when a file's sha256 matches; doing it here means
    the next ``memdown index`` sees those files unchanged by stat alone (no
    LanceDB, no model) instead of hashing them all behind a model load.
    """
    for source, record in table.files.items():
        path = root / source
        try:
            if path.is_symlink() or not path.is_file():
                continue
            st = path.stat()
            if st.st_size == record.size and _sha256(path) == record.sha256:
                record.size, record.mtime_ns = st.st_size, st.st_mtime_ns
        except OSError:
            continue


def _forget_file_times(folder: Path) -> None:
    """Drop the exporter's table-file (size, mtime) record: tar keeps whole seconds, and every
    file was just checked against its sha256, a stronger check; ``save_sidecars`` records ours."""
    meta_path = folder / "meta.json"
    try:
        meta = json.loads(fsutil.read_text(meta_path))
    except (OSError, ValueError):
        raise SnapshotError("snapshot is corrupt: its meta.json is unreadable") from None
    if not isinstance(meta, dict):
        raise SnapshotError("snapshot is corrupt: its meta.json is not an object")
    meta["table_files"] = {}
    meta_path.write_text(json.dumps(meta))


def _swap_in(folder: Path, index_dir: Path) -> bool:
    """Put the verified ``folder`` where the index lives; True when an old index was replaced."""
    old = None
    if index_dir.exists() or index_dir.is_symlink():
        old = index_dir.with_name(f".{index_dir.name}.replaced-{os.getpid()}")
        os.replace(index_dir, old)
    os.replace(folder, index_dir)
    if old is not None:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink()
    return old is not None
