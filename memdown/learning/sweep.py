"""The sweep: take in Claude Code's auto-memory notes, fold near-duplicate signals, expire stale ones.

Runs detached after SessionEnd (the hooks' worker calls ``sweep``) and as
``memdown reflect sweep``. Both passes are idempotent, hold the ``reflect``
lock against each other and edit signal files under their own locks (the
hooks' appends use the same ones), re-checking each signal's status on disk
before changing it. Nothing is ever deleted: folded signals point at the one
they were folded into (``consolidated_into``) and expired ones are
``archived``.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path

from .. import paths
from ..config import Config
from ..fsutil import file_lock
from ..signals import store
from ..signals.store import ACTIVE, utcnow
from . import candidates as C


def fold(root: Path, threshold: float, *, now=None) -> list[dict]:
    """Fold each group of near-duplicate active signals (same scope) into its newest member."""
    now = now or utcnow()
    signals = [s for s in store.load(root) if s.active and s.type != "revert"]
    folded: list[dict] = []
    updates: dict[str, dict[str, object]] = {}
    for scope in sorted({s.scope for s in signals}):
        for members in C.group([s for s in signals if s.scope == scope], threshold):
            if len(members) < 2:
                continue
            newest = max(members, key=lambda s: (s.captured, s.id))
            total = sum(s.corroboration for s in members)
            updates[newest.id] = {"corroboration": total, "confidence": max(s.confidence for s in members)}
            for sig in members:
                if sig is newest:
                    continue
                updates[sig.id] = {"status": "archived", "consolidated_into": newest.id,
                                   "folded": now.strftime("%Y-%m-%d")}
                folded.append({"id": sig.id, "into": newest.id})
    if updates:
        changed = set(store.update(root, updates, only_if_status=ACTIVE, signals=signals))
        folded = [f for f in folded if f["id"] in changed]
    return folded


def expire(root: Path, ttl_days: int, *, now=None) -> list[str]:
    """Archive active signals older than the TTL that are low-confidence and never corroborated."""
    now = now or utcnow()
    limit = now - dt.timedelta(days=max(0, int(ttl_days)))
    stale = {}
    for sig in store.load(root):
        when = sig.captured_at()
        if sig.active and when is not None and when < limit and sig.confidence < 3 and sig.corroboration <= 1:
            stale[sig.id] = {"status": "archived", "expired": now.strftime("%Y-%m-%d")}
    if not stale:
        return []
    return store.update(root, stale, only_if_status=ACTIVE)


def sweep(root: Path, *, config: Config, now=None, do_fold: bool = True, do_expire: bool = True,
          semantic: bool | None = None) -> dict:
    """Fold, expire and (with ``mining.semantic``) classify queued prompts; returns a report."""
    root = Path(root)
    now = now or utcnow()
    report: dict = {"folded": [], "expired": [], "semantic": None, "automemory": []}
    if not root.is_dir():
        return report
    with file_lock(paths.lock_file(root, "reflect"), timeout=60):
        if config["mining.enabled"]:  # Claude Code's feedback/project notes: corroborated signals for review
            from ..signals.automemory import import_notes

            report["automemory"] = [s.id for s in import_notes(root)]
        if do_fold:
            report["folded"] = fold(root, float(config["reflect.fold_threshold"]), now=now)
        if do_expire:
            report["expired"] = expire(root, int(config["reflect.ttl_days"]), now=now)
    if semantic if semantic is not None else bool(config["mining.semantic"]):
        from ..signals.semantic import classify_queue

        report["semantic"] = classify_queue(root, config)
    return report
