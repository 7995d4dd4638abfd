#!/usr/bin/env python3
"""Build bench/retrieval/corpus/ (memdown daily logs) from the hand-written sources.

The entry text lives in bench/retrieval/source/*.md, written by hand. This script only
adds the mechanical parts of the memdown day-file format:

  * the `# YYYY-MM-DD` title,
  * `## Session HH:MM` headings (source: `## HH:MM`),
  * the anchor comment under each `### HH:MM` entry heading, with deterministic
    made-up session/turn UUIDs and transcript paths.

Source format:

    @ 2026-05-04          <- starts a day file
    ## 09:03              <- starts a session
    ### 09:03             <- starts an entry; bullets follow
    - ...

Output is deterministic (UUIDs derived with uuid5 from date/time), so re-running
produces byte-identical files. Usage:  python bench/retrieval/make_corpus.py
"""

from __future__ import annotations

import re
import shutil
import sys
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "source"
CORPUS = HERE / "corpus"

NS = uuid.UUID("6f1c2b7e-3d9a-4c55-9a0e-5b7d2e8f4a11")
PROJECT_DIR = "-home-nadia-code-portolan"

DAY_RE = re.compile(r"^@ (\d{4}-\d{2}-\d{2})$")
SESSION_RE = re.compile(r"^## (\d{2}:\d{2})$")
ENTRY_RE = re.compile(r"^### (\d{2}:\d{2})$")


def parse(text: str, src: str) -> dict[str, list[tuple[str, list[tuple[str, list[str]]]]]]:
    """Return {date: [(session_time, [(entry_time, [bullet lines])])]}."""
    days: dict[str, list] = {}
    day = session = entry = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line:
            continue
        if m := DAY_RE.match(line):
            day = m.group(1)
            if day in days:
                sys.exit(f"{src}:{n}: duplicate day {day}")
            days[day] = []
            session = entry = None
        elif m := SESSION_RE.match(line):
            if day is None:
                sys.exit(f"{src}:{n}: session outside a day")
            session = (m.group(1), [])
            days[day].append(session)
            entry = None
        elif m := ENTRY_RE.match(line):
            if session is None:
                sys.exit(f"{src}:{n}: entry outside a session")
            entry = (m.group(1), [])
            session[1].append(entry)
        elif line.startswith("- "):
            if entry is None:
                sys.exit(f"{src}:{n}: bullet outside an entry")
            entry[1].append(line)
        else:
            sys.exit(f"{src}:{n}: unexpected line: {line!r}")
    return days


def render(day: str, sessions: list) -> str:
    out = [f"# {day}", ""]
    seen: set[str] = set()
    for s_time, entries in sessions:
        sid = uuid.uuid5(NS, f"session:{day}:{s_time}")
        out += [f"## Session {s_time}", ""]
        for e_time, bullets in entries:
            if e_time in seen:
                sys.exit(f"{day}: duplicate entry heading {e_time}")
            seen.add(e_time)
            if not 2 <= len(bullets) <= 8:
                sys.exit(f"{day} {e_time}: {len(bullets)} bullets (want 2-8)")
            tid = uuid.uuid5(NS, f"turn:{day}:{e_time}")
            out += [
                f"### {e_time}",
                f"<!-- session:{sid} turn:{tid} "
                f"transcript:~/.claude/projects/{PROJECT_DIR}/{sid}.jsonl -->",
                *bullets,
                "",
            ]
    return "\n".join(out).rstrip("\n") + "\n"


def main() -> None:
    all_days: dict[str, list] = {}
    for src in sorted(SOURCE.glob("*.md")):
        for day, sessions in parse(src.read_text(encoding="utf-8"), src.name).items():
            if day in all_days:
                sys.exit(f"{src.name}: day {day} defined twice")
            all_days[day] = sessions
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    CORPUS.mkdir()
    n_entries = 0
    for day in sorted(all_days):
        (CORPUS / f"{day}.md").write_text(render(day, all_days[day]), encoding="utf-8")
        n_entries += sum(len(e) for _, e in all_days[day])
    size = sum(p.stat().st_size for p in CORPUS.glob("*.md"))
    print(f"wrote {len(all_days)} day files, {n_entries} entries, {size / 1024:.0f} KiB -> {CORPUS}")


if __name__ == "__main__":
    main()
