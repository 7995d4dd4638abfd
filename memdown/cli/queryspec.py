"""The read-only query commands (search, expand, stats), declared once.

Both the click commands (``core``) and the click-free warm fast path
(``fastpath``) are built from these declarations, and both turn parsed
values into the same daemon/service request with ``request_for``.
Standard library only.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from ..errors import UsageError
from ..services.recall.queries import FILTERS
from ..store.kinds import HIDDEN_BY_DEFAULT, KINDS


class Opt(NamedTuple):
    flags: tuple[str, ...]
    dest: str
    kind: str  # "str", "int", "nonneg", "flag", "switch" (--on/--off), "multi", "choice", "path"
    help: str
    metavar: str | None = None
    choices: tuple[str, ...] = ()


DIR = Opt(("--dir",), "memory_dir", "path",
          "Memory root (default: $MEMDOWN_DIR, else <main git worktree>/.memdown).")
JSON = Opt(("--json",), "as_json", "flag", "Print JSON.")
FENCE = Opt(("--fence", "--no-fence"), "fence", "switch",
            "Label the output as recorded data (fenced text; JSON records get label and flags). "
            "Default: on when a coding agent runs memdown (CLAUDECODE=1 …) or MEMDOWN_FENCE=1.")

SEARCH = (
    Opt(("-k",), "k", "int", "How many results (default: config search.k)."),
    Opt(("--kind",), "kind", "str", f"Only this kind: {', '.join(KINDS)} "
        f"({', '.join(sorted(HIDDEN_BY_DEFAULT))} left out unless asked for)."),
    Opt(("--since",), "since", "str", "Only entries dated on or after.", metavar="YYYY-MM-DD"),
    Opt(("--until",), "until", "str", "Only entries dated on or before.", metavar="YYYY-MM-DD"),
    Opt(("--source",), "source", "str", "Only files matching GLOB (relative to the memory root).", metavar="GLOB"),
    Opt(("--agent",), "agent", "str", "Only sessions of this coding agent (codex, claude-code).", metavar="NAME"),
    Opt(("--mode",), "mode", "choice", "Retriever (default hybrid).", choices=("hybrid", "vector", "text")),
    Opt(("--concept",), "concepts", "multi",
        "Multi-concept AND search: repeat for each concept; only sessions/files matching all are returned."),
    DIR,
    JSON,
    FENCE,
)
EXPAND = (
    Opt(("--lines",), "lines", "nonneg", "Also show N lines before and after the section."),
    DIR,
    JSON,
    FENCE,
)
STATS = (DIR, JSON)

# command -> (options, positional argument name, how many positionals: -1 = any, 1 = exactly one)
QUERY_COMMANDS: dict[str, tuple[tuple[Opt, ...], str | None, int]] = {
    "search": (SEARCH, "query", -1),
    "expand": (EXPAND, "chunk_id", 1),
    "stats": (STATS, None, 0),
}


def request_for(command: str, values: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(op, params) for the query service or the daemon, from parsed values."""
    if command == "stats":
        return "stats", {}
    if command == "expand":
        return "expand", {"id": values["chunk_id"], "lines": values.get("lines") or 0}
    text = " ".join(values.get("query") or ()).strip()
    concepts = list(values.get("concepts") or ())
    if not text and not concepts:
        raise UsageError("give a query, or two or more --concept options")
    filters = {name: values.get(name) for name in FILTERS}
    if concepts:
        return "concepts", {"concepts": ([text] if text else []) + concepts, **filters}
    return "search", {"query": text, **filters}
