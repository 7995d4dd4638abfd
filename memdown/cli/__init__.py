"""The ``memdown`` command line.

The click application lives in :mod:`memdown.cli.app`; it is loaded on first
use of ``cli``/``main`` so that the warm fast path (:mod:`memdown.cli.fastpath`)
can answer without importing click at all.
"""
from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name in ("cli", "main", "COMMAND_MODULES", "MemdownGroup"):
        from . import app

        return getattr(app, name)
    raise AttributeError(name)
