"""Table rows from chunks as Arrow columns (the store's Chunk objects, read by attribute).

One float32 buffer holds a batch's vectors: no Python float per number and no
list of row dicts, which is what kept a full build's memory flat.

A full build prepares each file's rows without their vectors (:func:`prepare_rows`) in the
chunk workers (store/chunkpool.py), beside the chunking, and only those Arrow columns come back
(no Chunk objects: unpickling a million of them cost the indexer seconds). The indexer's process
is the build's narrowest part, so it only joins the prepared columns and adds the vectors.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from .records import chunk_key, rows_digest
from .table import table_schema
from .textprep import fts_texts

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

_TEXT_COLUMNS = ("id", "source", "kind", "heading", "date", "session", "turn", "transcript", "text")
_INT_COLUMNS = ("start_line", "end_line", "section_start", "section_end")
_COLUMNS = _TEXT_COLUMNS + _INT_COLUMNS + ("embed_hash",)


@dataclass
class Prepared:
    """One file's rows before vectors: what a chunk worker hands the indexer instead of the chunks."""

    rows_digest: str  # records.rows_digest of the file's chunk keys (its FileRecord's ``rows``)
    rows: "pa.Table"  # text_rows(chunks): every column but the vector
    embed_texts: "pa.Array"  # what the model reads, per row (only a build that embeds reads it)


def prepare_rows(chunks: Sequence[Any]) -> Prepared:
    import pyarrow as pa

    return Prepared(rows_digest([chunk_key(c) for c in chunks]), text_rows(chunks),
                    pa.array([c.embed_text for c in chunks], pa.string()))


def _text_schema(dim: int = 1) -> "pa.Schema":
    schema = table_schema(dim)
    return schema.remove(schema.get_field_index("vector"))


def text_rows(chunks: Sequence[Any]) -> "pa.Table":
    """Every column of the table but the vector, in the table's order."""
    import pyarrow as pa

    # One pass over the chunks for all their fields, then one column per field.
    values = list(zip(*map(attrgetter(*_COLUMNS), chunks))) or [()] * len(_COLUMNS)
    columns: dict[str, Any] = {name: pa.array(column, pa.int32() if name in _INT_COLUMNS else pa.string())
                               for name, column in zip(_COLUMNS, values)}
    columns["fts_text"] = pa.array(fts_texts(chunks), pa.string())
    schema = _text_schema()
    return pa.Table.from_arrays([columns[f.name] for f in schema], schema=schema)


def with_vectors(rows: "pa.Table", vectors: "np.ndarray", dim: int, missing: "np.ndarray | None" = None) -> "pa.Table":
    """``rows`` (from :func:`text_rows`) with their vector column; rows ``missing`` get a NULL vector."""
    import numpy as np
    import pyarrow as pa

    flat = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1)
    mask = None if missing is None else pa.array(missing, pa.bool_())
    column = pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dim, mask=mask)
    return rows.append_column(table_schema(dim).field("vector"), column)


def arrow_rows(chunks: Sequence[Any], vectors: "np.ndarray", dim: int) -> "pa.Table":
    """The table rows for ``chunks`` as Arrow columns; vectors stay one float32 buffer."""
    return with_vectors(text_rows(chunks), vectors, dim)


def chunk_rows(chunks: Sequence[Any], dim: int) -> "pa.Table":
    """Rows for chunks that carry their own vectors (the incremental path: a few per changed file)."""
    import numpy as np

    vectors = [np.asarray(c.vector, dtype=np.float32) for c in chunks]
    return arrow_rows(chunks, np.stack(vectors) if vectors else np.zeros((0, dim), np.float32), dim)
