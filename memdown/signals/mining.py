"""Mine a session transcript for signals, from where the last mining stopped.

``mine_session`` is what the PreCompact and SessionEnd hooks run (in their
detached worker). The mining point of every transcript file (main log and each
subagent log) is kept in ``state/mining.json`` under a lock, so nothing is
mined twice and a compaction loses nothing. That state keeps the last turn's words, so it
goes through ``redact_structure`` like every file memdown writes. Standard library plus
markdown-it-py; never lancedb/fastembed.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .. import fsutil
from .. import paths
from ..config import Config, memdown_disabled
from ..errors import MemdownError
from ..fsutil import atomic_write_text, file_lock
from ..redact import redact_structure
from . import store
from .detect import detect_turns, failed, find_fix, fix_text
from .store import Signal
from .text import content_tokens, containment, one_line

if TYPE_CHECKING:
    from ..transcript.model import Turn


def _state_path(root: Path) -> Path:
    return paths.state_dir(root) / "mining.json"


def read_state(root: Path) -> dict:
    try:
        data = json.loads(fsutil.read_text(_state_path(root)))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _key(path: Path) -> str:
    try:
        return str(Path(path).resolve())
    except OSError:
        return str(path)


def _portable(path: Path) -> str:
    try:
        from ..transcript.archive import portable_path

        return portable_path(path)
    except Exception:  # noqa: BLE001 - a path is better than nothing
        return str(path)


class _Prev:
    """The turn before a chunk: the mined state of the last turn plus any new tail work."""

    def __init__(self, last: dict, preamble) -> None:
        from ..transcript.parser import ToolCall

        tail = list(preamble.tool_calls) if preamble is not None else []
        earlier = int(last.get("tools", 0) or 0)
        self.tool_calls = [ToolCall(id="", name="(earlier)", input={}) for _ in range(earlier)] + tail
        texts = list(preamble.assistant_texts) if preamble is not None else []
        self.assistant_texts = texts or ([last["said"]] if last.get("said") else [])

    def assistant_text(self) -> str:
        return "\n\n".join(self.assistant_texts)


def _mine_file(path: Path, offset: int, last: dict, *, sidechain: bool, facts: list[str], adjust, classify=None,
               copied=None):
    from ..clients import parse_log

    try:
        size = path.stat().st_size
    except OSError:
        return [], offset, last, [], []
    if size < offset:  # replaced or truncated: start again (duplicates are filtered later)
        offset, last = 0, {}
    transcript = parse_log(path, start_offset=offset, include_subagents=False)
    found: list[Signal] = []
    calls: list = []
    preamble = transcript.preamble
    if preamble is not None and preamble.tool_calls:
        found.extend(detect_turns([preamble], is_sidechain=True))
        calls.extend(preamble.tool_calls)
    previous = _Prev(last, preamble) if last or preamble is not None else None
    found.extend(detect_turns(transcript.turns, previous=previous, facts=facts, adjust=adjust,
                              is_sidechain=sidechain, classify=None if sidechain else classify))
    for turn in transcript.turns:
        calls.extend(turn.tool_calls)
        for call in turn.tool_calls:  # when each call happened: a signal built from it is dated by it
            _CALL_TIMES[id(call)] = turn.timestamp
    for sub in transcript.subagents:  # inline sidechains (1.x / 2.0.x) share this file's offsets
        for turn in sub.turns:
            found.extend(detect_turns([turn], is_sidechain=True))
            calls.extend(turn.tool_calls)
    if transcript.turns:
        final = transcript.turns[-1]
        last = {"tools": len(final.tool_calls), "said": one_line(final.assistant_texts[-1], 300)
                if final.assistant_texts else ""}
    elif preamble is not None:
        last = {"tools": int(last.get("tools", 0) or 0) + len(preamble.tool_calls),
                "said": one_line(preamble.assistant_texts[-1], 300) if preamble.assistant_texts else last.get("said", "")}
    turns = transcript.turns
    if copied is not None:  # another session's turns re-logged here: their signals are already recorded
        skip = {t.uuid for t in turns if copied(t)}
        found = [sig for sig in found if sig.turn not in skip]
        turns = [t for t in turns if t.uuid not in skip]
    return found, transcript.end_offset, last, calls, [] if sidechain else _prompts(turns, previous)


def _prompts(turns: list, previous) -> list[tuple[str, str, str, str]]:
    """(uuid, prompt, the assistant's last text before it, when) for the optional classifier and repetition."""
    out = []
    said = previous.assistant_texts[-1] if previous is not None and previous.assistant_texts else ""
    for turn in turns:
        if turn.kind == "prompt":
            out.append((turn.uuid, turn.prompt, said, turn.timestamp or ""))
        if turn.assistant_texts:
            said = turn.assistant_texts[-1]
    return out


def _queue_semantic(root: Path, session_id: str, transcript: str, prompts: list, config: Config) -> None:
    if prompts:
        from .semantic import available, queue_prompts

        if available(config):
            queue_prompts(root, session_id, transcript, [p[:3] for p in prompts])


def _restated(root: Path, session_id: str, transcript: str, prompts: list[tuple[str, str, str, str]]) -> list[Signal]:
    """Keep the new prompts' own words; what the user has now restated often enough becomes (or grows) a signal."""
    from ..redact import should_skip
    from . import restated

    restated.record(root, [{"session": session_id, "turn": uuid, "seen": when, "transcript": transcript, "text": text}
                           for uuid, text, _said, when in prompts if text and not should_skip(text)])
    return restated.refile(root)


# id(ToolCall) → its turn's timestamp, for the calls of the mining in progress (cleared as each starts).
_CALL_TIMES: dict[int, str] = {}


def _fix_pairs(calls: list) -> list[tuple]:
    pairs = []
    for k, call in enumerate(calls):
        if failed(call):
            fix = find_fix(calls, k)
            if fix is not None:
                pairs.append((call, fix))
    return pairs


def _link_fixes(root: Path, session_id: str, transcript: str, calls: list, found: list[Signal]) -> list[Signal]:
    """Attach each fix (a later successful retry) to the matching failure signal, or add one."""
    pairs = _fix_pairs(calls)
    if not pairs:
        return []
    covered = {s.extra.get("input") for s in found if s.type == "repeated_failure"}
    failures = [s for s in store.load(root, types=("failure",)) if s.session == session_id and not s.extra.get("fix")]
    updates: dict[str, dict[str, object]] = {}
    new: list[Signal] = []
    for bad, fix in pairs:
        excerpt = bad.error_excerpt(300)
        want = content_tokens(excerpt)
        match = next((s for s in failures if s.id not in updates and s.extra.get("tool") == bad.name
                      and containment(want, content_tokens(s.text)) >= 0.5), None)
        if match is not None:
            updates[match.id] = {"fix": fix_text(fix)}
        elif one_line(bad.summary(), 200) not in covered:
            new.append(Signal("failure", excerpt, 1, pattern="tool.failure-fixed", tags=[bad.name],
                              session=session_id, transcript=transcript, seen=_CALL_TIMES.get(id(bad), ""),
                              extra={"tool": bad.name, "input": one_line(bad.summary(), 200),
                                     "fix": fix_text(fix)}))
    if updates:
        store.update(root, updates, signals=failures)
    return new


def _dedupe(root: Path, session_id: str, found: list[Signal]) -> list[Signal]:
    """Drop what an earlier mining already recorded: after a reset, or a fork's or resume's copy
    of its parent's turns (turn uuids are unique across sessions, so the key ignores the session)."""
    existing = {(s.turn, s.type) for s in store.load(root) if s.turn}
    out, seen = [], set()
    for sig in found:
        key = (sig.turn, sig.type) if sig.turn else None
        if key and (key in existing or key in seen):
            continue
        if key:
            seen.add(key)
        out.append(sig)
    return out


def mine_session(root: Path, transcript_path: Path, session_id: str, *, config: Config,
                 facts: Sequence[str] = (), adjust: Callable[[str, str], int] | None = None,
                 classify=None, copied: Callable[[Turn], bool] | None = None) -> list[Signal]:
    """Detect signals since the stored mining point; write and return them. From services.capture.signal_mining:
    ``facts``, ``adjust``, ``classify`` (the learned detector; None: phrase tables decide), ``copied`` (a
    turn re-logged here under fresh uuids, which ``_dedupe``'s uuid check cannot see)."""
    root = Path(root)
    if not config["mining.enabled"] or memdown_disabled():
        return []
    transcript_path = Path(transcript_path)
    if not transcript_path.exists():
        return []
    with file_lock(paths.lock_file(root, "mining"), timeout=30):
        state = read_state(root)
        _CALL_TIMES.clear()
        files = state.setdefault("files", {})
        found: list[Signal] = []
        calls: list = []
        prompts: list[tuple[str, str, str, str]] = []
        targets = [(transcript_path, False)]
        try:
            from ..transcript.layout import subagent_files

            targets += [(p, True) for p in subagent_files(transcript_path, session_id)]
        except MemdownError:
            pass
        results: dict[str, dict] = {}
        main_error: MemdownError | None = None
        for path, sidechain in targets:
            key = _key(path)
            entry = files.get(key, {})
            try:
                sigs, end, last, file_calls, file_prompts = _mine_file(path, int(entry.get("offset", 0) or 0), entry.get("last", {}),
                                                         sidechain=sidechain, facts=list(facts), adjust=adjust,
                                                         classify=classify, copied=copied)
            except MemdownError as exc:
                if not sidechain:
                    main_error = exc
                continue
            found.extend(sigs)
            calls.extend(file_calls)
            prompts.extend(file_prompts)
            results[key] = {"offset": end, "last": last, "session": session_id}
        portable = _portable(transcript_path)
        for sig in found:
            sig.session = session_id
            sig.transcript = portable
        found = _dedupe(root, session_id, found)
        found.extend(_link_fixes(root, session_id, portable, calls, found))
        written = store.append(root, found) if found else []
        _queue_semantic(root, session_id, portable, prompts, config)
        written += _restated(root, session_id, portable, prompts)
        files.update(results)
        atomic_write_text(_state_path(root), json.dumps(redact_structure(state), indent=1), mode=paths.PRIVATE_FILE_MODE)
    if main_error is not None and not written:
        raise main_error
    return written

