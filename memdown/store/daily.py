"""Daily memory logs: ``memory/YYYY-MM-DD.md``.

    # 2026-11-22

    ## Session 14:30

    ### 14:35
    <!-- session:<id> turn:<uuid> transcript:<portable path> -->
    - bullet …

Writes hold the file's lock and go through ``fsutil.edit_locked``
(compare-and-swap: a file a person or git changed since it was read is read
again; an entry at the end is appended in place), so neither concurrent
sessions nor a person's editor lose anything. Every entry goes at the end of
the file, under its own session's heading, never another's: when another
section came after the session's last entry, its heading is repeated as
``## Session 14:30 (continued)``. So a write only appends, and its cost does
not grow with the day (a mid-file insert rewrote the whole day). The same
turn is never written twice. Placing an entry scans lines, never parses the day.
Every entry is noted in ``store.written``; one that vanished in a race is
written back by the next write (``heal``).
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .. import fsutil, paths
from ..controls import strip as strip_controls
from ..fence import defang
from ..fsutil import Append, edit_locked, file_lock, file_lock_for
from . import written
from .anchors import ANCHOR_RE, Anchor, anchor_escape, parse_anchor
from .dayread import LoggedEntry, read_entries  # noqa: F401  (their home is dayread: SessionStart reads days without the writer)


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
    agent: str = ""  # the client, named in the session's heading ("## Session 14:30 (codex)"); "" = Claude Code
    commit: str = ""  # the repository's HEAD when written (store/citations.py), "" outside git
    cites: str = ""  # what the entry cites in the code, as the anchor's cites: value

    def started(self) -> str:
        """What follows ``## Session`` in a heading this entry opens: its time, and its agent when not Claude Code."""
        return f"{self.when:%H:%M} ({self.agent})" if self.agent else f"{self.when:%H:%M}"


def entry_file(root: Path, entry: Entry) -> Path:
    day_file = paths.daily_file(root, f"{entry.when:%Y-%m-%d}")
    return day_file.parent / RECALL_DIR / day_file.name if entry.kind == RECALL else day_file


def clean_bullet(text: str) -> str:
    """One bullet line: single-line, no HTML comments that could fake an anchor, and no raw
    chat/system tag (``<system-reminder>`` quoted by the assistant is stored as ``‹system-reminder›``),
    so a log read or injected later holds nothing that poses as client structure."""
    flat = defang(" ".join(strip_controls(text).split()))
    flat = flat.replace("<!--", "&lt;!--").replace("-->", "--&gt;")
    if flat.startswith(("- ", "* ")):
        flat = flat[2:]
    if flat.startswith("#"):
        flat = "\\" + flat  # "- ### 11:00" would be a heading inside the list item
    return flat


def render_bullet(text: str) -> str:
    """A bullet; its further lines become sub-bullets (a list the assistant wrote stays a list).
    Every line is cleaned on its own, so none can start a heading or fake an anchor."""
    first, *rest = text.split("\n")
    return "\n".join([f"- {clean_bullet(first)}".rstrip(), *(f"  - {clean_bullet(r)}" for r in rest if r.strip())])


def render_entry(entry: Entry) -> str:
    anchor = Anchor(anchor_escape(entry.session), anchor_escape(entry.turn), anchor_escape(entry.transcript),
                    entry.commit, entry.cites).render()
    bullets = "\n".join(render_bullet(b) for b in entry.bullets if b.strip())
    return f"### {entry.when:%H:%M}\n{anchor}\n{bullets}\n"


# A cheap line scan, not a markdown parse: an append must not cost the length of the day
# (a 2,000-turn day re-parsed per append took minutes). Anchors and session headings are
# what memdown itself writes, at the start of a line.
_SESSION_HEADING = re.compile(r"^ {0,3}#{1,2}(?:[ \t]|$)", re.M)
_FENCE = re.compile(r"^ {0,3}(?:```|~~~)", re.M)


def _anchor_at(text: str, session: str, turn: str | None, found: int) -> int | None:
    """End of the anchor line holding ``found`` (an offset of its session or turn), if it is ``session``'s anchor."""
    start = text.rfind("\n", 0, found) + 1
    end = text.find("\n", found)
    end = len(text) if end < 0 else end
    fields = ANCHOR_RE.match(text[start:end].lstrip(" ")) if end - start < 4096 else None
    if fields is None or text[start:end].startswith("    "):
        return None
    anchor = parse_anchor(fields.group(0))
    if anchor is None or anchor.session != session or (turn is not None and anchor.turn != turn):
        return None
    return end


def has_turn(text: str, session: str, turn: str) -> bool:
    """Is ``session``'s ``turn`` anchored in ``text``? A substring search first: C speed, whatever the day's length."""
    needle = f"turn:{turn}"
    found = text.find(needle)
    while found >= 0:
        if _anchor_at(text, session, turn, found) is not None:
            return True
        found = text.find(needle, found + 1)
    return False


def _after_last_anchor(text: str, session: str) -> int | None:
    """Offset just after the line of ``session``'s last anchor, or None (searched from the end)."""
    needle = f"session:{session}"
    found = text.rfind(needle)
    while found >= 0:
        end = _anchor_at(text, session, None, found)
        if end is not None:
            return min(end + 1, len(text))
        found = text.rfind(needle, 0, found)
    return None


def _next_session_heading(text: str, start: int) -> int | None:
    """Offset of the first level-1/2 heading line after ``start`` that is not inside a code fence."""
    for heading in _SESSION_HEADING.finditer(text, start):
        if len(_FENCE.findall(text, start, heading.start())) % 2 == 0:
            return heading.start()
    return None


CONTINUED = " (continued)"


def _continued_heading(text: str, anchor_end: int, started: str) -> str:
    """The heading that resumes the section holding the anchor that ends at ``anchor_end``: its own
    ``##`` title marked continued (``## Session 14:30 (continued)``). Searched backwards from the anchor,
    heading by heading; one inside a code fence is skipped. None found (the entries sit right under
    the day's title): a fresh ``## Session`` heading, as for a session's first entry."""
    line = text.rfind("\n", 0, max(anchor_end - 1, 0)) + 1
    pos = line
    while pos > 0:
        hit = text.rfind("\n#", 0, pos)
        start = hit + 1 if hit >= 0 else (0 if text.startswith("#") else -1)
        if start < 0:
            break
        heading = _SESSION_HEADING.match(text, start)
        if heading and len(_FENCE.findall(text, start, line)) % 2 == 0:
            end = text.find("\n", start)
            title = text[start:len(text) if end < 0 else end].strip()
            if not title.startswith("##"):
                break  # the day's title: the section never had a heading of its own
            title = title.lstrip("#").strip()
            title = title[: -len(CONTINUED)] if title.endswith(CONTINUED) else title
            return f"## {title}{CONTINUED}" if title else f"## Session {started}"
        pos = start - 1 if start > 0 else 0
    return f"## Session {started}"


def _joint(text: str, session: str, started: str) -> str:
    """What goes between the day's text and a new block of ``session``'s (``text`` ending in a blank
    line): nothing when the session's section is the last one; else the heading that opens its part
    of the day: a new ``## Session``, or, when another section follows the session's last entry, a
    continuation of the session's own section. Every entry goes at the end of the file, so a write
    only ever appends: its cost does not grow with the day, and it never moves what a person wrote."""
    after = _after_last_anchor(text, session)
    if after is None:
        return f"## Session {started}\n\n"
    if _next_session_heading(text, after) is None:
        return ""
    return f"{_continued_heading(text, after, started)}\n\n"


def _blank_line_after(text: str) -> str:
    """The newlines that end ``text`` in a blank line (none when it already does; more are kept), after
    closing a code fence or an HTML comment a person left open at the end: an entry appended inside one
    is still in the file, but no reader (digest, lookups, the index's markdown parse) sees it."""
    closer = _open_block_closer(text)
    if closer:
        return ("" if text.endswith("\n") else "\n") + closer + "\n\n"
    ending = text[-2:]
    return "" if ending == "\n\n" else "\n" if ending.endswith("\n") else "\n\n"


# A line that may open a block a reader's markdown parse never leaves: a fence, or HTML (an HTML comment
# or <pre>/<script>… block runs to its closer, not to a blank line). memdown's own anchors are closed.
_MAY_OPEN = re.compile(r"^ {0,3}(?:```|~~~|<(?!!-- session:))", re.M)
_PROBE = "memdown-probe-7f3a: the next entry"
# What ends an open HTML block of CommonMark's kinds 1-5 (kinds 6 and 7 end at the blank line memdown writes).
_HTML_CLOSERS = (("<!--", "-->"), ("<?", "?>"), ("<![CDATA[", "]]>"), ("<!", ">"))


def _open_block_closer(text: str) -> str:
    """The line that closes a block a person left open at the end of ``text`` ('' when none is): an entry
    appended inside a fence or an HTML comment is still in the file, but no reader (digest, lookups, the
    index's markdown parse) sees it. markdown-it decides, on the day from memdown's last entry on (an
    append costs that tail, not the day): a probe line after a blank line is parsed, and the block that
    swallows it says what closes it. Left out: a block a person opens above memdown's last entry and never
    closes (that entry is already swallowed)."""
    last = text.rfind("\n<!-- session:")
    tail = text[text.rfind("\n", 0, last) + 1:] if last > 0 else text
    if not _MAY_OPEN.search(tail):
        return ""
    from .markdown import block_parser

    probe = tail + ("" if tail.endswith("\n") else "\n") + "\n" + _PROBE + "\n"
    for token in block_parser().parse(probe):
        if _PROBE not in token.content:
            continue
        if token.type == "fence":
            return token.markup  # the same character, as long: CommonMark's closer
        if token.type == "html_block":
            opener = token.content.lstrip()
            for starts, closer in _HTML_CLOSERS:
                if opener.startswith(starts):
                    return closer
            tag = re.match(r"<([A-Za-z]+)", opener)
            return f"</{tag.group(1).lower()}>" if tag else ""
    return ""


def place_block(text: str, day: str, session: str, block: str, started: str) -> str:
    """``text`` with ``block`` added at its end, under ``session``'s heading (see ``_joint``)."""
    if not text or text.isspace():
        return f"# {day}\n\n## Session {started}\n\n{block}"
    return text + _blank_line_after(text) + _joint(text, session, started) + block


def insert_entry(text: str, entry: Entry) -> str | None:
    """The day file's new text with ``entry`` placed, or None if already there."""
    if has_turn(text, entry.session, entry.turn):
        return None
    return place_block(text, f"{entry.when:%Y-%m-%d}", entry.session, render_entry(entry), entry.started())


def _heal(root: Path, path: Path, text: str, report: dict) -> str:
    """``text`` with the entries judged lost in a race written back (see ``store.written``)."""
    report["restored"], report["deleted"] = [], []
    report["changed"] = written.changed_by_others(root, path)
    if not report["changed"]:
        return text
    lost, deleted = written.judge(root, path, text)
    for w in lost:
        first = w.block.split("\n", 1)[0]
        started = first[4:].strip() if first.startswith("### ") else "00:00"
        text = place_block(text, path.stem, w.session, w.block, started)
    report["restored"], report["deleted"] = lost, deleted
    return text


def _as_append(text: str, entry: Entry) -> Append | None:
    """``entry`` as what ``place_block`` adds at the end of ``text``, without copying the day; None for a
    file that is empty or only blank (it gets the day's title)."""
    if not text or text.isspace():
        return None
    return Append(_blank_line_after(text) + _joint(text, entry.session, entry.started()) + render_entry(entry))


def _write(root: Path, path: Path, entry: Entry | None) -> dict:
    """Heal, then place ``entry``, in one compare-and-swap edit under the file's lock; ledger noted."""
    report: dict = {}
    identity: list[int] = []

    def change(text: str) -> tuple[str, None]:
        healed = _heal(root, path, text, report)
        report["written"] = entry is not None and not has_turn(healed, entry.session, entry.turn)
        if not report["written"]:
            return healed, None
        assert entry is not None
        tail = _as_append(text, entry) if healed is text else None
        return (tail if tail is not None else place_block(healed, f"{entry.when:%Y-%m-%d}", entry.session,
                                                          render_entry(entry), entry.started())), None

    with file_lock(file_lock_for(path), timeout=30):
        edit_locked(path, change, wrote=identity, left=written.stamp(root, path))
        now = time.time()
        records = [{"turn": w.turn, "session": w.session, "at": now, "block": w.block, "restored": True}
                   for w in report["restored"]]
        records += [{"turn": w.turn, "deleted": now} for w in report["deleted"]]
        if report["written"] and entry is not None:
            records.append({"turn": entry.turn, "session": entry.session, "at": now, "block": render_entry(entry)})
        written.note(root, path, records)
        if report["deleted"]:  # a person's deletion: the ledger keeps no copy of the text
            written.rewrite(root, path)
        if identity or report["changed"]:  # what the file is now: the next write compares
            written.remember(root, path, identity or written.file_identity(path))
    return report


def append_entry(root: Path, entry: Entry) -> Path | None:
    """Write ``entry`` into its day file; None when the turn was already recorded."""
    path = entry_file(root, entry)
    fsutil.make_dirs(path.parent)
    return path if _write(root, path, entry)["written"] else None


def heal(root: Path, path: Path) -> list[str]:
    """Write back the entries of ``path`` lost in a race; their turns."""
    if not written.ledger_file(root, path).exists():
        return []
    return [w.turn for w in _write(root, path, None)["restored"]]


def heal_recent(root: Path, *, days: float = 3.0) -> list[str]:
    """``heal`` every file memdown wrote to in the last ``days`` that someone else changed since."""
    restored: list[str] = []
    horizon = time.time() - days * 86400
    written.prune(root)  # the ledger holds each entry's text: it must not grow forever
    written.expire(root)  # nor keep it longer than healing needs
    for ledger in written.ledgers(root):
        try:
            if ledger.stat().st_mtime < horizon:
                continue
        except OSError:
            continue
        path = written.day_file_of(root, ledger)
        if written.changed_by_others(root, path):
            restored += heal(root, path)
    return restored


def vanished(root: Path) -> tuple[list[str], list[str]]:
    """Entries memdown wrote that are gone: (lost in a race, deleted by a person), one line each.
    The markdown is only read (``heal`` writes the lost ones back); a deletion is noted in the ledger,
    which then drops the entry's text (deleted means deleted)."""
    lost: list[str] = []
    deleted: list[str] = []
    for ledger in written.ledgers(root):
        path = written.day_file_of(root, ledger)
        try:
            text = fsutil.read_text(path, errors="replace")
        except FileNotFoundError:
            text = ""
        except OSError:
            continue
        gone, by_hand = written.judge(root, path, text)
        if by_hand:
            _note_deleted(root, path, [w.turn for w in by_hand])
        rel = path.relative_to(root).as_posix()
        lost += [f"{rel}: turn {w.turn} (session {w.session})" for w in gone]
        deleted += [f"{rel}: turn {w.turn} (session {w.session})" for w in written.load(root, path).values()
                    if w.deleted is not None]
    return lost, deleted


def _note_deleted(root: Path, path: Path, turns: list[str]) -> None:
    """Note ``turns`` as deleted by a person, under the day file's lock, and drop their text."""
    with file_lock(file_lock_for(path), timeout=30):
        now = time.time()
        written.note(root, path, [{"turn": turn, "deleted": now} for turn in turns])
        written.rewrite(root, path)


def heal_all(root: Path) -> list[str]:
    """``heal`` every file memdown noted writing to (``verify --repair``); the turns written back."""
    return [turn for ledger in written.ledgers(root) for turn in heal(root, written.day_file_of(root, ledger))]
