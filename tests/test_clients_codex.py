"""Codex CLI rollouts as memdown's one transcript model (memdown/clients/), and what capture makes of them."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from memdown.clients import client_of, codex, parse_log

SESSION = "01a21e05-2081-7fe1-a9d5-e422caac3e47"
TURN = "01a21e05-209c-7661-8460-28dfa4df89d6"


def _line(stamp: str, kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload})


def rollout_0171(tmp_path: Path, prompt: str = "run the tests", cwd: str = "/work/proj") -> Path:
    """The line shapes Codex CLI 0.171.0 wrote in a real `codex exec` run (no user_message events)."""
    lines = [
        _line("2026-11-27T17:19:42.217Z", "session_meta", {"id": SESSION, "timestamp": "2026-11-27T17:19:42.217Z",
                                                            "cwd": cwd, "originator": "codex_exec",
                                                            "cli_version": "0.171.0", "source": "exec"}),
        _line("2026-11-27T17:19:42.300Z", "event_msg", {"type": "task_started", "turn_id": TURN}),
        _line("2026-11-27T17:19:42.301Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>"}]}),
        _line("2026-11-27T17:19:42.302Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": prompt}]}),
        _line("2026-11-27T17:19:42.303Z", "event_msg", {"type": "item_completed", "turn_id": TURN, "item": {
            "type": "UserMessage", "content": [{"type": "text", "text": prompt}]}}),
        _line("2026-11-27T17:19:42.400Z", "response_item", {"type": "function_call", "name": "exec_command",
                                                             "arguments": json.dumps({"cmd": "pytest -q"}),
                                                             "call_id": "call_1"}),
        _line("2026-11-27T17:19:42.500Z", "response_item", {"type": "function_call_output", "call_id": "call_1",
                                                             "output": "Chunk ID: 2a\nProcess exited with code 1\n"
                                                                       "Output:\nE   AssertionError\n"}),
        _line("2026-11-27T17:19:42.600Z", "response_item", {"type": "custom_tool_call", "name": "apply_patch",
                                                             "call_id": "call_2", "input": "*** Begin Patch\n"
                                                             "*** Update File: src/app.py\n@@\n-a\n+b\n"
                                                             "*** Add File: tests/test_new.py\n+x\n*** End Patch"}),
        _line("2026-11-27T17:19:42.700Z", "response_item", {"type": "custom_tool_call_output", "call_id": "call_2",
                                                             "output": json.dumps({"output": "Success.",
                                                                                   "metadata": {"exit_code": 0}})}),
        _line("2026-11-27T17:19:42.800Z", "response_item", {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Fixed the retry budget; tests pass."}]}),
        _line("2026-11-27T17:19:42.900Z", "event_msg", {"type": "task_complete", "turn_id": TURN}),
    ]
    path = tmp_path / "sessions" / "2026" / "11" / "27" / f"rollout-2026-11-27T17-19-42-{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_0171_rollout_is_one_turn_with_its_commands_files_and_errors(tmp_path: Path) -> None:
    path = rollout_0171(tmp_path)
    assert client_of(path) == "codex"
    transcript = parse_log(path)
    assert (transcript.agent, transcript.session_id, transcript.cwd, transcript.version) == (
        "codex", SESSION, "/work/proj", "0.171.0")
    [turn] = transcript.turns  # the injected <environment_context> and the prompt's echo are not prompts
    assert (turn.uuid, turn.prompt, turn.timestamp) == (TURN, "run the tests", "2026-11-27T17:19:42.303Z")
    assert turn.commands() == ["pytest -q"]
    assert turn.files_touched() == ["src/app.py", "tests/test_new.py"]
    assert [c.name for c in turn.tool_calls] == ["Bash", "Edit", "Write"]
    assert turn.errors() and "AssertionError" in turn.errors()[0]
    assert turn.assistant_text() == "Fixed the retry budget; tests pass."


def test_older_rollouts_take_user_message_events_and_argv_shell_calls(tmp_path: Path) -> None:
    lines = [
        _line("2025-10-31T19:02:58Z", "session_meta", {"id": "c617", "cwd": "/p", "cli_version": "0.34.0"}),
        _line("2025-10-31T19:03:00Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<user_instructions>be brief</user_instructions>"}]}),
        _line("2025-10-31T19:03:00Z", "event_msg", {"type": "user_message", "message": "list files"}),
        _line("2025-10-31T19:03:01Z", "response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                                                         "arguments": json.dumps({"command": ["bash", "-lc", "ls -la"]})}),
        _line("2025-10-31T19:03:02Z", "response_item", {"type": "function_call_output", "call_id": "c1", "output":
                                                         json.dumps({"output": "x", "metadata": {"exit_code": 0}})}),
        _line("2025-10-31T19:03:03Z", "event_msg", {"type": "user_message", "message": "and again"}),
    ]
    path = tmp_path / "rollout-old.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    turns = parse_log(path).turns
    assert [t.prompt for t in turns] == ["list files", "and again"]
    assert turns[0].commands() == ["ls -la"] and not turns[0].errors()
    assert turns[0].uuid != turns[1].uuid


def test_a_subagent_rollout_has_no_typed_prompts(tmp_path: Path) -> None:
    path = tmp_path / "rollout-sub.jsonl"
    path.write_text("\n".join([
        _line("2026-01-01T00:00:00Z", "session_meta", {"id": "s", "cwd": "/p", "source": {"subagent": {"other": "x"}}}),
        _line("2026-01-01T00:00:01Z", "event_msg", {"type": "user_message", "message": "written by the parent"}),
    ]) + "\n", encoding="utf-8")
    assert parse_log(path).turns == []


def test_a_claude_code_transcript_still_goes_to_its_own_parser(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
                                "message": {"role": "user", "content": "hello"}}) + "\n", encoding="utf-8")
    transcript = parse_log(path)
    assert client_of(path) == "claude-code" and transcript.agent == ""
    assert [t.prompt for t in transcript.turns] == ["hello"]


def test_capture_names_the_agent_in_the_session_heading(tmp_path: Path, memory_root: Path) -> None:
    from memdown.config import load_config
    from memdown.services.capture.record import record_session

    path = rollout_0171(tmp_path)
    config = load_config(memory_root)
    config.values["summarizer"]["use_claude"] = False
    report = record_session(memory_root, path, SESSION, config=config, final=True)
    assert report.written == 1
    [day] = sorted((memory_root / "memory").glob("*.md"))
    text = day.read_text(encoding="utf-8")
    assert re.search(r"^## Session \d\d:\d\d \(codex\)$", text, re.M), text
    assert f"session:{SESSION} turn:{TURN}" in text
    again = record_session(memory_root, path, SESSION, config=config, final=True)
    assert again.written == 0  # the same turn is never written twice


@pytest.mark.shared
def test_every_real_codex_log_brings_in_every_typed_prompt(shared_agents: Path) -> None:
    """README.md's table counts each file's typed prompts (event_msg/user_message; legacy: user messages minus
    injected context). The parser finds exactly that many turns in every Codex log there."""
    table = (shared_agents / "README.md").read_text(encoding="utf-8")
    expected = {m[1]: int(m[2]) for m in re.finditer(r"^\| codex \| (\S+) \| (\d+) \|", table, re.M)}
    assert len(expected) >= 10
    found = {rel: len(parse_log(shared_agents / "codex" / rel).turns) for rel in expected}
    assert found == expected
    assert all(client_of(shared_agents / "codex" / rel) == codex.AGENT for rel in expected)


AGENTS_DAY = """\
# 2026-03-14

## Session 09:12 (codex)

### 09:40
<!-- session:sess-cx turn:t-1 transcript:~/.codex/sessions/a.jsonl -->
- Redis cache ttl fixed in the quotes service.

## Session 10:00

### 10:05
<!-- session:sess-cc turn:t-2 transcript:/tmp/b.jsonl -->
- Redis connection pool raised to 50.

## Session 09:12 (codex) (continued)

### 10:30
<!-- session:sess-cx turn:t-3 transcript:~/.codex/sessions/a.jsonl -->
- Redis eviction policy set to allkeys-lru.
"""


@pytest.mark.parametrize("mode", ["text", "hybrid"])
def test_search_filters_by_agent(memory_root: Path, mode: str) -> None:
    from conftest import FakeEmbedder
    from memdown import paths
    from memdown.api import Memory
    from memdown.errors import UsageError

    mem = Memory.open(memory_root, embedder=FakeEmbedder())
    mem.init()
    paths.daily_file(memory_root, "2026-03-14").write_text(AGENTS_DAY)
    mem.index()
    codex_turns = {h.turn for h in mem.search("redis", agent="codex", mode=mode, k=10)}
    claude_turns = {h.turn for h in mem.search("redis", agent="claude-code", mode=mode, k=10)}
    everything = {h.turn for h in mem.search("redis", mode=mode, k=10)}
    assert (codex_turns, claude_turns, everything) == ({"t-1", "t-3"}, {"t-2"}, {"t-1", "t-2", "t-3"})
    assert mem.search("redis", agent="gemini", mode=mode) == []
    with pytest.raises(UsageError):
        mem.search("redis", agent="x' OR 1=1 --", mode=mode)


def test_import_brings_in_this_projects_codex_sessions_once(tmp_path: Path, memory_root: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from memdown.config import load_config
    from memdown.services.capture.importer import import_transcripts, survey

    project = memory_root.parent
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    ours = rollout_0171(home, prompt="fix the upload retry", cwd=str(project))
    other = home / "sessions" / "2026" / "11" / "27" / "rollout-2026-11-27T18-00-00-x.jsonl"
    other.write_text(ours.read_text().replace(str(project), "/elsewhere").replace(SESSION, "other-session"))
    for path in (ours, other):  # finished sessions (a rollout written in the last 10 minutes may be live)
        os.utime(path, (1_700_000_000, 1_700_000_000))
    found = survey([], cwd=project, root=memory_root)
    assert found.transcripts == [ours]
    assert any(p == other and "another project" in why for p, why in found.skipped)
    config = load_config(memory_root)
    first = import_transcripts(memory_root, found, config=config, index=False)
    assert (first.sessions, first.imported, first.turns, first.entries) == (1, 1, 1, 1)
    text = "".join(p.read_text() for p in (memory_root / "memory").glob("*.md"))
    assert f"session:{SESSION} turn:{TURN}" in text and "(codex)" in text
    again = import_transcripts(memory_root, survey([], cwd=project, root=memory_root), config=config, index=False)
    assert (again.sessions, again.already_imported, again.turns, again.entries) == (1, 1, 0, 0)


@pytest.mark.shared
def test_import_of_every_real_codex_log_brings_in_every_session_with_a_typed_prompt(
        shared_agents: Path, memory_root: Path) -> None:
    from memdown.config import load_config
    from memdown.services.capture.importer import import_transcripts, survey

    table = (shared_agents / "README.md").read_text(encoding="utf-8")
    expected = {m[1]: int(m[2]) for m in re.finditer(r"^\| codex \| (\S+) \| (\d+) \|", table, re.M)}
    found = survey([shared_agents / "codex"], cwd=memory_root.parent, root=memory_root)
    assert sorted(found.transcripts) == sorted(shared_agents / "codex" / rel for rel in expected), found.skipped
    report = import_transcripts(memory_root, found, config=load_config(memory_root), index=False)
    assert (report.sessions, report.imported, report.turns) == (len(expected), len(expected), sum(expected.values()))
    assert report.entries > 0 and not report.errors
    again = import_transcripts(memory_root, survey([shared_agents / "codex"], cwd=memory_root.parent,
                                                   root=memory_root), config=load_config(memory_root), index=False)
    assert (again.already_imported, again.turns, again.entries) == (len(expected), 0, 0)


def test_the_transcript_command_reads_a_codex_rollout_by_its_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys

    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    path = rollout_0171(home)
    run = subprocess.run([sys.executable, "-m", "memdown", "transcript", str(path), "--turn", "last"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "run the tests" in run.stdout and "pytest -q" in run.stdout
    outside = tmp_path / "elsewhere" / path.name
    outside.parent.mkdir()
    outside.write_text(path.read_text())
    refused = subprocess.run([sys.executable, "-m", "memdown", "transcript", str(outside)], capture_output=True, text=True)
    assert refused.returncode != 0 and "outside" in refused.stderr
