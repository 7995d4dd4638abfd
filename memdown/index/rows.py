"""Table rows from chunks as Arrow columns (the store's Chunk objects, read by attribute).

One float32 buffer holds a batch's vectors: no Python float per number and no
list of row dicts, which is what kept a full build's memory flat.
"""
from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from .table import table_schema
from .textprep import fts_text

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

_TEXT_COLUMNS = ("id", "source", "kind", "heading", "date", "session", "turn", "transcript", "text")
_INT_COLUMNS = ("start_line", "end_line", "section_start", "section_end")
_COLUMNS = _TEXT_COLUMNS + _INT_COLUMNS


def arrow_rows(chunks: Sequence[Any], vectors: "np.ndarray", dim: int) -> "pa.Table":
    """The table rows for ``chunks`` as Arrow columns; vectors stay one float32 buffer."""
    import numpy as np
    import pyarrow as pa

    # One pass over the chunks for all their fields, then one column per field.
    values = list(zip(*map(attrgetter(*_COLUMNS), chunks))) or [()] * len(_COLUMNS)
    columns: dict[str, Any] = {name: pa.array(column, pa.string() if name in _TEXT_COLUMNS else pa.int32())
                               for name, column in zip(_COLUMNS, values)}
    columns["fts_text"] = pa.array([fts_text(c.heading, c.text, c.date) for c in chunks], pa.string())
    columns["embed_hash"] = pa.array([c.embed_hash for c in chunks], pa.string())
    flat = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1)
    columns["vector"] = pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dim)
    schema = table_schema(dim)
    return pa.Table.from_arrays([columns[f.name] for f in schema], schema=schema)


def chunk_rows(chunks: Sequence[Any], dim: int) -> "pa.Table":
    """Rows for chunks that carry their own vectors (the incremental path: a few per changed file)."""
    import numpy as np

    vectors = [np.asarray(c.vector, dtype=np.float32) for c in chunks]
    return arrow_rows(chunks, np.stack(vectors) if vectors else np.zeros((0, dim), np.float32), dim)
