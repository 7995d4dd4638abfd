"""Guards the architecture: arrows point down, no import cycles, small modules, short functions.

Layers, top to bottom (see docs/architecture.md):

    entry (console script)
    cli · hooks · daemon · api          edges: parse input, call one service, print
    services                            use cases: search, index, capture, mining, verify, jobs
    learning                            review, promotion, sweep, learnings/improvements/mistakes
    signals                             detection and the signal files
    clients                             other agents' session logs → the one transcript model
    store · index · transcript · live   markdown files, the index cache, Claude Code transcripts,
                                        the daemon's client side
    paths · config · fsutil · errors · redact · fence · lazyre · dates · optout · logfiles     foundations

The import graph is built with ``ast`` from every ``import`` in every module,
including imports inside functions and under ``TYPE_CHECKING``: a lazy import
is still a dependency. Also: no module imports lancedb/fastembed/pyarrow/numpy
at module level, so hooks and ``--help`` never pay for them.

TEMPORARY exemptions below name their owner; each owner deletes their entries
when their branch lands. Do not add entries to dodge a rule.
"""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memdown"
HEAVY = {"lancedb", "fastembed", "pyarrow", "numpy", "onnxruntime", "pandas"}
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
LONG_MARK = "# long:"  # on the line before a def (or its first decorator) or the line after it, with a reason

EDGES = {"cli", "hooks", "daemon", "api", "mcpserver", "entry", "__main__"}
FOUNDATIONS = {"paths", "config", "committed_config", "fsutil", "errors", "redact", "fence", "dates", "optout",
               "logfiles", "shellguard", "shellparse", "shellcmd", "envflags", "lazyre", "pathstr", "wirejson",
               "controls", "fence_views", "agentcommands"}
ABOVE_STORES = EDGES | {"services", "learning", "signals"}
ABOVE_CLIENTS = ABOVE_STORES | {"clients"}

# package part -> memdown parts it must never import (every upward edge, and sideways between stores)
FORBIDDEN: dict[str, set[str]] = {
    "store": ABOVE_CLIENTS | {"index", "transcript"},
    "index": ABOVE_CLIENTS | {"store", "transcript"},
    "transcript": ABOVE_CLIENTS | {"store", "index"},
    # each client's logs as the one transcript model: reads transcript/, nothing above it
    "clients": ABOVE_STORES | {"store", "index"},
    "signals": EDGES | {"services", "learning"},
    "learning": EDGES | {"services"},
    "services": EDGES,
    "daemon": {"cli", "hooks", "entry", "__main__"},
    "hooks": {"cli", "api", "daemon", "learning", "signals", "index", "entry", "__main__"},
    "api": {"cli", "hooks", "daemon", "entry", "__main__"},
    # the MCP edge prints what the CLI prints (cli.render, cli.recorded), so it may use those
    "mcpserver": {"hooks", "daemon", "api", "entry", "__main__"},
    "cli": {"entry", "__main__"},
    "entry": set(),  # the console script: imports whatever it dispatches to
    "__main__": set(),
    # the daemon's client side (ask, start, stop): anything may use it, it uses foundations only
    "live": ABOVE_CLIENTS | {"store", "index", "transcript"},
    **{name: ABOVE_CLIENTS | {"store", "index", "transcript"} for name in FOUNDATIONS},
}

# --- TEMPORARY exemptions: remove your entries when your branch lands ---------------------------------
# (importing module, imported module) pairs still allowed to break a layer rule.
TEMPORARY_LAYER_EXEMPTIONS: dict[tuple[str, str], str] = {
}
# Cycles still allowed, as the set of modules in the cycle.
TEMPORARY_CYCLE_EXEMPTIONS: dict[frozenset[str], str] = {
}
# Modules still allowed over MAX_MODULE_LINES (path relative to memdown/).
TEMPORARY_SIZE_EXEMPTIONS: dict[str, str] = {
}
# Functions still allowed over MAX_FUNCTION_LINES without a reason ("path::qualified.name").
TEMPORARY_FUNCTION_EXEMPTIONS: dict[str, str] = {
}


# --- the import graph ---------------------------------------------------------------------------------

def _module_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@lru_cache(maxsize=None)
def _all_modules() -> dict[str, Path]:
    return {_module_name(p): p for p in _module_files()}


def _resolve(name: str) -> str | None:
    """The memdown module ``name`` denotes: itself if it is one, else its longest module prefix."""
    modules = _all_modules()
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def imports_of(path: Path, source: str | None = None) -> list[tuple[str, int]]:
    """(memdown module, line) for every import in the file, at any depth (functions, TYPE_CHECKING)."""
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from pkg import mod`` imports the submodule; ``from mod import name`` the module
            targets = [f"{module}.{alias.name}" for alias in node.names]
        for target in targets:
            if target == "memdown" or target.startswith("memdown."):
                resolved = _resolve(target)
                if resolved and resolved != me:
                    found.append((resolved, node.lineno))
    return found


@lru_cache(maxsize=None)
def _graph() -> dict[str, dict[str, int]]:
    """module -> {imported module: first line}."""
    graph: dict[str, dict[str, int]] = {}
    for name, path in _all_modules().items():
        edges: dict[str, int] = {}
        for target, line in imports_of(path):
            edges.setdefault(target, line)
        graph[name] = edges
    return graph


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "memdown"


def layer_violations(graph: dict[str, dict[str, int]]) -> list[str]:
    bad = []
    for module, edges in sorted(graph.items()):
        forbidden = FORBIDDEN.get(_part(module), set())
        for target, line in sorted(edges.items()):
            if _part(target) != _part(module) and _part(target) in forbidden:
                if (module, target) not in TEMPORARY_LAYER_EXEMPTIONS:
                    bad.append(f"{module}:{line} imports {target} ({_part(module)} → {_part(target)} points up)")
    return bad


def find_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle path (first node repeated at the end) per strongly connected component with a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan; the graph is small enough for recursion
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, {}):
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [_cycle_path(graph, set(component), component[0]) for component in components]


def _cycle_path(graph: dict[str, dict[str, int]], members: set[str], start: str) -> list[str]:
    """Shortest path start → … → start inside one component (breadth first)."""
    previous: dict[str, str] = {}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph.get(node, {})):
            if nxt not in members:
                continue
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return [start] + path[::-1][1:] + [start] if node != start else [start, start]
            if nxt not in previous:
                previous[nxt] = node
                queue.append(nxt)
    return [start]


def _describe(graph: dict[str, dict[str, int]], cycle: list[str]) -> str:
    steps = [f"{a} (line {graph[a][b]})" for a, b in zip(cycle, cycle[1:])]
    return " → ".join(steps + [cycle[-1]])


# --- the rules ----------------------------------------------------------------------------------------

def test_layers_point_down():
    bad = layer_violations(_graph())
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_every_module_has_a_layer():
    """A new package or top-level module must be placed in a layer (FORBIDDEN) before it is checked."""
    unplaced = sorted({_part(m) for m in _graph()} - set(FORBIDDEN) - {"memdown"})
    assert not unplaced, f"add these to FORBIDDEN in tests/test_architecture.py: {unplaced}"


def test_no_import_cycles():
    graph = _graph()
    cycles = [c for c in find_cycles(graph) if frozenset(c) not in TEMPORARY_CYCLE_EXEMPTIONS]
    assert not cycles, "import cycles:\n" + "\n".join(_describe(graph, c) for c in cycles)


def test_no_module_over_the_size_limit():
    bad = []
    for path in _module_files():
        rel = str(path.relative_to(PACKAGE))
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES and rel not in TEMPORARY_SIZE_EXEMPTIONS:
            bad.append(f"{rel}: {lines} lines (max {MAX_MODULE_LINES}; split it by job)")
    assert not bad, "\n".join(bad)


def long_functions(path: Path, source: str | None = None) -> list[str]:
    """Functions longer than MAX_FUNCTION_LINES with no ``# long: <reason>`` next to their def."""
    text = source if source is not None else path.read_text(encoding="utf-8")
    lines = text.splitlines()
    rel = str(path.relative_to(PACKAGE))
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                length = child.end_lineno - child.lineno + 1
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                body_start = child.body[0].lineno
                nearby = [lines[first - 2] if first >= 2 else ""] + lines[child.lineno - 1:body_start]
                reason = any(LONG_MARK in line and line.split(LONG_MARK, 1)[1].strip() for line in nearby)
                key = f"{rel}::{name}"
                if length > MAX_FUNCTION_LINES and not reason and key not in TEMPORARY_FUNCTION_EXEMPTIONS:
                    found.append(f"{key}: {length} lines (max {MAX_FUNCTION_LINES}, or say why with '{LONG_MARK} …')")
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(ast.parse(text), "")
    return found


def test_no_long_function_without_a_reason():
    bad = [item for path in _module_files() for item in long_functions(path)]
    assert not bad, "\n".join(bad)


def test_exemptions_are_still_needed():
    """An exemption whose violation is gone must be deleted, so the lists only shrink."""
    graph = _graph()
    stale = [f"layer {a} → {b}" for (a, b) in TEMPORARY_LAYER_EXEMPTIONS if b not in graph.get(a, {})]
    live_cycles = {frozenset(c) for c in find_cycles(graph)}
    stale += [f"cycle {sorted(c)}" for c in TEMPORARY_CYCLE_EXEMPTIONS if c not in live_cycles]
    for rel in TEMPORARY_SIZE_EXEMPTIONS:
        path = PACKAGE / rel
        if not path.exists() or len(path.read_text(encoding="utf-8").splitlines()) <= MAX_MODULE_LINES:
            stale.append(f"size {rel}")
    saved = dict(TEMPORARY_FUNCTION_EXEMPTIONS)
    TEMPORARY_FUNCTION_EXEMPTIONS.clear()
    try:
        live = {item.split(": ", 1)[0] for path in _module_files() for item in long_functions(path)}
    finally:
        TEMPORARY_FUNCTION_EXEMPTIONS.update(saved)
    stale += [f"function {key}" for key in saved if key not in live]
    assert not stale, "remove these TEMPORARY exemptions, they are fixed:\n" + "\n".join(stale)


@pytest.mark.parametrize("path", _module_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_heavy_import_at_module_level(path: Path):
    tree = ast.parse(path.read_text())
    for node in tree.body:  # module level only; imports inside functions are lazy
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        heavy = [n for n in names if n.split(".")[0] in HEAVY]
        assert not heavy, f"{path.relative_to(PACKAGE)} imports {heavy} at module level"


def test_hooks_do_not_import_click():
    for path in (PACKAGE / "hooks").rglob("*.py"):
        assert "import click" not in path.read_text(), path


# --- the rules can fail --------------------------------------------------------------------------------

def _with_extra_import(module: str, line: str) -> dict[str, dict[str, int]]:
    graph = {name: dict(edges) for name, edges in _graph().items()}
    path = _all_modules()[module]
    for target, lineno in imports_of(path, path.read_text(encoding="utf-8") + "\n" + line + "\n"):
        graph[module].setdefault(target, lineno)
    return graph


def test_an_upward_import_is_caught():
    graph = _with_extra_import("memdown.services.upkeep.verify", "from ...api import Memory")
    assert any("memdown.services.upkeep.verify" in b and "memdown.api" in b for b in layer_violations(graph))
    graph = _with_extra_import("memdown.signals.mining", "def f():\n    from ..learning import review")
    assert any("memdown.signals.mining" in b for b in layer_violations(graph))


def test_a_cycle_is_caught_with_its_path():
    graph = _with_extra_import("memdown.store.markdown", "from . import entries")
    cycles = [c for c in find_cycles(graph) if "memdown.store.markdown" in c]
    assert cycles and cycles[0][0] == cycles[0][-1]
    text = _describe(graph, cycles[0])
    assert "memdown.store.entries" in text and "memdown.store.markdown" in text


def test_a_long_function_needs_a_reason():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES + 1))
    path = PACKAGE / "store" / "markdown.py"
    assert long_functions(path, f"def f():\n{body}\n")
    assert not long_functions(path, f"# long: one table of cases\ndef f():\n{body}\n")
    assert long_functions(path, f"# long:\ndef f():\n{body}\n")  # a reason, not just the mark
