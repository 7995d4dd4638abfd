"""Recording a session's turns into the daily log (runs detached from hooks).

State per session (``state/sessions/<id>.json``) remembers which turns were
written, so the same turn is never summarized twice; the daily writer also
refuses a turn whose anchor is already in the file.

Which turns become entries is ``transcript.segments.plan_entries``: client-only
turns (``!cmd``, local slash commands) are marked done without an entry; empty
turns (only an API error, or interrupted before any work) wait and fold into
the next turn; a turn that only recalled memory is written to
``memory/recalls/`` as a pointer (kind ``recall``, hidden from default search),
so recalled facts never come back under a new date as if they were new.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ... import fsutil
from ... import paths
from ...config import Config
from ...fsutil import atomic_write_text, file_lock
from ...redact import should_skip
from ...store import forgetting
from ...store.daily import RECALL, SUMMARY, Entry, append_entry, heal_recent
from ...store.layout import init_layout
from ...transcript.archive import portable_path
from ...clients import parse_log
from ...transcript.render import local_time
from ...transcript.segments import plan_entries
from . import recorded_turns
from .summarize import summarize_unit

# Beyond this many unsummarized turns (a plugin installed mid-session, a
# crashed worker), older turns get the extractive summary to bound model calls.
MAX_MODEL_SUMMARIES = 3
# Extractive entries are cheap to redo: the done-state is saved at most this often while they are written.
SAVE_SECONDS = 1.0


@dataclass
class CaptureReport:
    written: int = 0
    duplicates: int = 0
    methods: dict[str, int] = field(default_factory=dict)
    skipped_session: bool = False
    client_only: int = 0      # `!cmd` and local slash-command turns: never memories
    waiting: int = 0          # empty turns held for the turn that follows them
    restored: int = 0         # entries lost in a race (an editor's or git's write) and written back
    copied: int = 0           # turns a fork or resume copied from a session that recorded them
    turns: int = 0            # turns not recorded before this run (copies included)
    prompts: int = 0          # turns in the transcript (recorded or not)
    held_back: int = 0        # the last turn, left for the session's own Stop (``include_last_turn=False``)
    left_out: dict[str, int] = field(default_factory=dict)  # prompts the client's reader left out, by reason


def _load_state(path: Path) -> dict:
    try:
        data = json.loads(fsutil.read_text(path))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _summarize(unit, config: Config, *, use_model: bool, cwd: str, last_message: str | None):
    """(bullets, method) for one unit; only the last ``MAX_MODEL_SUMMARIES`` units may ask the model."""
    return summarize_unit(
        unit,
        use_claude=config["summarizer.use_claude"] and use_model,
        model=config["summarizer.model"],
        timeout=config["summarizer.timeout_seconds"],
        cwd=cwd,
        last_message=last_message,
    )


def _new_turns(transcript, done: set[str], known: recorded_turns.RecordedTurns, session_id: str,
               forgotten: forgetting.Forgotten | None = None):
    """(turns to record, copies another session recorded or a person forgot): prompts not done yet, in order."""
    fresh = [t for t in transcript.turns if t.uuid and t.uuid not in done and t.prompt.strip()]
    copies = [t for t in fresh if known.copied_from(t, session_id)
              or (forgotten is not None and forgotten.covers(session_id, t.uuid))]
    copied = {t.uuid for t in copies}
    return [t for t in fresh if t.uuid not in copied], copies


def pending_unit_count(root: Path, transcript_path: Path, session_id: str) -> int:
    """How many entries ``record_session`` would write for a finished session now."""
    state = _load_state(paths.session_state_file(root, "sessions", session_id, ".json"))
    if state.get("skipped"):
        return 0
    transcript = parse_log(Path(transcript_path), include_subagents=False, session=session_id)
    turns, _copies = _new_turns(transcript, set(state.get("done", [])), recorded_turns.load(root), session_id)
    return len(plan_entries(turns, transcript.turns, final=True).units)


def record_session(
    root: Path,
    transcript_path: Path,
    session_id: str,
    *,
    config: Config,
    last_message: str | None = None,
    include_last_turn: bool = True,
    final: bool = False,
    model_summaries: int = MAX_MODEL_SUMMARIES,
) -> CaptureReport:
    """Summarize every finished, unrecorded turn of a session into the daily log.

    ``final`` (SessionEnd): empty turns still waiting for a next turn are written too.
    ``model_summaries``: how many of the last units may ask the model (``memdown import`` sets it).
    Turns another session already recorded (a fork's or resume's copy of its parent) are marked
    done without an entry (``recorded_turns``)."""
    report = CaptureReport()
    init_layout(root)
    # The done-list says which turns were summarized, not that their entries are still there:
    # an entry an editor's or git's write dropped comes back here (store.written decides).
    report.restored = len(heal_recent(root))
    state_path = paths.session_state_file(root, "sessions", session_id, ".json")
    with file_lock(state_path.with_suffix(".lock"), timeout=120):
        state = _load_state(state_path)
        if state.get("skipped"):
            report.skipped_session = True
            return report
        transcript = parse_log(Path(transcript_path), include_subagents=False, session=session_id)
        session_id = session_id or transcript.session_id
        if _opted_out(transcript, state, state_path):
            report.skipped_session = True
            return report
        done, known = set(state.get("done", [])), recorded_turns.load(root)
        turns, copies = _new_turns(transcript, done, known, session_id, forgetting.load(root))
        report.turns, report.copied, report.prompts = len(turns) + len(copies), len(copies), len(transcript.turns)
        report.left_out.update(transcript.left_out)
        done.update(t.uuid for t in copies)
        if turns and not include_last_turn and transcript.turns and turns[-1] is transcript.turns[-1]:
            turns, report.held_back = turns[:-1], 1  # may still be in progress (auto-compaction mid-turn)
        plan = plan_entries(turns, transcript.turns, final=final)
        report.client_only, report.waiting = len(plan.skipped), len(plan.pending)
        done.update(t.uuid for t in plan.skipped)
        portable = portable_path(Path(transcript_path))
        unsaved: list = []
        saved_at = time.monotonic()
        for n, unit in enumerate(plan.units):
            message = last_message if unit.turn is transcript.turns[-1] and include_last_turn else None
            use_model = len(plan.units) - n <= model_summaries
            bullets, method = _summarize(unit, config, use_model=use_model, cwd=transcript.cwd, last_message=message)
            _write_unit(root, unit, session_id, portable, bullets, method, report, transcript.agent, transcript.cwd)
            done.update(t.uuid for t in unit.turns)
            unsaved.extend(unit.turns)
            # Saved per model summary and every SAVE_SECONDS: a crash redoes that much, anchors skip it.
            if use_model or time.monotonic() - saved_at >= SAVE_SECONDS:
                _save(root, state_path, state, done, unsaved, session_id, known)
                unsaved, saved_at = [], time.monotonic()
        if unsaved or plan.skipped or copies:
            _save(root, state_path, state, done, unsaved, session_id, known)
    return report


_CITED_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "Read"})
LIVE_SECONDS = 3600  # a turn younger than this is captured from the working tree it left behind


def _citations(root: Path, unit, bullets: list[str], when: datetime, cwd: str) -> tuple[str, str]:
    """The anchor's commit and cites (services/recall/staleness.py); never fails a capture."""
    from ..recall.staleness import record, repository_of

    try:
        files = [str(call.input.get("file_path") or call.input.get("notebook_path"))
                 for turn in unit.turns for call in turn.tool_calls
                 if call.name in _CITED_TOOLS and (call.input.get("file_path") or call.input.get("notebook_path"))]
        live = (datetime.now() - when).total_seconds() < LIVE_SECONDS
        return record(repository_of(root), "\n".join(bullets), files, when, live=live, cwd=cwd)
    except Exception:  # a citation is a hint for recall; the entry matters more
        return "", ""


def _opted_out(transcript, state: dict, state_path: Path) -> bool:
    """A session with a "no memory" marker in any prompt is never recorded (remembered in its state)."""
    if not any(should_skip(t.prompt) for t in transcript.turns):
        return False
    state["skipped"] = True
    atomic_write_text(state_path, json.dumps(state), mode=paths.PRIVATE_FILE_MODE)
    return True


def _save(root: Path, state_path: Path, state: dict, done: set[str], turns: list, session_id: str,
          known: recorded_turns.RecordedTurns) -> None:
    """Persist the done-state and note ``turns`` in the cross-session registry."""
    recorded_turns.remember(root, turns, session_id, known)
    state["done"] = sorted(done)
    atomic_write_text(state_path, json.dumps(state), mode=paths.PRIVATE_FILE_MODE)


def _write_unit(root: Path, unit, session_id: str, portable: str, bullets: list[str], method: str,
                report: CaptureReport, agent: str = "", cwd: str = "") -> None:
    """Append one unit's entry on the day its turn happened (the turn's own timestamp)."""
    turn = unit.turn
    kind = RECALL if method == "recall" else SUMMARY
    when = local_time(turn.timestamp) or datetime.now()
    commit, cites = _citations(root, unit, bullets, when, cwd) if kind == SUMMARY else ("", "")
    entry = Entry(when, session_id, turn.uuid, portable, bullets, kind, agent, commit, cites)
    if append_entry(root, entry) is None:
        report.duplicates += 1
    else:
        report.written += 1
        report.methods[method] = report.methods.get(method, 0) + 1
