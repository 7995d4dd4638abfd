"""Configuration is loaded once at each edge and passed down; the library layers never load it.

Edges: the CLI, the hook runner, the daemon, ``memdown.api`` (the Python library's edge), and the
``main`` of each background process (worker, vector filler, vector index builder).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from memdown import api
from memdown.config import load_config
from memdown.services.upkeep import memory as service_memory

PACKAGE = Path(__file__).resolve().parent.parent / "memdown"
EDGE_PARTS = {"cli", "hooks", "daemon", "api.py", "mcpserver.py", "entry.py", "__main__.py", "config.py"}
# (module, function) below the edges allowed to load the config, each with its reason.
ALLOWED = {
    ("live/lifecycle.py", "ensure_daemon"): "an old caller passing no config; SessionStart and queries pass theirs",
}


def _loads_below_the_edges() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.split("/")[0] in EDGE_PARTS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.name == "main":
                continue  # a background process's main() is that process's edge
            for node in ast.walk(func):
                if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "load_config":
                    if (rel, func.name) not in ALLOWED:
                        found.append(f"{rel}:{node.lineno} in {func.name}()")
    return found


def test_no_library_layer_loads_the_config() -> None:
    assert _loads_below_the_edges() == []


def test_the_service_memory_takes_its_config_from_the_caller(memory_root: Path) -> None:
    with pytest.raises(TypeError):
        service_memory.Memory.open(memory_root)  # type: ignore[call-arg]
    config = load_config(memory_root)
    assert service_memory.Memory.open(memory_root, config=config).config is config


def test_the_public_api_is_the_library_edge(memory_root: Path) -> None:
    memory_root.mkdir(parents=True)
    (memory_root / "config.toml").write_text("[search]\nk = 3\n")
    mem = api.Memory.open(memory_root)  # unchanged public API: loads the config itself
    assert mem.config["search.k"] == 3 and isinstance(mem, service_memory.Memory)
    assert api.Memory(memory_root).config["search.k"] == 3
    given = load_config(memory_root)
    assert api.Memory.open(memory_root, config=given).config is given  # passed down, not reloaded
