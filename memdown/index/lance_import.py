"""Import LanceDB for a local table without paying for its REST namespace client up front.

``import lancedb`` imports ``lance_namespace``, which imports the generated OpenAPI client package
``lance_namespace_urllib3_client``. That package's ``__init__`` builds every REST API class (hundreds of
pydantic-validated methods) and its HTTP client: about half of LanceDB's whole import (0.7 of 1.4 s
wall here, see docs/benchmarks.md), for a remote namespace server a local index never talks to.

The package's *submodules* (the data models ``lance_namespace`` re-exports) still import normally and
are the real classes. Only the package's own ``__init__`` body is deferred: the package is registered
with its real search path and spec, and the first attribute asked of it runs the real ``__init__`` into
the same module object, so anything that does use the REST client gets exactly what it would have got.
Standard library only; safe to call from several threads.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import threading
import types
from typing import Any

DEFERRED_PACKAGE = "lance_namespace_urllib3_client"
_lock = threading.RLock()  # re-entrant: the deferred __init__ may touch its own package


class _DeferredInitPackage(types.ModuleType):
    """A package whose submodules import as usual and whose ``__init__`` runs on first attribute use."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        with _lock:
            if not self.__dict__.get("_memdown_init_ran"):
                self.__dict__["_memdown_init_ran"] = True
                self.__spec__.loader.exec_module(self)  # type: ignore[union-attr]
        return self.__dict__[name] if name in self.__dict__ else super().__getattribute__(name)


def _defer_package_init(name: str) -> None:
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        return  # not installed, or not a package any more: nothing to defer
    module = _DeferredInitPackage(name)
    module.__spec__ = spec
    module.__loader__ = spec.loader
    module.__file__ = spec.origin
    module.__path__ = list(spec.submodule_search_locations)
    module.__package__ = name
    sys.modules[name] = module


def import_lancedb() -> types.ModuleType:
    """``lancedb``, imported with its Rust warnings silenced and its REST client's ``__init__`` deferred."""
    os.environ.setdefault("LANCEDB_LOG", "error")
    if "lancedb" not in sys.modules:
        with _lock:
            _defer_package_init(DEFERRED_PACKAGE)
    import lancedb

    return lancedb
