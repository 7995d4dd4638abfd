"""Guards the layering: cli → services → {store, index, transcript}; arrows point down.

Also: no module imports lancedb/fastembed/pyarrow/numpy at module level, so
hooks and `--help` never pay for them.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memdown"
HEAVY = {"lancedb", "fastembed", "pyarrow", "numpy", "onnxruntime", "pandas"}

# package part -> memdown parts it must never import
FORBIDDEN = {
    "store": {"cli", "services", "hooks", "api", "daemon", "index", "signals", "learning"},
    "index": {"cli", "services", "hooks", "api", "daemon", "store", "signals", "learning"},
    "transcript": {"cli", "services", "hooks", "api", "daemon", "index", "store", "signals", "learning"},
    "services": {"cli", "hooks"},
    "signals": {"cli", "hooks", "daemon"},
    "learning": {"cli", "hooks", "daemon"},
    "daemon": {"cli", "hooks"},
    "hooks": {"cli", "daemon", "learning", "signals"},  # hooks reach those only through services
    "api": {"cli", "hooks", "daemon"},
    # foundations: importable from everywhere, importing nothing above them
    "paths": {"cli", "services", "hooks", "api", "daemon", "index", "store", "transcript", "signals", "learning"},
    "config": {"cli", "services", "hooks", "api", "daemon", "index", "store", "transcript", "signals", "learning"},
    "fsutil": {"cli", "services", "hooks", "api", "daemon", "index", "store", "transcript", "signals", "learning"},
    "errors": {"cli", "services", "hooks", "api", "daemon", "index", "store", "transcript", "signals", "learning"},
    "redact": {"cli", "services", "hooks", "api", "daemon", "index", "store", "transcript", "signals", "learning"},
}


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py"))


def _part(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    return rel.parts[0]


def _imported_parts(path: Path) -> set[str]:
    """memdown sub-packages/modules this file imports (absolute or relative)."""
    tree = ast.parse(path.read_text())
    depth_base = path.relative_to(PACKAGE).parts[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(depth_base[: len(depth_base) - (node.level - 1)]) if node.level > 1 else list(depth_base)
                target = base + (node.module.split(".") if node.module else [])
                if target:
                    found.add(target[0])
                else:
                    found.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("memdown."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("memdown."):
                    found.add(alias.name.split(".")[1])
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_layers_point_down(path: Path):
    part = _part(path)
    forbidden = FORBIDDEN.get(part, set())
    bad = (_imported_parts(path) - {part}) & forbidden
    assert not bad, f"{path.relative_to(PACKAGE)} ({part}) imports {sorted(bad)}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
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
