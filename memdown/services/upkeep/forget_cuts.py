"""Words a person cut from an entry they kept: gone everywhere memdown derived them, the entry stays.

``memdown verify`` reconciles a person's edits of the day files in one place (``forget.purge_deleted``, and
this, right after it). A whole entry deleted is forgotten as ``memdown forget`` would; for an entry that is
still there, the entry as memdown wrote it (the healing ledger keeps it for ``written.TEXT_KEEP_DAYS``) is
compared with the entry now, and the runs of words cut (``written.cut_words``) that the day file no longer
holds anywhere are the words forgotten:

- a signal of that turn (or of its session, in its ``After:``/``Assistant:`` lines about the turn before)
  quoting a cut run loses it (the signal, or those lines); any signal quoting a cut run of
  ``MIN_PHRASE``+ characters goes, as for ``forget --text``; a preference a person decided (dismissed,
  promoted) keeps its decision and loses the words (``restated._rescind``);
- the prompt kept for repetition (``state/prompts.jsonl``) and the classifier queue's line of that turn go
  when they hold a cut run, and a reviewable restated preference quoting them is filed again from the
  prompts left;
- the index re-reads the day file; its old versions, full-text index and the cached vectors of the cut
  text go (``forget.purge_index``);
- last, the ledger holds the entry as the person left it: healing writes their version back, never the cut.

Not covered: an entry whose ledger text has expired (hashes only: what was cut is not known any more), and
the transcript archive (the client's record of the whole turn; ``memdown forget`` of the turn takes it).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ... import fsutil, paths
from ...fsutil import file_lock, file_lock_for
from ...store import forgetting, written
from ...store.anchors import parse_anchor
from ...store.entries import read_entries as read_id_entries

MIN_PHRASE = 16  # forget.MIN_PHRASE: a cut this long is looked for in every signal, not only its turn's
MIN_CUT = 4  # a cut shorter than this (``a``, ``the``) is looked for nowhere


@dataclass
class Cuts:
    runs: dict[str, list[str]] = field(default_factory=dict)  # turn -> cut runs of words, folded
    sessions: dict[str, str] = field(default_factory=dict)  # turn -> session
    blocks: dict[Path, dict[str, str]] = field(default_factory=dict)  # day file -> turn -> entry now

    def long(self) -> set[str]:
        return {run for runs in self.runs.values() for run in runs if len(run) >= MIN_PHRASE}


def fold(text: object) -> str:
    """Text as cuts are compared: runs of space as one, case folded."""
    return " ".join(str(text).split()).casefold()


def _holds(text: str, runs: list[str] | set[str]) -> bool:
    return any(re.search(rf"(?<!\w){re.escape(run)}(?!\w)", text) for run in runs)


def find_cuts(root: Path) -> Cuts:
    """Every entry of every day file with a ledger whose words a person cut (see the module doc)."""
    cuts = Cuts()
    for ledger in written.ledgers(root):
        path = written.day_file_of(root, ledger)
        try:
            text = fsutil.read_text(path, errors="replace")
        except OSError:
            continue
        noted = {w.turn: w for w in written.load(root, path).values() if w.deleted is None and w.block}
        everywhere = fold(text)
        for entry in forgetting.entries_in(path, text):
            w = noted.get(entry.turn)
            if w is None or fold(w.block) == fold(entry.block):
                continue
            runs = [run for run in map(fold, written.cut_words(w.block, entry.block))
                    if len(run) >= MIN_CUT and not _holds(everywhere, [run])]
            if runs:
                cuts.runs[entry.turn], cuts.sessions[entry.turn] = runs, w.session
                cuts.blocks.setdefault(path, {})[entry.turn] = entry.block.rstrip("\n") + "\n"
    return cuts


def _signals_quoting(root: Path, cuts: Cuts) -> list[tuple[Path, str]]:
    """(signal file, id) of the signals to drop, ``context:`` + id for those losing only their lines about
    the turn before (``forget._drop_signals`` takes both)."""
    from .forget import CONTEXT_PREFIXES, _judged_text, signal_blocks

    by_session: dict[str, list[str]] = {}
    for turn, runs in cuts.runs.items():
        by_session.setdefault(cuts.sessions[turn], []).extend(runs)
    long, found = cuts.long(), []
    for path, lines, sig in signal_blocks(root):
        anchor = parse_anchor("\n".join(lines[sig.start:sig.end]))
        judged = _judged_text(sig, lines).split("\n")
        own = fold("\n".join(ln for ln in judged if not ln.startswith(CONTEXT_PREFIXES)))
        context = fold("\n".join(ln for ln in judged if ln.startswith(CONTEXT_PREFIXES)))
        turn, session = (anchor.turn, anchor.session) if anchor else ("", "")
        if _holds(own, long | set(cuts.runs.get(turn, ()))):
            found.append((path, sig.id))
        elif _holds(context, long | set(by_session.get(session, ()))):
            found.append((path, "context:" + sig.id))
    return found


def _turns_kept(root: Path, cuts: Cuts) -> dict[str, str]:
    """Turns (-> session) whose kept prompt or classifier queue line holds a cut run of that turn."""
    from ...signals import restated

    rows = list(restated.load(root))
    queue = paths.state_dir(root) / "semantic-queue.jsonl"
    try:
        rows += [json.loads(line) for line in fsutil.read_text(queue, errors="replace").splitlines() if line.strip()]
    except (OSError, ValueError):
        pass
    return {row["turn"]: cuts.sessions[row["turn"]] for row in rows if isinstance(row, dict)
            and row.get("turn") in cuts.runs and _holds(fold(json.dumps(row, ensure_ascii=False)) + " " +
                                                         fold(row.get("text", "")), cuts.runs[row["turn"]])}


def purge_cuts(mem) -> int:
    """Forget the words a person cut from entries they kept (see the module doc); how many entries."""
    from ...signals import restated
    from .forget import _drop_signals, purge_index
    from .forget_state import drop_from_state

    root = mem.root
    cuts = find_cuts(root)
    if not cuts.runs:
        return 0
    kept = _turns_kept(root, cuts)
    signals = _signals_quoting(root, cuts)
    drawing = restated.drawing_on(root, set(kept), set())
    signals += [(path, sig.id) for path in paths.signal_files(root) for sig in _read(path)
                if sig.id in drawing and (path, sig.id) not in signals]
    _drop_signals(signals)
    drop_from_state(root, set(kept), set(), cuts.long(), set(), whole=set())
    purge_index(mem, [*cuts.blocks, *dict.fromkeys(path for path, _sig in signals)])
    for path, blocks in cuts.blocks.items():
        with file_lock(file_lock_for(path), timeout=30):
            written.adopt(root, path, blocks)
    return sum(len(blocks) for blocks in cuts.blocks.values())


def _read(path: Path) -> list:
    from .forget import SIGNAL_LEVEL

    try:
        return read_id_entries(path, SIGNAL_LEVEL)
    except OSError:
        return []
