"""Daily memory logs: ``memory/YYYY-MM-DD.md``.

    # 2026-11-22

    ## Session 14:30

    ### 14:35
    <!-- session:<id> turn:<uuid> transcript:<portable path> -->
    - bullet …

Writes hold the file's lock and replace the file atomically, so concurrent
sessions never lose or interleave entries; an entry for a session that
already wrote today goes to the end of that session's block, not under
another session's heading. The same turn is never written twice.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from markdown_it import MarkdownIt

from .. import paths
from ..fsutil import atomic_write_text, file_lock, file_lock_for
from .anchors import Anchor, anchor_escape, parse_anchor

_md = MarkdownIt("commonmark", {"html": True})


SUMMARY, RECALL = "summary", "recall"
# A recall entry only points at the memories a turn recalled; it lives apart
# from the day's log so its kind (store.kinds) keeps it out of default search.
RECALL_DIR = "recalls"


@dataclass
class Entry:
    when: datetime  # local time of the turn
    session: str
    turn: str
    transcript: str  # portable path ("~/…"), never a raw home directory
    bullets: list[str]
    kind: str = SUMMARY  # SUMMARY → memory/YYYY-MM-DD.md; RECALL → memory/recalls/YYYY-MM-DD.md


def entry_file(root: Path, entry: Entry) -> Path:
    day_file = paths.daily_file(root, f"{entry.when:%Y-%m-%d}")
    return day_file.parent / RECALL_DIR / day_file.name if entry.kind == RECALL else day_file


def clean_bullet(text: str) -> str:
    """One bullet line: single-line, no HTML comments that could fake an anchor."""
    flat = " ".join(text.split())
    flat = flat.replace("<!--", "&lt;!--").replace("-->", "--&gt;")
    if flat.startswith(("- ", "* ")):
        flat = flat[2:]
    return flat


def render_entry(entry: Entry) -> str:
    anchor = Anchor(entry.session, entry.turn, anchor_escape(entry.transcript)).render()
    bullets = "\n".join(f"- {clean_bullet(b)}" for b in entry.bullets if b.strip())
    return f"### {entry.when:%H:%M}\n{anchor}\n{bullets}\n"


def _anchors(text: str) -> list[tuple[int, Anchor]]:
    """(0-based line, anchor) for every anchor in an html block."""
    found: list[tuple[int, Anchor]] = []
    for tok in _md.parse(text):
        if tok.type == "html_block" and tok.map:
            anchor = parse_anchor(tok.content)
            if anchor:
                found.append((tok.map[0], anchor))
    return found


def _session_headings(text: str) -> list[int]:
    """0-based lines of level-1/2 headings (session boundaries)."""
    return [t.map[0] for t in _md.parse(text) if t.type == "heading_open" and t.tag in ("h1", "h2") and t.map]


def has_turn(text: str, session: str, turn: str) -> bool:
    return any(a.session == session and a.turn == turn for _, a in _anchors(text))


def insert_entry(text: str, entry: Entry) -> str | None:
    """The day file's new text with ``entry`` placed, or None if already there."""
    if has_turn(text, entry.session, entry.turn):
        return None
    block = render_entry(entry)
    if not text.strip():
        return f"# {entry.when:%Y-%m-%d}\n\n## Session {entry.when:%H:%M}\n\n{block}"
    mine = [line for line, a in _anchors(text) if a.session == entry.session]
    if not mine:
        return text.rstrip("\n") + f"\n\n## Session {entry.when:%H:%M}\n\n{block}"
    lines = text.split("\n")
    last = mine[-1]
    following = [h for h in _session_headings(text) if h > last]
    if not following:
        return text.rstrip("\n") + "\n\n" + block
    at = following[0]
    before = "\n".join(lines[:at]).rstrip("\n")
    after = "\n".join(lines[at:])
    return f"{before}\n\n{block}\n{after}"


def append_entry(root: Path, entry: Entry) -> Path | None:
    """Write ``entry`` into its day file; None when the turn was already recorded."""
    path = entry_file(root, entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(file_lock_for(path), timeout=30):
        try:
            current = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = ""
        updated = insert_entry(current, entry)
        if updated is None:
            return None
        atomic_write_text(path, updated)
    return path


def recorded_turns(root: Path, session: str, days: list[str]) -> set[str]:
    """Turn uuids of ``session`` already written in the given day files."""
    turns: set[str] = set()
    for day in days:
        try:
            text = paths.daily_file(root, day).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            continue
        turns.update(a.turn for _, a in _anchors(text) if a.session == session and a.turn)
    return turns


@dataclass
class LoggedEntry:
    day: str
    time: str  # the ``###`` heading
    anchor: Anchor | None
    body: str  # the entry's lines, anchors removed


def read_entries(path: Path) -> list[LoggedEntry]:
    """The ``###`` entries of one day file, in file order."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    lines = text.split("\n")
    tokens = _md.parse(text)
    heads = [
        (t.map[0], tokens[i + 1].content.strip())
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.map and i + 1 < len(tokens)
    ]
    entries: list[LoggedEntry] = []
    for n, (line, title) in enumerate(heads):
        level = len(lines[line]) - len(lines[line].lstrip("#"))
        if level != 3:
            continue
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        raw = "\n".join(lines[line + 1 : end])
        body = "\n".join(ln for ln in raw.split("\n") if ln.strip() and not ln.strip().startswith("<!--"))
        entries.append(LoggedEntry(path.stem, title, parse_anchor(raw), body))
    return entries
