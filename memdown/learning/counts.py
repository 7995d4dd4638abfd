"""What awaits review, for the SessionStart digest and ``memdown reflect stats``.

``pending_counts`` and ``recent_learnings`` read a small cache in
``state/reflect-cache.json`` keyed on the stamps (mtime, size) of the signal
files, learnings.md and improvements.md, so a SessionStart costs a few stat
calls unless something changed.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from .. import fsutil
from .. import paths
from ..fsutil import atomic_write_text

TYPE_CHECKING = False  # not `import typing` at run time: SessionStart pays for every import
if TYPE_CHECKING:
    from ..config import Config


def stats(root: Path, config: Config) -> dict:
    from ..signals import store
    from . import learnings, meta

    signals = store.load(root)
    by_status: dict[str, int] = {}
    by_type: dict[str, int] = {}
    for sig in signals:
        by_status[sig.status] = by_status.get(sig.status, 0) + 1
        by_type[sig.type] = by_type.get(sig.type, 0) + 1
    lrn_status: dict[str, int] = {}
    for item in learnings.load(root):
        lrn_status[item.status] = lrn_status.get(item.status, 0) + 1
    return {"signals": {"total": len(signals), "by_status": by_status, "by_type": by_type},
            "learnings": lrn_status, "meta_learning": bool(config["reflect.meta_learning"]),
            "min_samples": int(config["reflect.meta_min_samples"]),
            "acceptance": meta.report(root, int(config["reflect.meta_min_samples"]), bool(config["reflect.meta_learning"]))}


def _stamp(root: Path) -> list:
    out = []
    for path in [*paths.signal_files(root), Path(root) / "learnings.md", Path(root) / "improvements.md"]:
        try:
            st = os.stat(path)
            out.append([path.name, st.st_mtime_ns, st.st_size])
        except OSError:
            continue
    return out


def _cached(root: Path) -> dict:
    cache = paths.state_dir(root) / "reflect-cache.json"
    stamp = _stamp(root)
    try:
        data = json.loads(fsutil.read_text(cache))
        if data.get("stamp") == stamp:
            return data
    except (OSError, ValueError, AttributeError):
        pass
    return _count(root, cache, stamp)


def _count(root: Path, cache: Path, stamp: list) -> dict:
    """Read the signal and learning files (their parsers and patterns imported only now: the cache missed)."""
    from ..signals import store
    from ..signals.text import one_line
    from . import candidates as C
    from . import improvements, learnings

    items = learnings.load(root)
    promoted = sorted((i for i in items if i.status == "promoted"),
                      key=lambda i: (max([p[-11:-1] for p in i.promoted_to] or [i.last_seen]), i.id), reverse=True)
    data = {"stamp": stamp,
            "counts": {"signals": sum(1 for s in store.load(root) if C.reviewable(s)),
                       "learnings_pending": sum(1 for i in items if i.status == "pending"),
                       "improvements_pending": sum(1 for i in improvements.load(root) if i.status == "pending")},
            "recent": [f"{one_line(i.text, 160)} ({i.category.lower()})" for i in promoted[:20]]}
    try:
        atomic_write_text(cache, json.dumps(data), mode=paths.PRIVATE_FILE_MODE)
    except OSError:
        pass
    return data


def pending_counts(root: Path) -> dict[str, int]:
    """What awaits review, for the SessionStart digest (cached on file stamps)."""
    if not Path(root).is_dir():
        return {}
    return dict(_cached(root)["counts"])


def recent_learnings(root: Path, limit: int = 5) -> list[str]:
    """One line per recently promoted learning, newest first."""
    if not Path(root).is_dir():
        return []
    return list(_cached(root)["recent"][:limit])
