"""Forks and resumes record once: turns copied from a parent session are not recorded again (issue #19, item 7)."""
from __future__ import annotations

import copy
import uuid
from pathlib import Path

from transcript_factory import TranscriptBuilder

from memdown.config import Config
from memdown.services.capture import recorded_turns
from memdown.services.capture.record import record_session
from memdown.store.daily import read_entries


def _config() -> Config:
    config = Config()
    config.values["summarizer"]["use_claude"] = False
    config.values["archive"]["enabled"] = False
    return config


def _anchors(root: Path) -> list[tuple[str, str]]:
    return [(e.anchor.session, e.anchor.turn) for p in sorted((root / "memory").rglob("*.md"))
            for e in read_entries(p) if e.anchor]


def _parent(tmp_path: Path) -> TranscriptBuilder:
    b = TranscriptBuilder()
    b.prompt("Pick a retry budget for the upload client")
    b.tool("Edit", {"file_path": "/work/project/upload.py", "old_string": "a", "new_string": "b"}, "ok")
    b.reply("Set the retry budget to 3 attempts in upload.py.")
    b.prompt("Now document it in the README")
    b.reply("Documented the retry budget in README.md.")
    return b


def _child(parent: TranscriptBuilder, *, fresh_uuids: bool) -> TranscriptBuilder:
    """A new session whose transcript starts with the parent's lines (a fork, or an old-style resume)."""
    child = TranscriptBuilder()
    for line in parent.lines:
        line = copy.deepcopy(line)
        line["sessionId"] = child.session_id
        if fresh_uuids:  # older clients re-logged history with fresh uuids (the API message ids stay)
            line["uuid"] = str(uuid.uuid4())
        child.lines.append(line)
    child.parent = child.lines[-1]["uuid"]
    child._minute = parent._minute
    child.prompt("Branch off: what about the download client?")
    child.reply("The download client keeps its budget of 5 attempts.")
    return child


def _record(root: Path, b: TranscriptBuilder, tmp_path: Path):
    return record_session(root, b.write(tmp_path / f"{b.session_id}.jsonl"), b.session_id, config=_config())


def test_a_fork_records_only_its_own_turn(tmp_path, memory_root):
    parent = _parent(tmp_path)
    assert _record(memory_root, parent, tmp_path).written == 2
    fork = _child(parent, fresh_uuids=False)
    report = _record(memory_root, fork, tmp_path)
    assert report.written == 1 and report.copied == 2
    anchors = _anchors(memory_root)
    assert len(anchors) == 3
    assert [s for s, _ in anchors].count(fork.session_id) == 1
    assert (fork.session_id, fork.turn_uuids[-1]) in anchors
    assert _record(memory_root, fork, tmp_path).written == 0  # and again: nothing


def test_a_resumed_session_with_fresh_uuids_records_only_its_new_turn(tmp_path, memory_root):
    parent = _parent(tmp_path)
    _record(memory_root, parent, tmp_path)
    resumed = _child(parent, fresh_uuids=True)
    report = _record(memory_root, resumed, tmp_path)
    assert report.written == 1, _anchors(memory_root)
    assert len(_anchors(memory_root)) == 3


def test_memory_recorded_before_the_registry_existed_still_stops_a_fork(tmp_path, memory_root):
    parent = _parent(tmp_path)
    _record(memory_root, parent, tmp_path)
    recorded_turns.registry_file(memory_root).unlink()  # an older memdown wrote the parent's entries
    fork = _child(parent, fresh_uuids=False)
    assert _record(memory_root, fork, tmp_path).written == 1
    assert len(_anchors(memory_root)) == 3


def test_a_session_of_its_own_is_never_mistaken_for_a_copy(tmp_path, memory_root):
    one, two = _parent(tmp_path), _parent(tmp_path)  # same words, different turns
    assert _record(memory_root, one, tmp_path).written == 2
    assert _record(memory_root, two, tmp_path).written == 2


def test_mining_a_fork_does_not_repeat_the_parents_signals(tmp_path, memory_root):
    from memdown.signals import store
    from memdown.signals.mining import mine_session

    config = _config()
    parent = TranscriptBuilder()
    parent.prompt("no, use pnpm not npm for installs in this repo")
    parent.reply("Switched to pnpm.")
    path = parent.write(tmp_path / f"{parent.session_id}.jsonl")
    first = mine_session(memory_root, path, parent.session_id, config=config)
    assert first, "the correction should be a signal"
    fork = _child(parent, fresh_uuids=False)
    fork_path = fork.write(tmp_path / f"{fork.session_id}.jsonl")
    again = mine_session(memory_root, fork_path, fork.session_id, config=config)
    assert not [s for s in again if s.turn == parent.turn_uuids[0]]
    assert len([s for s in store.load(memory_root) if s.turn == parent.turn_uuids[0]]) == len(first)


def test_mining_a_resume_with_fresh_uuids_does_not_repeat_the_parents_signals(tmp_path, memory_root):
    """Older clients re-logged the parent's history under fresh uuids (same API message ids): the uuid
    check cannot see the copy, the recorded-turns registry can."""
    from memdown.services.capture.signal_mining import mine_session
    from memdown.signals import store

    config = _config()
    config.values["mining"]["learned"] = False  # the phrase tables decide: no model to load here
    parent = TranscriptBuilder()
    parent.prompt("no, use pnpm not npm for installs in this repo")
    parent.reply("Switched to pnpm.")
    _record(memory_root, parent, tmp_path)  # the Stop hook's capture puts the turn in the registry
    first = mine_session(memory_root, tmp_path / f"{parent.session_id}.jsonl", parent.session_id, config=config)
    assert [s.type for s in first] == ["correction"]
    resumed = _child(parent, fresh_uuids=True)
    resumed.prompt("no, never commit the lockfile")
    resumed.reply("Understood.")
    path = resumed.write(tmp_path / f"{resumed.session_id}.jsonl")
    again = mine_session(memory_root, path, resumed.session_id, config=config)
    assert [s.text for s in again if s.type == "correction"] == ["no, never commit the lockfile"], again
    assert len([s for s in store.load(memory_root) if "pnpm" in s.text]) == 1
