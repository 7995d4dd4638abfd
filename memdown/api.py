"""memdown's public Python API; the CLI is built on exactly this.

    from memdown.api import Memory
    mem = Memory.open()                 # or Memory.open("path/to/.memdown")
    mem.index()                         # IndexReport
    hits = mem.search("redis cache ttl", k=5)
    section = mem.expand(hits[0].id)

Result objects have ``to_dict()`` giving the same fields as the CLI's ``--json``.

A facade: ``Memory`` is ``services.upkeep.memory.Memory`` plus this edge's one duty, loading
the configuration when the caller gives none (``Memory.open(root, config=…)`` skips
it); the result types come from the services that make them, so nothing below
imports this module.
"""
from __future__ import annotations

from pathlib import Path

from . import paths
from .config import Config, load_config
from .index.embedder import Embedder
from .services.recall.expand import Expansion
from .services.upkeep.indexing import IndexReport
from .services.upkeep.memory import Memory as _Memory
from .services.recall.search import ConceptMatch, Hit, SearchOptions

__all__ = ["Memory", "Hit", "ConceptMatch", "Expansion", "IndexReport", "SearchOptions"]


class Memory(_Memory):
    """The library's edge: like the other edges (CLI, hooks, worker, daemon), it loads the
    configuration once, here, when the caller passes none, and hands it down."""

    def __init__(self, root: str | Path, *, config: Config | None = None, embedder: Embedder | None = None) -> None:
        root = Path(root)
        super().__init__(root, config=config if config is not None else load_config(root), embedder=embedder)

    @classmethod
    def open(cls, root: str | Path | None = None, *, config: Config | None = None,  # type: ignore[override]
             embedder: Embedder | None = None) -> "Memory":
        return cls(paths.memory_root(root), config=config, embedder=embedder)
