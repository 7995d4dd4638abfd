"""Read queries as JSON-ready data: one code path for the CLI and the daemon.

Both the in-process fallback and the warm daemon call ``run_query``, so their
output is identical by construction.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import UsageError

if TYPE_CHECKING:
    from ..upkeep.memory import Memory

# The search filters every query op accepts (the CLI builds its requests from this too).
FILTERS = ("k", "kind", "since", "until", "source", "mode", "agent")


def run_query(mem: "Memory", op: str, params: dict[str, Any], *, refresh: bool = True) -> Any:
    filters = {name: params.get(name) for name in FILTERS}
    if op == "search":
        return [h.to_dict() for h in mem.search(params.get("query", ""), refresh=refresh, **filters)]
    if op == "concepts":
        return [m.to_dict() for m in mem.search_concepts(list(params.get("concepts", [])), refresh=refresh, **filters)]
    if op == "expand":
        return mem.expand(str(params.get("id", "")), lines=int(params.get("lines") or 0)).to_dict()
    if op == "stats":
        return mem.stats()
    raise UsageError(f"unknown query {op!r}")
