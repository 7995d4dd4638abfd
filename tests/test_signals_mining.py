"""Mining transcripts: incremental offsets, compaction, capture toggle, fixes, real transcripts."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdown.config import load_config
from memdown.errors import InputFileError
from memdown.learning.fixes import record_failure
from memdown.services.capture.signal_mining import mine_session
from memdown.signals import store
from memdown.signals.mining import read_state
from transcript_factory import TranscriptBuilder


def session_with_corrections(tb: TranscriptBuilder) -> None:
    tb.prompt("add a script to install the deps")
    tb.tool("Bash", {"command": "npm install"}, "added 120 packages")
    tb.reply("Installed with npm.")
    tb.prompt("no, use pnpm not npm")
    tb.tool("Bash", {"command": "pnpm install"}, "Done in 2.1s")
    tb.tool("Edit", {"file_path": "README.md", "old_string": "npm", "new_string": "pnpm"}, "ok")
    tb.reply("Switched to pnpm.")
    tb.prompt("perfect, thanks! also remember that the staging db is read-only")


def test_mines_once_and_only_new_turns(memory_root, tmp_path):
    tb = TranscriptBuilder(session_id="sess-a")
    session_with_corrections(tb)
    path = tb.write(tmp_path / "sess-a.jsonl")
    first = mine_session(memory_root, path, "sess-a", config=load_config(memory_root))
    assert sorted(s.type for s in first) == ["correction", "memory_request", "positive"]
    corr = next(s for s in first if s.type == "correction")
    assert corr.text == "no, use pnpm not npm" and corr.confidence == 3
    assert corr.session == "sess-a" and corr.turn == tb.turn_uuids[1]
    assert "After: Bash: npm install" in corr.context
    assert mine_session(memory_root, path, "sess-a", config=load_config(memory_root)) == []  # nothing is mined twice
    state = read_state(memory_root)
    assert list(state["files"].values())[0]["offset"] == path.stat().st_size
    # the session goes on: only the new turn is mined
    tb.tool("Bash", {"command": "pnpm test"}, "ok")
    tb.reply("Tests pass.")
    tb.prompt("stop using var in the new files")
    tb.write(path)
    second = mine_session(memory_root, path, "sess-a", config=load_config(memory_root))
    assert [(s.type, s.text) for s in second] == [("correction", "stop using var in the new files")]
    assert len(store.load(memory_root)) == 4


def test_compaction_between_minings_loses_nothing(memory_root, tmp_path):
    tb = TranscriptBuilder(session_id="sess-c")
    tb.prompt("fix the login form")
    tb.tool("Edit", {"file_path": "login.py"}, "ok")
    tb.reply("Fixed.")
    tb.prompt("actually, we don't use jquery anymore")
    path = tb.write(tmp_path / "sess-c.jsonl")
    before = mine_session(memory_root, path, "sess-c", config=load_config(memory_root))  # PreCompact
    tb.lines.append({"type": "system", "subtype": "compact_boundary", "uuid": "cb", "parentUuid": None,
                     "sessionId": "sess-c", "timestamp": "2026-11-20T11:00:00Z"})
    tb._entry("user", {"role": "user", "content": "This session is being continued from a previous conversation..."},
              isCompactSummary=True)
    tb.reply("Continuing.")
    tb.prompt("in this repo we always use type hints")
    tb.write(path)
    after = mine_session(memory_root, path, "sess-c", config=load_config(memory_root))  # SessionEnd
    assert [s.type for s in before] == ["correction"]
    assert [s.type for s in after] == ["convention"]


def test_hook_injected_attachments_and_subagent_prompts_are_not_mined(memory_root, tmp_path):
    tb = TranscriptBuilder(session_id="sess-h")
    tb.prompt("list the files")
    tb.tool("Bash", {"command": "ls"}, "a b")
    tb.reply("Two files.")
    tb.lines.append({"type": "attachment", "uuid": "att1", "parentUuid": tb.parent, "sessionId": "sess-h",
                     "attachment": {"type": "hook_additional_context",
                                    "content": ["No, that's wrong. Always use pnpm, never npm. Remember that."]}})
    tb.lines.append({"type": "user", "uuid": "side1", "parentUuid": None, "isSidechain": True, "sessionId": "sess-h",
                     "timestamp": "2026-11-20T10:30:00Z",
                     "message": {"role": "user", "content": "No, that's wrong: stop using npm, always use pnpm."}})
    tb.prompt("thanks, what's next?")
    path = tb.write(tmp_path / "sess-h.jsonl")
    assert mine_session(memory_root, path, "sess-h", config=load_config(memory_root)) == []


def test_capture_off_and_disable_env_are_no_ops(memory_root, tmp_path, monkeypatch):
    tb = TranscriptBuilder(session_id="sess-o")
    session_with_corrections(tb)
    path = tb.write(tmp_path / "sess-o.jsonl")
    monkeypatch.setenv("MEMDOWN_MINING_ENABLED", "false")
    assert mine_session(memory_root, path, "sess-o", config=load_config(memory_root)) == []
    monkeypatch.delenv("MEMDOWN_MINING_ENABLED")
    monkeypatch.setenv("MEMDOWN_DISABLE", "1")
    assert mine_session(memory_root, path, "sess-o", config=load_config(memory_root)) == []
    assert not (memory_root / "signals").exists()


def test_bad_transcripts_give_a_typed_one_line_error_and_write_nothing(memory_root, tmp_path):
    garbage = tmp_path / "bad.jsonl"
    garbage.write_bytes(b"\x00\x01 not json at all\n{broken")
    with pytest.raises(InputFileError) as info:  # typed: the hook layer reports it in one line
        mine_session(memory_root, garbage, "bad", config=load_config(memory_root))
    assert "\n" not in info.value.one_line() and "bad.jsonl" in info.value.one_line()
    assert mine_session(memory_root, tmp_path / "missing.jsonl", "x", config=load_config(memory_root)) == []
    assert not (memory_root / "signals").exists()


def test_mining_links_a_fix_to_the_recorded_failure(memory_root, tmp_path):
    memory_root.mkdir(parents=True)
    error = "Exit code 1\nModuleNotFoundError: No module named 'memdown'"
    sig = record_failure(memory_root, load_config(memory_root), session_id="sess-f", tool_name="Bash", tool_input={"command": "pytest -q"},
                         error=error)
    assert sig is not None and sig.type == "failure" and "ModuleNotFoundError" in sig.text
    tb = TranscriptBuilder(session_id="sess-f")
    tb.prompt("run the tests")
    tb.tool("Bash", {"command": "pytest -q"}, error, is_error=True)
    tb.tool("Bash", {"command": "pytest -q --import-mode=importlib"}, "12 passed")
    tb.reply("All green.")
    path = tb.write(tmp_path / "sess-f.jsonl")
    mine_session(memory_root, path, "sess-f", config=load_config(memory_root))
    linked = store.get(memory_root, sig.id)
    assert linked.extra["fix"] == "Bash `pytest -q --import-mode=importlib`"
    assert [s.type for s in store.load(memory_root)] == ["failure"]  # linked, not duplicated


@pytest.mark.shared
def test_real_transcript_memory_requests_and_no_hook_noise(memory_root, shared_transcripts: Path):
    eduardo = next(shared_transcripts.glob("real/eduardodmb-ClaudeHome/*/a572bd87-*.jsonl"))
    found = mine_session(memory_root, eduardo, "a572bd87", config=load_config(memory_root))
    requests = [s for s in found if s.type == "memory_request"]
    assert len(requests) == 2
    assert any("Odoo_Docker" in s.text for s in requests)
    assert any(s.type == "correction" and "gruped" in s.text for s in found)
    # other memory plugins' hook output sits in attachment entries: nothing mined from it
    opencore = next(shared_transcripts.glob("real/austinweitao-claude-backup/-home-cwtrocks-OpenCoreAnalysisKit/*.jsonl"))
    phrase = {"correction", "convention", "positive", "memory_request", "revert", "command"}
    assert not [s for s in mine_session(memory_root, opencore, "5ea5e99e", config=load_config(memory_root)) if s.type in phrase]
    text = "\n".join(p.read_text() for p in (memory_root / "signals").glob("*.md"))
    assert "transcript:" in text
    assert json.dumps(str(Path.home()))[1:-1] not in text or str(Path.home()) == "/"


def test_mining_is_told_what_the_agent_already_knows(memory_root, tmp_path):
    """The service hands the learnings' lines to mining: a question they answer is missing context."""
    memory_root.mkdir(parents=True, exist_ok=True)
    (memory_root / "learnings.md").write_text(
        "# Learnings\n\n- The staging database is read-only; use the replica for writes in tests.\n")
    tb = TranscriptBuilder(session_id="sess-k")
    tb.prompt("set up the integration tests")
    tb.reply("Done. Should I write to the staging database or the replica in tests?")
    tb.prompt("ok go on")
    found = mine_session(memory_root, tb.write(tmp_path / "sess-k.jsonl"), "sess-k", config=load_config(memory_root))
    missing = [s for s in found if s.type == "missing_context"]
    assert missing and "replica" in missing[0].context
