"""What a person asks first about a memory: which days it covers, and whether capture is on.

Read from the markdown and the configuration, never from the index, so the
answer is right even when the index is missing or stale. ``memdown stats``
(in process or from the warm daemon) and ``memdown capture status`` report it.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ... import paths
from ...config import Config

_DAY = re.compile(r"^(\d{4}-\d{2}-\d{2})")

# "capture" in the CLI (`memdown capture on|off`) is signal mining; the daily log is always written.
CAPTURE_KEY = "mining.enabled"


def days_covered(root: Path) -> dict[str, Any]:
    """``{"count", "first", "last"}``: distinct dates of the daily log files (first/last None when empty)."""
    days = sorted({m.group(1) for f in paths.daily_files(root) if (m := _DAY.match(f.name))})
    return {"count": len(days), "first": days[0] if days else None, "last": days[-1] if days else None}


def capture_state(config: Config) -> dict[str, Any]:
    """``{"enabled", "semantic", "source"}``: whether signal capture is on, and which setting says so."""
    return {"enabled": bool(config[CAPTURE_KEY]), "semantic": bool(config["mining.semantic"]),
            "source": config.sources.get(CAPTURE_KEY, "default")}


def memory_status(root: Path, config: Config) -> dict[str, Any]:
    """The fields ``stats`` adds to the index figures: ``days`` and ``capture``."""
    return {"days": days_covered(root), "capture": capture_state(config)}
