"""Which turns any session of this memory root has recorded, so a copy is not recorded again.

A ``--fork-session`` (or a resumed session written to a new file) starts its
transcript with the parent's lines: the same turn uuids under the new session
id, or, in older clients, fresh uuids around the same API message ids. The
per-session done-state (``state/sessions/<id>.json``) cannot see that, so this
registry remembers every recorded turn across sessions:

    state/recorded-turns.tsv    <turn key> TAB <session> TAB <message ids, comma-separated> TAB <prompt hash>

A turn key seen under another session is a copy only when the prompt is the same too (the hash;
lines written before it existed have none and count as the same): a uuid reused for another prompt,
in another session's file, is that session's own turn and is recorded.

Append-only under its lock; a line is added after the entry is written, so a
crash in between leaves the turn to the daily writer's own duplicate check.
A root recorded before this file existed is seeded once from the anchors in
its daily logs (uuids only).
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ... import fsutil, paths
from ...fsutil import append_unlocked, file_lock, file_lock_for, locked_append
from ...transcript.model import Turn

FILE_NAME = "recorded-turns.tsv"
_BREAKS_LINE = re.compile(r"[\t\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")  # a key that would split its line


def registry_file(root: Path) -> Path:
    return paths.state_dir(root) / FILE_NAME


class RecordedTurns:
    """Turn uuid → session, and API message id → session, for every recorded turn."""

    def __init__(self) -> None:
        self.by_turn: dict[str, str] = {}
        self.by_message: dict[str, str] = {}
        self.prompts: dict[str, set[str]] = {}  # turn key → hashes of the prompts recorded under it

    def add_line(self, line: str) -> None:
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 2 or not parts[0]:
            return
        self.by_turn.setdefault(parts[0], parts[1])
        self.prompts.setdefault(parts[0], set()).add(parts[3] if len(parts) > 3 else "")
        for msg in (parts[2].split(",") if len(parts) > 2 else []):
            if msg:
                self.by_message.setdefault(msg, parts[1])

    def copied_from(self, turn: Turn, session: str) -> str:
        """The other session that already recorded ``turn`` ('' when none did)."""
        owner = self.by_turn.get(turn.uuid, "")
        hashes = self.prompts.get(turn.uuid, set())
        if owner and owner != session and ("" in hashes or prompt_hash(turn.prompt) in hashes):
            return owner
        owners = {self.by_message.get(m, "") for m in turn.message_ids}
        if turn.message_ids and len(owners) == 1 and "" not in owners and session not in owners:
            return owners.pop()
        return ""


def load(root: Path) -> RecordedTurns:
    path = registry_file(root)
    if not path.exists() and Path(root).is_dir():
        _seed(root, path)
    known = RecordedTurns()
    try:
        with fsutil.open_stream(path) as handle:
            for line in handle:
                known.add_line(line.decode("utf-8", "replace"))
    except OSError:
        pass
    return known


def prompt_hash(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _line(turn_uuid: str, session: str, message_ids: list[str] | tuple[str, ...] = (), prompt: str | None = None) -> str:
    clean = [m for m in message_ids if m and "\t" not in m and "," not in m]
    tail = f"\t{prompt_hash(prompt)}" if prompt is not None else ""
    return f"{turn_uuid}\t{session}\t{','.join(clean)}{tail}\n"


def _seed(root: Path, path: Path) -> None:
    """Every anchored turn in the daily logs (turns recorded before the registry existed)."""
    from ...store.dayread import read_entries

    lines: list[str] = []
    for day_file in paths.daily_files(root):
        for entry in read_entries(day_file):
            anchor = entry.anchor
            if anchor is not None and anchor.turn and anchor.session:
                lines.append(_line(anchor.turn, anchor.session))
    fsutil.make_dirs(path.parent)
    with file_lock(file_lock_for(path), timeout=30):
        if not path.exists():  # another writer seeded it meanwhile
            append_unlocked(path, "".join(lines))


def remember(root: Path, turns: list[Turn], session: str, known: RecordedTurns | None = None) -> None:
    """Add ``turns`` (recorded for ``session``) to the registry (and to ``known``)."""
    text = "".join(_line(t.uuid, session, t.message_ids, t.prompt) for t in turns
                   if t.uuid and not _BREAKS_LINE.search(t.uuid))
    if not text:
        return
    fsutil.make_dirs(registry_file(root).parent)
    locked_append(registry_file(root), text, timeout=30)
    if known is not None:
        for line in text.splitlines():
            known.add_line(line)
