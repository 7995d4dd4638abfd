"""memdown's public Python API; the CLI is built on exactly this.

    from memdown.api import Memory
    mem = Memory.open()                 # or Memory.open("path/to/.memdown")
    mem.index()                         # IndexReport
    hits = mem.search("redis cache ttl", k=5)
    section = mem.expand(hits[0].id)

Result objects have ``to_dict()`` giving the same fields as the CLI's ``--json``.

A facade only: ``Memory`` is ``services.memory.Memory`` and the result types
come from the services that make them, so nothing below imports this module.
"""
from __future__ import annotations

from .services.expand import Expansion
from .services.indexing import IndexReport
from .services.memory import Memory
from .services.search import ConceptMatch, Hit, SearchOptions

__all__ = ["Memory", "Hit", "ConceptMatch", "Expansion", "IndexReport", "SearchOptions"]
