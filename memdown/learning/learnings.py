"""``.memdown/learnings.md``: reviewed learnings by category.

::

    # Learnings

    ## Commands

    ### LRN-20261122-0001 · Use pnpm, not npm.
    - status: promoted
    - scope: project
    - occurrences: 2
    - first_seen: 2026-11-20
    - last_seen: 2026-11-22
    - sources: SIG-20261120-0002, SIG-20261122-0001
    - promoted_to: project CLAUDE.md (2026-11-22)
    - fingerprint: 2b737b146833

    Use pnpm, not npm.

The category is the ``##`` section the entry sits in (move it to recategorise);
the text is the paragraph under the fields (the heading is only a label).
Statuses: ``pending`` (being promoted), ``promoted``, ``reverted`` (a negative
trace: never proposed again).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..store.entries import Entry, EntryFile
from ..signals.text import fingerprint, one_line

CATEGORIES = ("Commands", "Conventions", "Gotchas", "Preferences", "Project structure", "Other")
STATUSES = ("pending", "promoted", "reverted", "undone")  # undone: taken back by hand, proposable again
HEADER = ("# Learnings\n\n<!-- Reviewed learnings (memdown reflect). Edit the text, status or category "
          "(move the entry to another section) by hand; keep the ids. -->\n\n")


def learnings_file(root: Path) -> EntryFile:
    return EntryFile(Path(root) / "learnings.md", prefix="LRN", level=3, header=HEADER, sections=CATEGORIES)


@dataclass
class Learning:
    id: str
    text: str
    category: str = "Other"
    status: str = "pending"
    scope: str = "project"
    occurrences: int = 1
    first_seen: str = ""
    last_seen: str = ""
    sources: list[str] = field(default_factory=list)
    promoted_to: list[str] = field(default_factory=list)
    fingerprint: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def targets(self) -> list[str]:
        """Target names (``project``, ``global``…) from ``promoted_to``."""
        return [p.split()[0] for p in self.promoted_to if p.split()]

    def to_dict(self) -> dict:
        return {"id": self.id, "text": self.text, "category": self.category, "status": self.status,
                "scope": self.scope, "occurrences": self.occurrences, "first_seen": self.first_seen,
                "last_seen": self.last_seen, "sources": self.sources, "promoted_to": self.promoted_to,
                "fingerprint": self.fingerprint, **self.extra}


def _split(value: str) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def from_entry(entry: Entry) -> Learning:
    f = entry.fields
    text = entry.body.strip() or entry.title
    try:
        occurrences = int((f.get("occurrences") or "1").split()[0])
    except ValueError:
        occurrences = 1
    known = {"status", "scope", "occurrences", "first_seen", "last_seen", "sources", "promoted_to", "fingerprint"}
    return Learning(
        id=entry.id, text=one_line(text), category=entry.section or "Other",
        status=(f.get("status") or "pending").lower(), scope=(f.get("scope") or "project").lower(),
        occurrences=occurrences, first_seen=f.get("first_seen", ""), last_seen=f.get("last_seen", ""),
        sources=_split(f.get("sources", "")), promoted_to=[p.strip() for p in (f.get("promoted_to") or "").split(";")
                                                           if p.strip()],
        fingerprint=f.get("fingerprint") or fingerprint(text),
        extra={k: v for k, v in f.items() if k not in known},
    )


def load(root: Path) -> list[Learning]:
    return [from_entry(e) for e in learnings_file(root).entries()]


def get(root: Path, learning_id: str) -> Learning:
    return from_entry(learnings_file(root).get(learning_id))


def category_name(category: str) -> str:
    for name in CATEGORIES:
        if name.lower() == (category or "").strip().lower():
            return name
    return (category or "Other").strip().capitalize() or "Other"


def add(root: Path, learning: Learning, *, day: str) -> Learning:
    learning.category = category_name(learning.category)
    learning.fingerprint = learning.fingerprint or fingerprint(learning.text)
    fields = _fields(learning)
    learning.id = learnings_file(root).add(one_line(learning.text, 80), fields, body=learning.text,
                                           section=learning.category, day=day)
    return learning


def _fields(learning: Learning) -> dict[str, object]:
    return {
        "status": learning.status, "scope": learning.scope, "occurrences": learning.occurrences,
        "first_seen": learning.first_seen, "last_seen": learning.last_seen, "sources": learning.sources,
        "promoted_to": "; ".join(learning.promoted_to), "fingerprint": learning.fingerprint, **learning.extra,
    }


def update(root: Path, learning_id: str, **changes: object) -> None:
    """Set fields; ``promoted_to`` and ``sources`` take lists."""
    updates: dict[str, object] = {}
    for key, value in changes.items():
        if key == "promoted_to" and isinstance(value, list):
            value = "; ".join(value)
        updates[key] = value
    learnings_file(root).set_fields(learning_id, updates)
