"""Settings every quality benchmark (retrieval, conversations) shares."""
from __future__ import annotations


def every_vector(config) -> None:
    """Quality figures are taken on a complete index. A build that would embed more than
    ``index.defer_vectors_above`` chunks otherwise returns text-first and fills vectors in a
    detached process, and a search right after it ranks most rows by full text alone."""
    config.values["index"]["defer_vectors_above"] = 1 << 62


def apply_tunes(items: list[str], error) -> None:
    """``--tune MODULE.NAME=VALUE``: set a ranking constant of ``memdown.services.recall.MODULE`` (dev only)."""
    import importlib

    for item in items:
        name, value = item.split("=", 1)
        module_name, attr = name.rsplit(".", 1)
        module = importlib.import_module(f"memdown.services.recall.{module_name}")
        if not hasattr(module, attr):
            error(f"memdown.services.recall.{module_name} has no {attr}")
        old = getattr(module, attr)
        setattr(module, attr, (value.lower() in ("1", "true", "yes")) if isinstance(old, bool) else type(old)(value))
