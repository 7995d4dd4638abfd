"""Forgetting entries of the day files: the tombstone, and the register that keeps them gone.

``memdown forget`` (``services.upkeep.forget``) replaces an entry's block with a tombstone that says only that
something was forgotten and when::

    ### 10:03
    *Forgotten on 2026-11-27 (memdown forget).*

and notes the turn (or the whole session) in ``state/forgotten.tsv`` (machine-local, 0600), ids only,
never text::

    turn <TAB> <turn uuid> <TAB> <session> <TAB> <unix time>
    session <TAB> <session id> <TAB> <TAB> <unix time>

Capture, mining, healing and the transcript archive read the register, so nothing writes a forgotten
turn back: not a later Stop of the same session, not ``memdown import`` of its transcript, not
``verify --repair``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .. import fsutil, paths
from ..fsutil import edit_locked, file_lock, file_lock_for, locked_append
from . import written
from .anchors import parse_anchor
from .dayread import _headings

FILE_NAME = "forgotten.tsv"


def register_file(root: Path) -> Path:
    return paths.state_dir(root) / FILE_NAME


@dataclass
class Forgotten:
    """The turns (turn → session) and whole sessions a person told memdown to forget."""

    turns: dict[str, str] = field(default_factory=dict)
    sessions: set[str] = field(default_factory=set)

    def covers(self, session: str, turn: str) -> bool:
        return bool(session and session in self.sessions) or bool(turn and turn in self.turns)

    def __bool__(self) -> bool:
        return bool(self.turns or self.sessions)


def load(root: Path) -> Forgotten:
    found = Forgotten()
    try:
        lines = fsutil.read_text(register_file(root), errors="replace").splitlines()
    except OSError:
        return found
    for line in lines:
        parts = line.split("\t")
        if len(parts) >= 3 and parts[1]:
            if parts[0] == "turn":
                found.turns[parts[1]] = parts[2]
            elif parts[0] == "session":
                found.sessions.add(parts[1])
    return found


def note(root: Path, turns: dict[str, str], sessions: set[str]) -> None:
    """Add ``turns`` (turn → session) and ``sessions`` to the register (locked append, 0600)."""
    now = int(time.time())
    lines = [f"turn\t{turn}\t{session}\t{now}\n" for turn, session in sorted(turns.items()) if turn]
    lines += [f"session\t{session}\t\t{now}\n" for session in sorted(sessions) if session]
    if lines:
        fsutil.make_dirs(paths.state_dir(root))
        locked_append(register_file(root), "".join(lines))


@dataclass
class DayEntry:
    """One ``###`` entry of a day file: lines [start, end) of the text, its anchor's session and turn."""

    path: Path
    start: int
    end: int
    title: str
    session: str
    turn: str
    block: str

    @property
    def key(self) -> tuple[str, int, str]:
        """Who it is across a re-read: its turn, or (for an entry without an anchor) its place."""
        return (self.turn, 0, "") if self.turn else ("", self.start, self.title)


def entries_in(path: Path, text: str) -> list[DayEntry]:
    """Every ``###`` entry of ``text`` (the day file ``path``), in file order; tombstones left out."""
    lines = text.split("\n")
    heads = _headings(text)
    found = []
    for n, (line, title) in enumerate(heads):
        if len(lines[line]) - len(lines[line].lstrip("#")) != 3:
            continue
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        block = "\n".join(lines[line:end])
        if TOMBSTONE_MARK in block and "<!-- session:" not in block:
            continue
        anchor = parse_anchor(block)
        found.append(DayEntry(path, line, end, title, anchor.session if anchor else "", anchor.turn if anchor else "",
                              block))
    return found


TOMBSTONE_MARK = "(memdown forget)"


def tombstone(title: str, when: datetime) -> list[str]:
    return [f"### {title}", f"*Forgotten on {when.astimezone(timezone.utc):%Y-%m-%d} {TOMBSTONE_MARK}.*", ""]


def remove_entries(root: Path, path: Path, keys: set[tuple[str, int, str]], when: datetime) -> int:
    """Replace the entries of ``path`` with these keys by a tombstone each (compare-and-swap, under the
    day file's lock, as the daily writer), and drop their turns from the healing ledger; how many."""
    removed = 0
    identity: list[int] = []

    def change(text: str) -> tuple[str, None]:
        nonlocal removed
        lines = text.split("\n")
        hits = [e for e in entries_in(path, text) if e.key in keys]
        for entry in reversed(hits):  # from the end: earlier line numbers stay right
            lines[entry.start:entry.end] = tombstone(entry.title, when)
        removed = len(hits)
        return "\n".join(lines), None

    turns = {key[0] for key in keys if key[0]}
    with file_lock(file_lock_for(path), timeout=30):
        edit_locked(path, change, wrote=identity, left=written.stamp(root, path))
        written.rewrite(root, path, forget=turns)
        if written.ledger_file(root, path).exists():
            written.remember(root, path, identity or written.file_identity(path))
    return removed
