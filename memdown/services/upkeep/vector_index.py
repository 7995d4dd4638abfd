"""The ANN vector index, built in the background once a memory is large.

Below ``index.ann_min_rows`` chunks every vector query is exact (brute force,
fast enough there). Past it, an indexing run that finds no ANN index (or one
covering less than half the rows) starts ``python -m
memdown.services.upkeep.vector_index --dir ROOT`` detached: hooks, searches and later
index runs never wait for it. Searches keep running on brute force while it
trains; once it lands, rows added later stay searchable (LanceDB scans the
rows the index does not hold yet) and ``optimize`` folds them in.

The build takes no index lock while training (LanceDB commits the index
beside concurrent appends); only the sidecar bookkeeping afterwards takes it.
A failed or refused build is logged and retried by the next indexing run.
"""
from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from ... import paths
from ...errors import IndexUnavailableError, LockTimeoutError
from ...fsutil import file_lock
from ...index.ann import ANN
from ...index.table import ChunkTable

log = logging.getLogger("memdown.vector_index")
# Fold-ins (optimize) keep an index usable as rows are added; retrain once it holds less than this share.
RETRAIN_BELOW = 0.5


def ann_due(table: ChunkTable, min_rows: int) -> bool:
    """True when the open table is large enough and has no ANN index, or one covering too few rows."""
    rows = table.count()
    if rows < max(1, min_rows) or (table.meta is not None and table.meta.vectors_missing):
        return False  # too small, or vectors still being filled in (training must see them all)
    covered = table.ann.rows()
    return covered is None or covered[0] < RETRAIN_BELOW * rows


def build_vector_index(root: Path, min_rows: int) -> str:
    """Build the ANN index now if it is due (one builder per memory at a time); says what happened."""
    try:
        with file_lock(paths.lock_file(root, "ann"), timeout=0):
            table = ChunkTable(paths.index_dir(root))
            table.open(verify_count=False)
            if not ann_due(table, min_rows):
                return "not due"
            started = time.perf_counter()
            rows = table.count()
            table.ann.build(ANN)
            _record_version(root)
            return f"built {ANN.index_type} over {rows} rows in {time.perf_counter() - started:.1f}s"
    except LockTimeoutError:
        return "another build is running"


def _record_version(root: Path) -> None:
    """Record the new table version and files, so ``open`` does not read the index files as damage."""
    with file_lock(paths.lock_file(root, "index"), timeout=120):
        table = ChunkTable(paths.index_dir(root))
        table.open(verify_count=False)
        table.save_sidecars()


def start_background_build(root: Path) -> None:
    """Start the builder detached (its own session, output in ``logs/vector-index.log``) without waiting."""
    from ..capture.spawn import spawn_detached

    spawn_detached(root, ["-m", "memdown.services.upkeep.vector_index", "--dir", str(root)], "vector-index.log")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memdown.services.upkeep.vector_index")
    parser.add_argument("--dir", required=True, type=Path)
    args = parser.parse_args(argv)
    from ...config import load_config

    root = args.dir
    from ...logfiles import log_to_file

    log_to_file(paths.logs_dir(root) / "vector-index.log")  # rotated by size; stdout (started appended to it) follows
    try:
        outcome = build_vector_index(root, load_config(root)["index.ann_min_rows"])
    except (IndexUnavailableError, RuntimeError, OSError, ValueError) as exc:
        outcome = f"failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    print(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} vector index: {outcome}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
