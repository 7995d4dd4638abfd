"""Claude Code's ``feedback`` and ``project`` auto-memory notes, taken in as signals for review.

Claude already distilled these (a rule, then **Why:** and **How to apply:**
lines) and they never reach git; as signals they go through ``/memdown:reflect``
like any correction, so a team can review what Claude learned and commit it.
Each note version is imported once (keyed by file name and content hash); the
notes themselves are only read (``memdown.store.automemory``).
"""
from __future__ import annotations

import datetime as dt
import hashlib
import re
from pathlib import Path

from ..store.automemory import AutoNote, read_notes
from . import store
from .store import Signal
from .text import one_line

SIGNAL_TYPES = {"feedback": "correction", "project": "convention"}
_LABEL = re.compile(r"^\s*(?:[-*]\s*)?\*\*(why|how to apply)\s*:?\s*\*\*\s*:?\s*(.*)$", re.IGNORECASE)


def note_key(note: AutoNote) -> str:
    digest = hashlib.sha1(f"{note.description}\n{note.body}".encode("utf-8")).hexdigest()[:12]
    return f"{note.path.name}:{digest}"


def parts(body: str) -> tuple[str, str, str]:
    """(rule, why, how to apply) of a note body."""
    rule: list[str] = []
    found = {"why": [], "how to apply": []}
    current: list[str] | None = rule
    for line in body.splitlines():
        match = _LABEL.match(line)
        if match:
            current = found[match.group(1).lower()]
            line = match.group(2)
        elif current is rule and not line.strip() and rule:
            current = None  # the rule is the first paragraph
            continue
        if current is not None and line.strip() and not line.lstrip().startswith("#"):
            current.append(line.strip())
    return one_line(" ".join(rule), 300), one_line(" ".join(found["why"]), 300), one_line(" ".join(found["how to apply"]), 300)


def _mtime(path: Path) -> str:
    try:
        return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OSError:
        return ""


def import_notes(root: Path) -> list[Signal]:
    """Append a signal for each new or changed ``feedback``/``project`` note; returns what was written."""
    notes = [n for n in read_notes(root) if n.type in SIGNAL_TYPES]
    if not notes:
        return []
    known = {s.extra.get("automemory_key") for s in store.load(root) if s.pattern.startswith("automemory.")}
    new: list[Signal] = []
    for note in notes:
        key = note_key(note)
        if key in known:
            continue
        rule, why, how = parts(note.body)
        text = rule or note.description or note.name
        context = "\n\n".join(x for x in (f"Why: {why}" if why else "", f"How to apply: {how}" if how else "",
                                         f"Claude Code auto memory: {note.path.name}") if x)
        new.append(Signal(SIGNAL_TYPES[note.type], text, 3, pattern=f"automemory.{note.type}", corroboration=2,
                          tags=["automemory", note.type], context=context, turn=f"automemory:{note.path.stem}",
                          seen=_mtime(note.path),
                          extra={"automemory": note.name, "automemory_key": key, "description": note.description}))
    return store.append(root, new) if new else []
