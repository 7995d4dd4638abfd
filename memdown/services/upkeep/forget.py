"""``memdown forget``: an entry a person wants gone is gone everywhere memdown keeps it.

Chosen by entry (a search hit's id, or a turn uuid), session, day or text match (``plan_forget``), and
then (``forget``):

- the markdown: each entry's block becomes a tombstone line (``store.forgetting``), no content;
- ``state/written/``: the turns leave the healing ledger, so neither healing nor ``verify --repair``
  writes them back; ``state/forgotten.tsv`` (ids only) keeps capture, import, mining and the
  archive from recording them again;
- signals filed from those turns or quoting them, the optional classifier's queue, the mining
  state's last assistant line;
- the archived transcript: the turn's lines, or the whole session's files;
- the index: the files are re-indexed, old LanceDB versions compacted and removed, the full-text
  index rebuilt, and the vectors of every chunk text that is gone dropped from the embedding cache.

A person who deletes an entry by hand gets the same once ``memdown verify`` runs (``purge_deleted``).
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ... import fsutil, paths
from ...errors import NotFoundError, UsageError
from ...fsutil import file_lock, file_lock_for
from ...index.purge import forget_vectors, purge_history
from ...index.textprep import FTS_OPTIONS
from ...store import forgetting, written
from ...store.anchors import parse_anchor
from ...store.entries import read_entries as read_id_entries
from ...store.entry_edit import edit_file, replace_entry
from ...store.forgetting import DayEntry
from .forget_state import drop_from_state

SIGNAL_LEVEL = 2  # signals.store.LEVEL (the learning layers sit above services' imports of store only)
MIN_PHRASE = 16  # an entry's line at least this long is looked for in signals and queues


@dataclass
class ForgetPlan:
    entries: list[DayEntry] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)  # whole sessions: their archive goes too
    text: str = ""
    signals: list[tuple[Path, str]] = field(default_factory=list)  # (signal file, signal id)
    archives: list[Path] = field(default_factory=list)
    followers: set[str] = field(default_factory=set)  # the turns right after: their signals quote the turn
    kept: list[str] = field(default_factory=list)  # reviewed files a person approved that cite or quote it

    @property
    def turns(self) -> dict[str, str]:
        return {e.turn: e.session for e in self.entries if e.turn}

    def phrases(self) -> set[str]:
        """Lines of the forgotten entries (and the text matched) long enough to find where they are quoted."""
        found = {self.text} if self.text else set()
        for entry in self.entries:
            for line in entry.block.split("\n"):
                value = line.strip().lstrip("-").strip()
                value = value.split(": ", 1)[1] if ": " in value[:24] else value
                if len(value) >= MIN_PHRASE and not value.startswith(("<!--", "#")):
                    found.add(value)
        return found

    def to_dict(self, root: Path) -> dict[str, Any]:
        return {
            "entries": [{"file": e.path.relative_to(root).as_posix(), "line": e.start + 1, "time": e.title,
                         "session": e.session, "turn": e.turn} for e in self.entries],
            "sessions": sorted(self.sessions),
            "signals": [sig for _path, sig in self.signals],
            "archives": [p.name for p in self.archives],
            "kept": self.kept,
        }


def _memory_files(root: Path) -> list[Path]:
    folder = paths.daily_dir(root)
    if not folder.is_dir():
        return []
    return sorted([*folder.glob("*.md"), *(folder / "recalls").glob("*.md")])


def _all_entries(root: Path) -> list[DayEntry]:
    found: list[DayEntry] = []
    for path in _memory_files(root):
        try:
            found += forgetting.entries_in(path, fsutil.read_text(path, errors="replace"))
        except OSError:
            continue
    return found


def _by_id(mem, everything: list[DayEntry], ref: str) -> list[DayEntry]:
    """The entries an id names: a turn uuid (or a unique prefix of 8+), else a search hit's chunk id."""
    if len(ref) >= 8:
        hits = [e for e in everything if e.turn and e.turn.startswith(ref)]
        if hits:
            return hits
    expansion = mem.expand(ref)  # NotFoundError / AmbiguousIdError speak for themselves
    source = (mem.root / expansion.source).resolve()
    if expansion.turn:
        hits = [e for e in everything if e.turn == expansion.turn]
    else:
        line = expansion.chunk_start - 1
        hits = [e for e in everything if e.path.resolve() == source and e.start <= line < e.end]
    if not hits:
        raise NotFoundError(f"{ref}: not a memdown entry (a person's note: delete it by hand, then run `memdown verify`)")
    return hits


def plan_forget(mem, *, ids: tuple[str, ...] = (), session: str = "", day: str = "", text: str = "") -> ForgetPlan:
    """What ``forget`` would remove for these selectors (any combination; at least one)."""
    if not (ids or session or day or text):
        raise UsageError("say what to forget: an ID, --session, --day or --text")
    root = mem.root
    everything = _all_entries(root)
    chosen: dict[tuple, DayEntry] = {}
    plan = ForgetPlan(text=text)
    for ref in ids:
        chosen.update({(e.path, e.key): e for e in _by_id(mem, everything, ref)})
    if session:
        sessions = {e.session for e in everything if e.session.startswith(session)} or {session}
        if len(sessions) > 1:
            raise UsageError(f"--session {session} names {len(sessions)} sessions; give more of the id")
        plan.sessions = sessions
        chosen.update({(e.path, e.key): e for e in everything if e.session in sessions})
    if day:
        if not any(e.path.stem == day for e in everything):
            raise NotFoundError(f"no entries on {day}")
        chosen.update({(e.path, e.key): e for e in everything if e.path.stem == day})
    if text:
        needle = text.casefold()
        chosen.update({(e.path, e.key): e for e in everything if needle in e.block.casefold()})
    plan.entries = sorted(chosen.values(), key=lambda e: (str(e.path), e.start))
    plan.archives = _archives_of(plan)
    plan.followers = _followers(plan, everything)
    plan.signals = _signals_to_drop(root, plan)
    plan.kept = _decisions_citing(root, plan)
    return plan


REVIEWED = ("learnings.md", "improvements.md", "reflexion.md")


def _decisions_citing(root: Path, plan: ForgetPlan) -> list[str]:
    """Reviewed files (a person's decisions) that cite a dropped signal or quote a forgotten line: said, not
    changed (``memdown reflect undo ID`` takes a promotion back)."""
    needles = {sig.split(":")[-1] for _path, sig in plan.signals} | {p.casefold() for p in plan.phrases()}
    found = []
    for name in REVIEWED:
        try:
            text = fsutil.read_text(root / name, errors="replace")
        except OSError:
            continue
        if any(n and (n in text or n in text.casefold()) for n in needles):
            found.append(name)
    return found


def _followers(plan: ForgetPlan, everything: list[DayEntry]) -> set[str]:
    """The turn after each forgotten one in its session (a signal of it quotes what the agent did and said
    just before): from the archived transcript's order, else the order of the session's entries."""
    from ...transcript.parser import parse_transcript

    turns = set(plan.turns)
    order: dict[str, list[str]] = {}
    for path in plan.archives:
        if path.name.endswith(".jsonl.gz") and path.parent == paths.transcript_archive_dir():
            try:
                order[path.name[: -len(".jsonl.gz")]] = [t.uuid for t in parse_transcript(path, include_subagents=False).turns]
            except (OSError, ValueError):
                continue
    for entry in everything:
        if entry.session not in order and entry.turn:
            order.setdefault(f"md:{entry.session}", []).append(entry.turn)
    return {seq[n + 1] for seq in order.values() for n, turn in enumerate(seq[:-1]) if turn in turns} - turns


CONTEXT_PREFIXES = ("After: ", "Assistant: ")  # signals.detect: what the agent did and said before the prompt


def _signals_to_drop(root: Path, plan: ForgetPlan) -> list[tuple[Path, str]]:
    """Signals filed from the forgotten turns or quoting them: (file, id); a follower's signal is listed
    with a ``context:`` prefix: only its lines about the turn before go."""
    from ...signals import restated

    turns, sessions, phrases = set(plan.turns), plan.sessions, {p.casefold() for p in plan.phrases()}
    restating = restated.drawing_on(root, turns, sessions)
    found = []
    for path, lines, sig in signal_blocks(root):
        anchor = parse_anchor("\n".join(lines[sig.start:sig.end]))
        if (anchor and (anchor.turn in turns or anchor.session in sessions)) or sig.id in restating or any(
                p in _judged_text(sig, lines).casefold() for p in phrases):
            found.append((path, sig.id))
        elif anchor and anchor.turn in plan.followers:
            found.append((path, "context:" + sig.id))
    return found


def signal_blocks(root: Path) -> Iterator[tuple[Path, list[str], Any]]:
    """(file, its lines, one signal entry) for every signal of every signals file; an unreadable file is
    skipped here as ``forget`` always did (its signals cannot be read, so none is listed to drop)."""
    for path in paths.signal_files(root):
        try:
            lines = fsutil.read_text(path, errors="replace").split("\n")
        except OSError:
            continue
        for sig in read_id_entries(path, SIGNAL_LEVEL):
            yield path, lines, sig


def _judged_text(sig, lines: list[str]) -> str:
    """The signal's lines a forgotten phrase is looked for in. A restated preference a person decided
    (dismissed, promoted) keeps its decision: its ``restated_as`` quotes are cut to the prompts left
    (``restated._rescind``, after the prompts quoting the phrase are dropped), so only its other lines count."""
    block = lines[sig.start:sig.end]
    status = (sig.fields.get("status") or "captured").lower()
    if sig.fields.get("pattern") != "repetition" or status in ("captured", "analyzed"):
        return "\n".join(block)
    skip = range(*sig.field_lines.get("restated_as", (0, 0)))
    return "\n".join(line for n, line in enumerate(block, sig.start) if n not in skip)


def _archives_of(plan: ForgetPlan) -> list[Path]:
    from ...transcript.archive import archived_files

    sessions = plan.sessions | {e.session for e in plan.entries if e.session}
    found: list[Path] = []
    for session in sorted(sessions):
        try:
            found += archived_files(session)
        except UsageError:
            continue
    return found


def describe(plan: ForgetPlan, root: Path) -> list[str]:
    """What will be removed, one line each (no entry text: the person knows what they asked to forget)."""
    lines = [f"entry {e.path.relative_to(root).as_posix()}:{e.start + 1} ({e.title}, session {e.session[:8] or '-'})"
             for e in plan.entries]
    lines += [f"signal {sig}" if not sig.startswith("context:") else f"signal {sig[8:]}: its lines about the turn "
              "before" for _path, sig in plan.signals]
    whole = plan.sessions
    lines += [f"archived transcript {p.name}{' (whole)' if any(s in str(p) for s in whole) else ' (its turns)'}"
              for p in plan.archives]
    lines += [f"kept: {name} cites or quotes it (a decision you approved; `memdown reflect undo ID` takes it back)"
              for name in plan.kept]
    return lines


@dataclass
class ForgetReport:
    entries: int = 0
    signals: int = 0
    archives: int = 0
    vectors: int = 0
    index_files: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def forget(mem, plan: ForgetPlan) -> ForgetReport:
    """Remove everything ``plan`` lists (see the module doc); safe to run again."""
    root, report = mem.root, ForgetReport()
    when = datetime.now(timezone.utc)
    forgetting.note(root, plan.turns, plan.sessions)  # first: a Stop meanwhile records none of it again
    by_file: dict[Path, set] = {}
    for entry in plan.entries:
        by_file.setdefault(entry.path, set()).add(entry.key)
    for path, keys in by_file.items():
        report.entries += forgetting.remove_entries(root, path, keys, when)
    report.signals = _drop_signals(plan.signals)
    drop_from_state(root, set(plan.turns), plan.sessions | set(plan.turns.values()), plan.phrases(), plan.followers,
                    whole=plan.sessions)
    report.archives = _drop_archives(plan)
    touched = [*by_file, *dict.fromkeys(path for path, _sig in plan.signals)]
    report.vectors, report.index_files = purge_index(mem, touched)
    return report


def _drop_signals(signals: list[tuple[Path, str]]) -> int:
    by_file: dict[Path, list[str]] = {}
    for path, sig in signals:
        by_file.setdefault(path, []).append(sig)
    for path, ids in by_file.items():
        def change(text: str, ids: list[str] = ids) -> tuple[str, None]:
            for sig in ids:
                text = _without_context(text, sig[8:]) if sig.startswith("context:") else \
                    replace_entry(text, sig, SIGNAL_LEVEL, None)
            return text, None

        edit_file(path, change)
    return sum(1 for _path, sig in signals if not sig.startswith("context:"))


def _without_context(text: str, sig_id: str) -> str:
    """``text`` with the signal's lines about the turn before its prompt removed."""
    from ...store.entry_format import parse

    lines = text.split("\n")
    for sig in parse(text, SIGNAL_LEVEL)[0]:
        if sig.id == sig_id:
            lines[sig.start:sig.end] = [ln for ln in lines[sig.start:sig.end] if not ln.startswith(CONTEXT_PREFIXES)]
            break
    return "\n".join(lines)


def _drop_archives(plan: ForgetPlan) -> int:
    from ...transcript.archive import drop_from_archive

    turns = frozenset(plan.turns)
    changed = 0
    for path in plan.archives:
        if any(path.name.startswith(s) or s in path.parts for s in plan.sessions):
            fsutil.unlink(path)
            changed += 1
        elif drop_from_archive(path, turns):
            changed += 1
    for session in plan.sessions:
        folder = paths.transcript_archive_dir() / session
        if folder.is_dir() and not folder.is_symlink():
            shutil.rmtree(folder, ignore_errors=True)
    return changed


def purge_index(mem, files: list[Path]) -> tuple[int, int]:
    """Re-index ``files``, then make the bytes of what left them really gone: old LanceDB versions
    compacted and deleted, the full-text index rebuilt, the embedding cache's vectors of every chunk
    text no longer in those files dropped. (vectors dropped, files re-indexed)"""
    if not files or not paths.index_dir(mem.root).joinpath("meta.json").exists():
        return 0, 0
    from ...live.lifecycle import stop

    stop(mem.root)  # the live daemon holds the old table versions open; the next search starts a fresh one
    mem.ensure_index(refresh=False)
    sources = [p.relative_to(mem.root).as_posix() for p in files]
    before = {r["embed_hash"] for s in sources for r in mem.table.rows_for_source(s, vectors=False)}
    mem.index(list(files))
    after = {r["embed_hash"] for s in sources for r in mem.table.rows_for_source(s, vectors=False)}
    gone = sorted(h for h in before - after if h)
    dropped = 0
    cache = getattr(mem.embedder, "cache", None)
    if cache is not None and gone:
        dropped = forget_vectors(cache, mem.embedder.model_id, gone)
    purge_history(mem.table, FTS_OPTIONS)
    return dropped, len(files)


def purge_deleted(mem) -> int:
    """Entries a person deleted by hand (judged so in the healing ledger): forget the rest of them, as
    ``forget`` would (the markdown is already without them); how many turns."""
    plan = ForgetPlan()
    for ledger in written.ledgers(mem.root):
        path = written.day_file_of(mem.root, ledger)
        for w in written.load(mem.root, path).values():
            if w.deleted is not None and w.turn:
                plan.entries.append(DayEntry(path, -1, -1, "", w.session, w.turn, ""))
    if not plan.entries:
        return 0
    plan.archives = _archives_of(plan)
    plan.followers = _followers(plan, _all_entries(mem.root))
    plan.signals = _signals_to_drop(mem.root, plan)
    forgetting.note(mem.root, plan.turns, set())
    by_file: dict[Path, set[str]] = {}
    for entry in plan.entries:
        by_file.setdefault(entry.path, set()).add(entry.turn)
    for path, turns in by_file.items():
        with file_lock(file_lock_for(path), timeout=30):
            written.rewrite(mem.root, path, forget=turns)
    _drop_signals(plan.signals)
    drop_from_state(mem.root, set(plan.turns), set(plan.turns.values()), set(), plan.followers, whole=set())
    _drop_archives(plan)
    purge_index(mem, [p for p in [*by_file, *dict.fromkeys(path for path, _sig in plan.signals)] if p.exists()])
    return len(plan.entries)
