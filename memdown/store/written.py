"""The ledger of entries memdown wrote, and how a vanished one is judged (healing).

Each entry written to a day file is noted in ``state/written/<file>.jsonl``
(machine-local, 0600): its turn, session, when it was written and the block
itself, the text healing writes back. The text is kept only while healing may
need it: an entry judged deleted (or forgotten) keeps its turn, time and a
hash, never its text, and so does every entry of a ledger memdown has not
written for ``TEXT_KEEP_DAYS`` (``expire``). When the file is later found changed by someone else (its size,
mtime or inode differ from the stamp taken right after memdown's last write,
and memdown's compare-and-swap saw the bytes it read) and a noted entry is
gone, it is judged (docs/entries.md, "When an entry vanishes"):

- **deleted by a person** when a commit in HEAD's history removed it (a
  ``git revert``, or any commit without it), however soon after the write;
- **lost in a race**, and written again, when the file's last change came
  within ``HEAL_SECONDS`` of the entry's write (an editor saving a buffer read
  before the entry, a second writer), or when git made that change (the file
  changed within ``GIT_SLACK_SECONDS`` of git writing HEAD, ORIG_HEAD, the
  index or the stash, after the entry was written) and no commit in HEAD's
  history deleted the entry;
- **deleted by a person** otherwise: noted as such and never written again.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from .. import fsutil
from .. import paths
from ..fsutil import append_line, atomic_write_text, file_lock, file_lock_for
from .anchors import ANCHOR_RE, parse_anchor
from .gitstate import last_git_write, removed_in_a_commit

HEAL_SECONDS = 60.0
GIT_SLACK_SECONDS = 2.0


@dataclass
class Written:
    turn: str
    session: str
    at: float  # when it was (last) written
    block: str  # the entry as written: what comes back ('' once its text is dropped)
    deleted: float | None = None  # judged deleted by a person at this time
    sha: str = ""  # sha256 of the block, kept when the text is dropped


def _key(root: Path, day_file: Path) -> str:
    try:
        rel = Path(day_file).relative_to(root).as_posix()
    except ValueError:
        rel = Path(day_file).name
    return rel.replace("/", "~")


def ledger_file(root: Path, day_file: Path) -> Path:
    return paths.state_dir(root) / "written" / f"{_key(root, day_file)}.jsonl"


def _stamp_file(root: Path, day_file: Path) -> Path:
    return paths.state_dir(root) / "written" / f"{_key(root, day_file)}.stamp"


def ledgers(root: Path) -> list[Path]:
    folder = paths.state_dir(root) / "written"
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


KEEP_DAYS = 120.0  # a ledger no write touched for this long is dropped: the races it guards are long over
TEXT_KEEP_DAYS = 7.0  # a ledger no write touched for this long keeps hashes only (``expire``)


def prune(root: Path, *, keep_days: float = KEEP_DAYS) -> int:
    """Drop ledgers (and stamps) of files memdown has not written for ``keep_days``; how many."""
    horizon = time.time() - keep_days * 86400
    dropped = 0
    for ledger in ledgers(root):
        try:
            old = ledger.stat().st_mtime < horizon
        except OSError:
            continue
        if old:
            fsutil.unlink(ledger.with_suffix(".stamp"))
            fsutil.unlink(ledger)
            dropped += 1
    return dropped


def day_file_of(root: Path, ledger: Path) -> Path:
    return Path(root) / ledger.name[: -len(".jsonl")].replace("~", "/")


def load(root: Path, day_file: Path) -> dict[str, Written]:
    """Every noted entry of ``day_file`` by turn, its latest state."""
    found: dict[str, Written] = {}
    try:
        lines = fsutil.read_text(ledger_file(root, day_file), errors="replace").splitlines()
    except OSError:
        return found
    for line in lines:
        try:
            rec = json.loads(line)
            turn = rec["turn"]
        except (ValueError, KeyError, TypeError):
            continue  # a torn last line
        if "block" in rec or "sha" in rec:
            found[turn] = Written(turn, rec.get("session", ""), float(rec.get("at", 0)), rec.get("block", ""),
                                  sha=rec.get("sha", ""))
        if turn in found and rec.get("deleted") is not None:
            found[turn].deleted = float(rec["deleted"])
    return found


def _sha(block: str) -> str:
    return hashlib.sha256(block.encode("utf-8", "surrogatepass")).hexdigest()


def rewrite(root: Path, day_file: Path, *, forget: set[str] | frozenset[str] = frozenset(),
            keep_text: bool = True) -> None:
    """Rewrite the ledger of ``day_file`` from its latest states: the turns in ``forget`` go entirely,
    an entry judged deleted keeps no text (turn, session, time, hash and when it was deleted), nor does
    any entry when not ``keep_text``. The caller holds the day file's lock."""
    path = ledger_file(root, day_file)
    entries = load(root, day_file)
    if not entries and not path.exists():
        return
    lines = []
    for w in entries.values():
        if w.turn in forget:
            continue
        rec: dict = {"turn": w.turn, "session": w.session, "at": w.at}
        if w.deleted is None and w.block and keep_text:
            rec["block"] = w.block
        else:
            rec["sha"] = w.sha or _sha(w.block)
        if w.deleted is not None:
            rec["deleted"] = w.deleted
        lines.append(json.dumps(rec, ensure_ascii=False) + "\n")
    if lines:
        atomic_write_text(path, "".join(lines), mode=paths.PRIVATE_FILE_MODE)
    else:
        fsutil.unlink(path.with_suffix(".stamp"))
        fsutil.unlink(path)


def expire(root: Path, *, keep_days: float = TEXT_KEEP_DAYS) -> int:
    """Drop the text from every ledger memdown has not written for ``keep_days`` (hashes stay, so a
    deletion is still seen); how many ledgers were rewritten. The rewritten ledger keeps its mtime."""
    horizon = time.time() - keep_days * 86400
    done = 0
    for ledger in ledgers(root):
        try:
            st = ledger.stat()
            if st.st_mtime >= horizon or b'"block"' not in fsutil.read_bytes(ledger):
                continue
        except OSError:
            continue
        day_file = day_file_of(root, ledger)
        with file_lock(file_lock_for(day_file), timeout=30):
            rewrite(root, day_file, keep_text=False)
        try:
            os.utime(ledger, ns=(st.st_atime_ns, st.st_mtime_ns))  # ``prune`` still sees the last write
        except OSError:
            pass
        done += 1
    return done


def note(root: Path, day_file: Path, records: list[dict]) -> None:
    """Append ledger lines (the caller holds the day file's lock)."""
    if not records:
        return
    path = ledger_file(root, day_file)
    fsutil.make_dirs(path.parent)
    append_line(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), rotate_at=1 << 62)


def file_identity(day_file: Path) -> list[int] | None:
    try:
        st = os.stat(day_file)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def remember(root: Path, day_file: Path, identity: list[int] | None) -> None:
    """Stamp the file as memdown left it: [size, mtime_ns, inode] right after its write (the caller
    holds the lock). A hint: lost in a crash, the next write compares the ledger with the file once more."""
    atomic_write_text(_stamp_file(root, day_file), json.dumps(identity), mode=paths.PRIVATE_FILE_MODE,
                      durable=False)


def stamp(root: Path, day_file: Path) -> list[int] | None:
    """[size, mtime_ns, inode] of ``day_file`` right after memdown's last write (None: none, or it was gone)."""
    try:
        value = json.loads(fsutil.read_text(_stamp_file(root, day_file)))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, list) else None


def changed_by_others(root: Path, day_file: Path) -> bool:
    """Has anyone but memdown changed ``day_file`` since memdown last wrote it? Only files with a
    ledger can have lost anything. One ``stat``: an append never reads the file to ask."""
    if not ledger_file(root, day_file).exists():
        return False
    try:
        return json.loads(fsutil.read_text(_stamp_file(root, day_file))) != file_identity(day_file)
    except (OSError, ValueError):
        return True  # no stamp yet: compare the ledger with the file once


def present_turns(text: str) -> set[str]:
    turns = set()
    for match in ANCHOR_RE.finditer(text):
        anchor = parse_anchor(match.group(0))
        if anchor and anchor.turn:
            turns.add(anchor.turn)
    return turns


def judge(root: Path, day_file: Path, text: str) -> tuple[list[Written], list[Written]]:
    """(lost in a race, deleted by a person) among the noted entries missing from ``text``."""
    missing = [w for w in load(root, day_file).values() if w.deleted is None]
    if not missing:
        return [], []
    present = present_turns(text)
    missing = [w for w in missing if w.turn not in present]
    if not missing:
        return [], []
    try:
        changed = os.stat(day_file).st_mtime
    except OSError:  # the whole file is gone: its folder changed when it went
        changed = os.stat(Path(day_file).parent).st_mtime if Path(day_file).parent.exists() else time.time()
    git_at = last_git_write(Path(day_file).parent)
    lost, deleted = [], []
    for w in sorted(missing, key=lambda w: w.at):
        if git_at is not None and removed_in_a_commit(day_file, f"turn:{w.turn}"):
            deleted.append(w)  # a revert, or any commit without it: a person's decision, even seconds later
            continue
        by_git = git_at is not None and git_at >= w.at - 1 and abs(changed - git_at) <= GIT_SLACK_SECONDS
        if w.block and (changed - w.at <= HEAL_SECONDS or by_git):
            lost.append(w)
        else:
            deleted.append(w)
    return lost, deleted


def cut_words(old: str, new: str) -> list[str]:
    """The runs of words of ``old`` (an entry as memdown wrote it) that ``new`` (the entry as a person left
    it) no longer holds, in order, anchors left out: what a person cut from an entry they kept. A word
    changed counts as cut (its old form is gone); words added, moved lines and changed spacing cut nothing."""
    before, after = ANCHOR_RE.sub(" ", old).split(), ANCHOR_RE.sub(" ", new).split()
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    return [" ".join(before[i1:i2]) for op, i1, i2, _j1, _j2 in matcher.get_opcodes() if op in ("delete", "replace")]


def adopt(root: Path, day_file: Path, blocks: dict[str, str]) -> None:
    """The ledger of ``day_file`` now holds ``blocks`` (turn -> the entry as a person edited it) as the text
    healing writes back, and no other copy of the old text (the caller holds the day file's lock)."""
    entries = load(root, day_file)
    records = [{"turn": turn, "session": entries[turn].session, "at": entries[turn].at, "block": block}
               for turn, block in blocks.items() if turn in entries and entries[turn].deleted is None]
    if records:
        note(root, day_file, records)
        rewrite(root, day_file)
