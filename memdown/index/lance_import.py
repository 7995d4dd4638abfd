"""Import LanceDB for a local table without paying for its REST namespace client up front.

``import lancedb`` imports ``lance_namespace``, which imports the generated OpenAPI client package
``lance_namespace_urllib3_client``. That package's ``__init__`` builds every REST API class (hundreds of
pydantic-validated methods) and its HTTP client: about half of LanceDB's whole import (0.7 of 1.4 s
wall here, see docs/benchmarks.md), for a remote namespace server a local index never talks to.

The package's *submodules* (the data models ``lance_namespace`` re-exports) still import normally and
are the real classes. Only the package's own ``__init__`` body is deferred: the package is registered
with its real search path and spec, and the first attribute asked of it runs the real ``__init__`` into
the same module object, so anything that does use the REST client gets exactly what it would have got.

Three more costs of the import are cut while it runs (``_lighter_import``), none of which changes what
LanceDB does with a table (CPU of ``import lancedb`` on this machine, 3 interleaved runs each:
~430 ms before, ~280 ms with all three; docs/benchmarks.md):
- On Python < 3.12 LanceDB decorates its methods with the ``overrides`` package, whose ``@override``
  disassembles the calling frame and compares signatures with the base class for each of ~100 methods:
  a check of LanceDB's own code at class creation. On 3.12+ LanceDB uses ``typing.override`` instead,
  which only marks the method; ``typing_extensions.override`` is that marker for 3.11.
- pydantic builds each model's validator when its class is created: ~150 models of the namespace API
  (and LanceDB's embedding-function configs) that a local table never validates. ``defer_build`` (a
  public pydantic setting) builds it on first use instead; the default is flipped for the import only.
- The garbage collector is paused: the import creates many objects and no garbage cycles worth a pass.
Standard library only; safe to call from several threads.
"""
from __future__ import annotations

import contextlib
import gc
import importlib.util
import os
import sys
import threading
import types
from collections.abc import Callable, Iterator
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


@contextlib.contextmanager
def _lighter_import() -> Iterator[None]:
    """While LanceDB imports: the plain ``override`` marker, pydantic's deferred build, no GC passes."""
    restore: list[Callable[[], None]] = []
    if gc.isenabled():
        gc.disable()
        restore.append(gc.enable)
    if sys.version_info < (3, 12):  # LanceDB uses typing.override from 3.12 on
        try:
            import overrides
            from typing_extensions import override
        except ImportError:
            pass
        else:
            checked = overrides.override
            overrides.override = override
            restore.append(lambda: setattr(overrides, "override", checked))
    try:
        from pydantic._internal import _config  # the defaults every model config falls back to
    except ImportError:
        _config = None
    defaults = getattr(_config, "config_defaults", None)
    if isinstance(defaults, dict) and defaults.get("defer_build") is False:
        defaults["defer_build"] = True
        restore.append(lambda: defaults.__setitem__("defer_build", False))
    try:
        yield
    finally:
        for undo in reversed(restore):
            undo()


def import_lancedb() -> types.ModuleType:
    """``lancedb``, imported with its Rust warnings silenced, its REST client's ``__init__`` deferred and
    the costs ``_lighter_import`` names cut. The first caller imports it; another thread waits for it."""
    os.environ.setdefault("LANCEDB_LOG", "error")
    if "lancedb" not in sys.modules:
        with _lock:
            if "lancedb" not in sys.modules:
                _defer_package_init(DEFERRED_PACKAGE)
                with _lighter_import():
                    import lancedb  # noqa: F401
    import lancedb

    return lancedb
