"""Making removed text really gone from the cache (``memdown forget``).

LanceDB keeps every older version of the table (its data files and the full-text index files) until
they are cleaned up, and the embedding cache keeps a vector for every text it ever embedded. After rows
are deleted, ``purge_history`` compacts the table, rebuilds the full-text index from the rows that are
left, and deletes every older version at once (not after ``table.CLEANUP_AGE``: a reader that opened an
old version meanwhile fails once and reopens); ``forget_vectors`` deletes cache rows by text hash, with
SQLite's ``secure_delete`` so the freed pages are zeroed, then checkpoints the WAL.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from .cache import EmbeddingCache, _split_key
from .table import ChunkTable


def purge_history(table: ChunkTable, fts_options: dict[str, Any]) -> None:
    """Compact ``table``, rebuild its full-text index, and delete every older version's files."""
    import warnings

    from lancedb.index import FTS

    lance = table.table
    with warnings.catch_warnings():  # "removes every version except the latest": that is the point here
        warnings.simplefilter("ignore", UserWarning)
        lance.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
        if lance.count_rows():
            lance.create_index("fts_text", config=FTS(**fts_options), name="fts_text_idx", replace=True)
        lance.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)  # the old index's files too
    if table.meta is not None:
        table.meta.merges_since_optimize = 0
        table.save_sidecars()


def forget_vectors(cache: EmbeddingCache, model_id: str, hashes: Sequence[str]) -> int:
    """Delete the cached vectors of these text hashes (every model's row for the current one; the first
    layout's rows too); how many rows went."""
    db = cache._conn()
    if db is None or not hashes:
        return 0
    try:
        db.execute("PRAGMA secure_delete = ON")
        model = cache._model_number(db, model_id, create=False)
        keys = [split[0] for h in hashes if model is not None and (split := _split_key(h, model)) is not None]
        gone = 0
        db.execute("BEGIN")
        for start in range(0, len(keys), 500):
            batch = keys[start:start + 500]
            gone += db.execute(f"DELETE FROM vectors WHERE key IN ({','.join('?' * len(batch))})", batch).rowcount
        if cache._legacy:
            for start in range(0, len(hashes), 500):
                batch = list(hashes[start:start + 500])
                gone += db.execute(f"DELETE FROM embeddings WHERE hash IN ({','.join('?' * len(batch))})",
                                   batch).rowcount
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.DatabaseError:
        return 0
    return gone
