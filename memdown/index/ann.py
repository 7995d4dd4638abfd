"""The ANN vector index of the chunk table: its settings, its build, and query probes.

Settings are chosen by recall@10 against exact search with real vectors of the
packaged model (docs/scale.md, ``bench/bench_scale.py --recall``): what limits
recall is the share of IVF partitions a query probes, and PQ's coarse
distances are repaired by re-ranking a few candidates with the full vectors.
Below ``index.ann_min_rows`` there is no ANN index and every query stays exact.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

VECTOR_INDEX = "vector_idx"


@dataclass(frozen=True)
class AnnSettings:
    index_type: str = "IVF_PQ"
    rows_per_partition: int = 4096
    probe_share: float = 0.2  # of the partitions, per query
    refine_factor: int = 10  # re-rank k * this many candidates with the full vectors

    def partitions(self, rows: int) -> int:
        return max(1, min(1024, rows // self.rows_per_partition))

    def sub_vectors(self, dim: int) -> int | None:
        """PQ sub-vectors of 8 dimensions each (48 for the packaged model's 384)."""
        return dim // 8 if self.index_type.endswith("PQ") and dim % 8 == 0 and dim >= 8 else None

    def nprobes(self, partitions: int) -> int:
        return max(1, math.ceil(self.probe_share * partitions))


ANN = AnnSettings()


class VectorIndex:
    """One table's ANN index; what it holds is remembered per table version (every query asks)."""

    def __init__(self, table: Any) -> None:
        self.table = table  # the ChunkTable (not imported: table.py imports this module)
        self._known: tuple[int, int | None] | None = None  # (table version, rows indexed or None)

    def _indexed(self) -> int | None:
        lance = self.table.table
        version = int(lance.version)
        if self._known is None or self._known[0] != version:
            names = {idx.name for idx in lance.list_indices()}
            stats = lance.index_stats(VECTOR_INDEX) if VECTOR_INDEX in names else None
            self._known = (version, int(stats.num_indexed_rows) if stats is not None else None)
        return self._known[1]

    def exists(self) -> bool:
        return self._indexed() is not None

    def rows(self) -> tuple[int, int] | None:
        """(rows in the ANN index, rows not folded in yet), or None without one."""
        if not self.exists():
            return None
        stats = self.table.table.index_stats(VECTOR_INDEX)
        return None if stats is None else (int(stats.num_indexed_rows), int(stats.num_unindexed_rows))

    def build(self, settings: AnnSettings = ANN) -> None:
        """Train and write the index over the rows there now (minutes at 1M rows).

        Rows added later are still searched (by brute force) until optimize()
        folds them into the index.
        """
        dim = self.table.meta.dim if self.table.meta else 0
        sub_vectors = settings.sub_vectors(dim)
        self.table.table.create_index(
            metric="cosine",
            vector_column_name="vector",
            index_type=settings.index_type,
            num_partitions=settings.partitions(self.table.count()),
            name=VECTOR_INDEX,
            replace=True,
            **({"num_sub_vectors": sub_vectors} if sub_vectors else {}),
        )
        self._known = None

    def tune(self, builder, settings: AnnSettings = ANN):
        """Probe settings for a vector or hybrid query; the builder unchanged (exact search) without an index."""
        indexed = self._indexed()
        if indexed is None:
            return builder
        builder = builder.nprobes(settings.nprobes(settings.partitions(indexed)))
        if settings.refine_factor:
            builder = builder.refine_factor(settings.refine_factor)
        return builder
