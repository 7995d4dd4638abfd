"""``.memdown/reflexion.md``: what went wrong, why, and the rule that prevents it.

::

    # Reflexion

    ## RFX-20261122-0001 · pytest: ModuleNotFoundError: No module named 'memdown'
    - status: adopted
    - tool: Bash
    - task: run the test suite
    - mistake: ran `pytest` outside the virtualenv
    - evidence: ModuleNotFoundError: No module named 'memdown'
    - rule: activate .venv before running tests
    - fix: Bash `. .venv/bin/activate && python -m pytest`
    - tests: python -m pytest -q passes
    - tags: pytest, venv
    - sources: SIG-20261122-0003
    - created: 2026-11-22

Status ``adopted`` entries feed the failure lookup (``fixes.lookup_fix``);
``deprecated`` ones are kept as history and never suggested.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..store.entries import Entry, EntryFile
from ..signals.text import one_line

STATUSES = ("adopted", "deprecated")
FIELDS = ("task", "mistake", "evidence", "rule", "fix", "tests")
HEADER = ("# Reflexion\n\n<!-- Mistakes, their evidence and the rule or fix that prevents them. Set status to "
          "deprecated to retire one; keep the ids. -->\n\n")


def reflexion_file(root: Path) -> EntryFile:
    return EntryFile(Path(root) / "reflexion.md", prefix="RFX", level=2, header=HEADER)


@dataclass
class Reflexion:
    id: str
    title: str
    status: str = "adopted"
    tool: str = ""
    task: str = ""
    mistake: str = ""
    evidence: str = ""
    rule: str = ""
    fix: str = ""
    tests: str = ""
    tags: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    created: str = ""

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def from_entry(entry: Entry) -> Reflexion:
    f = entry.fields
    return Reflexion(id=entry.id, title=entry.title, status=(f.get("status") or "adopted").lower(),
                     tool=f.get("tool", ""), **{k: f.get(k, "") for k in FIELDS},
                     tags=[t.strip() for t in f.get("tags", "").split(",") if t.strip()],
                     sources=[s.strip() for s in f.get("sources", "").split(",") if s.strip()],
                     created=f.get("created", ""))


def load(root: Path) -> list[Reflexion]:
    return [from_entry(e) for e in reflexion_file(root).entries()]


def add(root: Path, item: Reflexion, *, day: str) -> Reflexion:
    fields: dict[str, object] = {"status": item.status, "tool": item.tool}
    fields.update({k: getattr(item, k) for k in FIELDS})
    fields.update({"tags": item.tags, "sources": item.sources, "created": item.created or day})
    title = item.title or one_line(f"{item.tool}: {item.evidence or item.mistake}", 90)
    item.id = reflexion_file(root).add(title, fields, day=day)
    item.title = title
    return item


def set_status(root: Path, entry_id: str, status: str) -> None:
    reflexion_file(root).set_fields(entry_id, {"status": status})
