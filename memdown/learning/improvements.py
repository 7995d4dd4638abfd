"""``.memdown/improvements.md``: project-side proposals (docs, scripts, structure).

::

    # Improvements

    ## Pending

    ### IMP-20261122-0001 · Document where the API routes live
    - created: 2026-11-22
    - category: project structure
    - sources: SIG-20261122-0004

    Document where the API routes live (three empty searches before finding app/routes).

    ## Applied

    ## Deferred

The status is the section; move an entry by hand or with ``set_status``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..store.entries import Entry, EntryFile
from ..signals.text import one_line

SECTIONS = ("Pending", "Applied", "Deferred")
HEADER = ("# Improvements\n\n<!-- Project-side proposals from memdown's learning loop. Move an entry between "
          "Pending, Applied and Deferred by hand; keep the ids. -->\n\n## Pending\n\n## Applied\n\n## Deferred\n")


def improvements_file(root: Path) -> EntryFile:
    return EntryFile(Path(root) / "improvements.md", prefix="IMP", level=3, header=HEADER, sections=SECTIONS)


@dataclass
class Improvement:
    id: str
    text: str
    status: str = "pending"
    category: str = ""
    created: str = ""
    sources: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"id": self.id, "text": self.text, "status": self.status, "category": self.category,
                "created": self.created, "sources": self.sources}


def from_entry(entry: Entry) -> Improvement:
    f = entry.fields
    return Improvement(id=entry.id, text=one_line(entry.body or entry.title), status=(entry.section or "Pending").lower(),
                       category=f.get("category", ""), created=f.get("created", ""),
                       sources=[s.strip() for s in f.get("sources", "").split(",") if s.strip()])


def load(root: Path) -> list[Improvement]:
    return [from_entry(e) for e in improvements_file(root).entries()]


def add(root: Path, text: str, *, category: str, sources: list[str], day: str) -> Improvement:
    entry_id = improvements_file(root).add(one_line(text, 80), {"created": day, "category": category,
                                                                "sources": sources},
                                           body=text, section="Pending", day=day)
    return Improvement(entry_id, one_line(text), "pending", category, day, sources)


def set_status(root: Path, entry_id: str, status: str) -> None:
    section = next((s for s in SECTIONS if s.lower() == status.lower()), None)
    if section is None:
        from ..errors import UsageError

        raise UsageError(f"unknown improvement status {status!r}", hint="pending, applied or deferred")
    improvements_file(root).move(entry_id, section)


def remove(root: Path, entry_id: str) -> None:
    improvements_file(root).remove(entry_id)
