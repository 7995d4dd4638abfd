"""Repetition is memory, captured (issue 30 item 4): what one user restates across sessions becomes a signal.

Mining sees one session at a time, but "sem código ainda" added to prompt after prompt is a standing
preference only across them. So every mined prompt's own words (``clean.clean_prompt``: no code,
pastes or relayed replies; redacted) are kept in machine-local state (``state/prompts.jsonl``, 0600,
never committed), and after each mining ``repetition.repeated_instructions`` runs over them. An
instruction restated in ``MIN_PROMPTS`` or more prompts becomes one ``convention`` signal (pattern
``repetition``) in the user's own words and language, with ``restated`` (how many prompts) and
``restated_as`` (each wording, `` | ``-separated: a clause never holds ``|``). When the user restates
it again, that signal's count and quotes grow; a signal a person already decided is left alone.
Forgotten sessions and turns (``memdown forget``) are never read back and are dropped at the next rewrite.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from .. import fsutil, paths
from ..redact import redact
from . import store
from .clean import clean_prompt, looks_relayed
from .repetition import MAX_PROMPT_CHARS, MIN_PROMPTS, Repeated, repeated_instructions
from .store import Signal

PATTERN = "repetition"
KEPT = 4000            # prompts kept (the newest): enough for months of one project's history
SEPARATOR = " | "


def prompts_file(root: Path) -> Path:
    return paths.state_dir(root) / "prompts.jsonl"


def record(root: Path, rows: list[dict]) -> None:
    """Keep the user's own words of newly mined prompts (rows: session, turn, seen, transcript, text).
    The caller holds the mining lock."""
    lines = []
    for row in rows:
        raw = row.get("text") or ""
        if not raw.strip() or len(raw) > MAX_PROMPT_CHARS or looks_relayed(raw):
            continue
        own = " ".join(redact(clean_prompt(raw)).split("\n")).strip()
        if own:
            lines.append(json.dumps({**row, "text": own}, ensure_ascii=False))
    if lines:
        fsutil.append_bytes(prompts_file(root), ("\n".join(lines) + "\n").encode("utf-8"),
                            mode=paths.PRIVATE_FILE_MODE)


def load(root: Path) -> list[dict]:
    """The kept prompts, oldest first, without forgotten ones and without a turn seen twice."""
    return _load(root)[0]


def _load(root: Path) -> tuple[list[dict], int]:
    """(kept prompts, how many lines were forgotten)."""
    from ..store import forgetting

    try:
        text = fsutil.read_text(prompts_file(root))
    except OSError:
        return [], 0
    forgotten = forgetting.load(root)
    rows, seen, dropped = [], set(), 0
    for row in _rows(text):
        if not row.get("turn") or row["turn"] in seen:
            continue
        if forgotten.covers(str(row.get("session", "")), str(row["turn"])):
            dropped += 1
            continue
        seen.add(row["turn"])
        rows.append(row)
    return rows, dropped


def _rows(text: str):
    """Each kept prompt's row; a torn last line after a crash is skipped (the prompt is mined again only if
    its offset was not saved)."""
    for line in text.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            yield row


def drop(root: Path, turns: set[str], sessions: set[str], phrases: set[str]) -> int:
    """``memdown forget``: remove the kept prompts of those turns and sessions, and any quoting a forgotten
    phrase, now (not at the next mining). Returns how many were removed."""
    path = prompts_file(root)
    if not path.exists():
        return 0
    folded = {p.casefold() for p in phrases if p}
    with fsutil.file_lock(paths.lock_file(root, "mining"), timeout=30):
        lines = fsutil.read_text(path, errors="replace").splitlines(keepends=True)
        kept = []
        for line in lines:
            try:
                row = json.loads(line)
            except ValueError:
                row = {}
            if not isinstance(row, dict) or row.get("turn") in turns or row.get("session") in sessions \
                    or any(p in line.casefold() or p in str(row.get("text", "")).casefold() for p in folded):
                continue
            kept.append(line)
        if len(kept) != len(lines):
            fsutil.atomic_write_text(path, "".join(kept), mode=paths.PRIVATE_FILE_MODE)
            _rescind(root)
            refile(root)
    return len(lines) - len(kept)


def _rescind(root: Path) -> None:
    """A decided repetition signal's evidence, cut to the quotes the kept prompts still hold: a person's
    decision stays (a dismissed preference does not come back to the queue), a forgotten prompt's words go."""
    said = [_folded(row.get("text", "")) for row in load(root)]
    changes: dict[str, dict[str, object]] = {}
    for sig in store.load(root):
        if sig.pattern != PATTERN or sig.active or not sig.extra.get("restated_as"):
            continue
        quotes = restated(sig)[1]
        kept = [q for q in quotes if any(_folded(q) in prompt for prompt in said)]
        if kept != quotes:
            count = sum(1 for prompt in said if any(_folded(q) in prompt for q in kept))
            changes[sig.id] = {"restated": str(count) if kept else None, "restated_as": SEPARATOR.join(kept) or None}
    if changes:
        store.update(root, changes)


def refile(root: Path) -> list[Signal]:
    """What the kept prompts restate, filed as after a mining (new signals, grown counts): ``forget`` dropped
    the signals that quoted a forgotten prompt; a preference the other prompts still restate comes back in
    their words only. The caller holds the mining lock."""
    new, updates = restated_signals(root)
    if updates:
        store.update(root, updates, only_if_status=store.ACTIVE)
    return store.append(root, new) if new else []


def drawing_on(root: Path, turns: set[str], sessions: set[str]) -> set[str]:
    """Ids of the reviewable repetition signals that quote a kept prompt of these turns or sessions.
    ``memdown forget`` drops them whole, as any signal quoting a forgotten turn: a signal is anchored at its
    first prompt only, but its ``restated_as`` holds every prompt's words; ``drop`` files the preference
    again from the prompts left, if they still restate it ``MIN_PROMPTS`` times. One a person decided
    (dismissed, promoted) keeps its status and loses the forgotten words (``_rescind``)."""
    try:
        text = fsutil.read_text(prompts_file(root), errors="replace")
    except OSError:
        return set()
    said = [_folded(row.get("text", "")) for row in _rows(text)
            if row.get("turn") in turns or row.get("session") in sessions]
    if not said:
        return set()
    return {sig.id for sig in store.load(root) if sig.pattern == PATTERN and sig.active
            and any(_folded(quote) in prompt for quote in restated(sig)[1] for prompt in said)}


def _folded(text: object) -> str:
    """A prompt or a quote as they are compared: ``|`` as in a quote, runs of space as one, case folded."""
    return " ".join(str(text).replace("|", "/").split()).casefold()


def _trim(root: Path) -> list[dict]:
    """The kept prompts; the file is rewritten without forgotten ones and beyond the ``KEPT`` newest."""
    rows, dropped = _load(root)
    if len(rows) <= KEPT and not dropped:
        return rows
    rows = rows[-KEPT:]
    fsutil.atomic_write_text(prompts_file(root), "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                             mode=paths.PRIVATE_FILE_MODE)
    return rows


def restated_signals(root: Path) -> tuple[list[Signal], dict[str, dict[str, object]]]:
    """(new signals, updates to existing repetition signals) for what the user restated so far."""
    rows = _trim(root)
    by_turn = {r["turn"]: r for r in rows}
    found = repeated_instructions([(r["turn"], r["text"]) for r in rows], min_prompts=MIN_PROMPTS)
    existing = [s for s in store.load(root) if s.pattern == PATTERN]
    new: list[Signal] = []
    updates: dict[str, dict[str, object]] = {}
    for group in found:
        known = next((s for s in existing if s.turn in group.prompts or s.text == group.quote), None)
        fields = {"restated": str(group.count), "restated_as": SEPARATOR.join(_quotes(group))}
        if known is None:
            new.append(_signal(group, by_turn, fields))
        elif known.active and (known.extra.get("restated"), known.extra.get("restated_as")) != \
                (fields["restated"], fields["restated_as"]):
            updates[known.id] = fields
    return new, updates


def _quotes(group: Repeated) -> list[str]:
    return [q.replace("|", "/") for q in group.quotes]


def _signal(group: Repeated, by_turn: dict[str, dict], fields: dict[str, str]) -> Signal:
    first = by_turn[group.prompts[0]]
    sessions = {by_turn[p].get("session", "") for p in group.prompts}
    return Signal("convention", group.quote, 3, pattern=PATTERN, session=str(first.get("session", "")),
                  turn=str(first["turn"]), transcript=str(first.get("transcript", "")), seen=str(first.get("seen", "")),
                  corroboration=max(1, len(sessions)), extra=dict(fields))


def checked(root: Path, signals: list[Signal]) -> list[Signal]:
    """``signals`` with each repetition signal's evidence as this machine's kept prompts hold it.

    A signal file is committed: a repository can write ``restated: 9`` and quotes the user never typed, and
    a restated candidate goes first in the queue, at full confidence, past the "said once" hold, in its
    own words. So the count and quotes ``reflect`` shows are those of ``state/prompts.jsonl`` (local,
    0600): the kept prompts holding one of the signal's quotes, and its text (the rule ``promote`` writes
    unrephrased) must be one of them. A signal they do not support is an ordinary convention signal here
    (its claim dropped, in memory only; the file is left as it is)."""
    if not any(sig.pattern == PATTERN for sig in signals):
        return signals
    said = [_folded(row.get("text", "")) for row in load(root)]
    out = []
    for sig in signals:
        if sig.pattern == PATTERN and sig.extra.get("restated"):
            quotes = [q for q in restated(sig)[1] if any(_folded(q) in prompt for prompt in said)]
            own = any(_folded(sig.text) in prompt for prompt in said)   # the rule promote writes as it is
            count = sum(1 for prompt in said if any(_folded(q) in prompt for q in quotes)) if own else 0
            extra = {k: v for k, v in sig.extra.items() if k not in ("restated", "restated_as")}
            if count:
                extra.update(restated=str(count), restated_as=SEPARATOR.join(quotes))
            sig = replace(sig, extra=extra)
        out.append(sig)
    return out


def restated(sig: Signal) -> tuple[int, list[str]]:
    """(how many prompts restated it, each wording) for a repetition signal; (0, []) for any other."""
    if sig.pattern != PATTERN:
        return 0, []
    try:
        count = int(sig.extra.get("restated", "0"))
    except ValueError:
        count = 0
    quotes = [q.strip() for q in sig.extra.get("restated_as", "").split(SEPARATOR.strip()) if q.strip()]
    return count, quotes or [sig.text]
