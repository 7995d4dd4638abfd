"""Meta-learning: how often each signal type and pattern is accepted at review.

Counts live in ``state/reflect-stats.json``. With ``reflect.meta_min_samples``
decisions or more, a pattern (else its type) accepted ≥ 75 % of the time gains
+1 confidence and one accepted ≤ 25 % of the time loses 1; ``reflect.meta_learning
= false`` turns the adjustment off (the counts are still kept).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

from .. import fsutil
from .. import paths
from ..fsutil import atomic_write_text, file_lock

OUTCOMES = ("accepted", "dismissed", "reverted")
HIGH, LOW = 0.75, 0.25


def stats_file(root: Path) -> Path:
    return paths.state_dir(root) / "reflect-stats.json"


def load(root: Path) -> dict[str, dict[str, int]]:
    try:
        data = json.loads(fsutil.read_text(stats_file(root)))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _keys(signals: Iterable) -> set[str]:
    keys: set[str] = set()
    for sig in signals:
        if sig.type:
            keys.add(f"type:{sig.type}")
        for pattern in (sig.pattern or "").split(","):
            if pattern.strip():
                keys.add(f"pattern:{pattern.strip()}")
    return keys


def record(root: Path, signals: Iterable, outcome: str, *, delta: int = 1) -> None:
    """Count one decision for every type and pattern among ``signals``."""
    if outcome not in OUTCOMES:
        raise ValueError(outcome)
    keys = _keys(signals)
    if not keys:
        return
    path = stats_file(root)
    with file_lock(path.with_name(f".{path.name}.lock")):
        data = load(root)
        for key in keys:
            row = data.setdefault(key, {o: 0 for o in OUTCOMES})
            row[outcome] = max(0, int(row.get(outcome, 0)) + delta)
        atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True), mode=paths.PRIVATE_FILE_MODE)


def samples(row: dict[str, int]) -> int:
    return int(row.get("accepted", 0)) + int(row.get("dismissed", 0))


def rate(row: dict[str, int]) -> float | None:
    n = samples(row)
    if not n:
        return None
    return max(0, int(row.get("accepted", 0)) - int(row.get("reverted", 0))) / n


def adjustment_for(row: dict[str, int] | None, min_samples: int) -> int:
    if not row or samples(row) < max(1, min_samples):
        return 0
    value = rate(row) or 0.0
    return 1 if value >= HIGH else -1 if value <= LOW else 0


def adjuster(root: Path, min_samples: int) -> Callable[[str, str], int]:
    """``adjust(pattern, type) -> -1 | 0 | +1`` from the recorded decisions."""
    data = load(root)

    def adjust(pattern: str, kind: str) -> int:
        row = data.get(f"pattern:{pattern}")
        if row and samples(row) >= min_samples:
            return adjustment_for(row, min_samples)
        return adjustment_for(data.get(f"type:{kind}"), min_samples)

    return adjust


def report(root: Path, min_samples: int, enabled: bool = True) -> list[dict]:
    rows = []
    for key, row in sorted(load(root).items()):
        kind, _, name = key.partition(":")
        value = rate(row)
        rows.append({"kind": kind, "name": name, "accepted": int(row.get("accepted", 0)),
                     "dismissed": int(row.get("dismissed", 0)), "reverted": int(row.get("reverted", 0)),
                     "samples": samples(row), "rate": None if value is None else round(value, 3),
                     "adjustment": adjustment_for(row, min_samples) if enabled else 0})
    return rows
