"""The review service behind ``memdown reflect`` and the ``/reflect`` skill.

``analysis`` finds the candidates (recover, expire, dedupe, group, classify,
flag contradictions); ``decisions`` promotes, dismisses and undoes them;
``counts`` serves the SessionStart digest from a small cache keyed on file
stamps. This module is the one name callers import.
"""
from __future__ import annotations

from .analysis import Review, analyze
from .counts import pending_counts, recent_learnings, stats
from .decisions import dismiss, promote, show, undo

__all__ = ["Review", "analyze", "dismiss", "pending_counts", "promote", "recent_learnings", "show", "stats", "undo"]
