"""Gemini CLI, Copilot CLI, Cursor and OpenCode session logs as memdown's one transcript model, and their import."""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest

from memdown.clients import client_of, kind_of, parse_log

CLIENTS = ("gemini", "copilot", "cursor", "opencode")
OLD = (1_700_000_000, 1_700_000_000)  # a finished session (a log written in the last 10 minutes may be live)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, OLD)
    return path


def gemini_chat(folder: Path, prompt: str = "why does the upload retry fail") -> Path:
    document = {"sessionId": "c2b846da-8501-4aeb-a58f-294205eb5ed4", "projectHash": "ab", "startTime":
                "2026-03-01T10:00:00.000Z", "messages": [
                    {"id": "u1", "timestamp": "2026-03-01T10:00:01.000Z", "type": "user",
                     "content": [{"text": prompt}, {"text": "--- Content from referenced files ---"}],
                     "displayContent": prompt},
                    {"id": "i1", "timestamp": "2026-03-01T10:00:02.000Z", "type": "info", "content": "update available"},
                    {"id": "g1", "timestamp": "2026-03-01T10:00:03.000Z", "type": "gemini",
                     "content": "The retry budget is zero.", "toolCalls": [
                         {"id": "s1", "name": "run_shell_command", "args": {"command": "pytest -q"},
                          "status": "error", "result": [{"functionResponse": {"id": "s1", "name": "run_shell_command",
                                                                              "response": {"output": "E  AssertionError"}}}]},
                         {"id": "r1", "name": "replace", "args": {"file_path": "src/upload.py", "old_string": "0"},
                          "status": "success", "result": []}]},
                    {"id": "u2", "timestamp": "2026-03-01T10:01:00.000Z", "type": "user",
                     "content": "<session_context>injected</session_context>"}]}
    return _write(folder / "chats" / "session-2026-03-01T10-00-c2b846da.json", json.dumps(document, indent=2))


def test_a_gemini_chat_is_its_typed_prompts_with_replies_calls_and_errors(tmp_path: Path) -> None:
    path = gemini_chat(tmp_path / "tmp" / "proj")
    _write(path.parent.parent / ".project_root", "/work/proj\n")
    assert kind_of(path) == ("gemini", "chat-json")
    transcript = parse_log(path)
    assert (transcript.agent, transcript.session_id, transcript.cwd) == ("gemini", "c2b846da-8501-4aeb-a58f-294205eb5ed4",
                                                                         "/work/proj")
    [turn] = transcript.turns  # the <session_context> injection is not a prompt
    assert (turn.prompt, turn.timestamp) == ("why does the upload retry fail", "2026-03-01T10:00:01.000Z")
    assert turn.commands() == ["pytest -q"] and turn.files_touched() == ["src/upload.py"]
    assert turn.errors() and "AssertionError" in turn.errors()[0]
    assert turn.assistant_text() == "The retry budget is zero."


def test_a_gemini_jsonl_chat_folds_updates_by_id_and_applies_set(tmp_path: Path) -> None:
    lines = [{"sessionId": "s1", "projectHash": "ab", "startTime": "2026-04-25T08:46:12Z", "kind": "main"},
             {"id": "u1", "timestamp": "2026-04-25T08:47:43Z", "type": "user", "content": [{"text": "push it"}]},
             {"id": "g1", "timestamp": "2026-04-25T08:47:47Z", "type": "gemini", "content": "I will check."},
             {"$set": {"lastUpdated": "2026-04-25T08:48:00Z"}},
             {"id": "g1", "timestamp": "2026-04-25T08:47:47Z", "type": "gemini", "content": "I will check.",
              "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "git push"},
                             "status": "success"}]}]
    path = _write(tmp_path / "session-x.jsonl", "\n".join(json.dumps(line) for line in lines) + "\n")
    assert client_of(path) == "gemini"
    [turn] = parse_log(path).turns
    assert turn.prompt == "push it" and turn.commands() == ["git push"] and turn.assistant_texts == ["I will check."]


def copilot_log(tmp_path: Path) -> Path:
    """A Copilot CLI 1.0.x events.jsonl: one typed prompt, a failing command, one empty client nudge."""
    def event(kind: str, data: dict, n: int) -> str:
        return json.dumps({"type": kind, "data": data, "id": f"e{n}", "timestamp": f"2026-04-04T01:13:{n:02d}Z"})
    lines = [event("session.start", {"sessionId": "a159", "copilotVersion": "1.0.14",
                                     "context": {"cwd": "/work/proj"}}, 1),
             event("user.message", {"content": "fix the build\n\n<current_datetime>x</current_datetime>"}, 2),
             event("assistant.message", {"content": "Running it.", "toolRequests": [
                 {"toolCallId": "t1", "name": "bash", "arguments": {"command": "make"}}]}, 3),
             event("tool.execution_complete", {"toolCallId": "t1", "success": False,
                                               "result": {"content": "make: *** Error 2"}}, 4),
             event("user.message", {"content": "", "transformedContent": "You have not yet marked the task"}, 5)]
    path = _write(tmp_path / "a159" / "events.jsonl", "\n".join(lines) + "\n")
    return path


def test_copilot_events_take_user_messages_not_client_nudges(tmp_path: Path) -> None:
    path = copilot_log(tmp_path)
    transcript = parse_log(path)
    assert (transcript.agent, transcript.session_id, transcript.cwd, transcript.version) == (
        "copilot", "a159", "/work/proj", "1.0.14")
    [turn] = transcript.turns
    assert turn.prompt == "fix the build" and turn.commands() == ["make"] and "Error 2" in turn.errors()[0]


def test_a_cursor_text_transcript_reads_queries_and_tool_calls(tmp_path: Path) -> None:
    text = ("user:\n<attached_files>\nx\n</attached_files>\n<user_query>\nrename the config loader\n</user_query>\n\n"
            "assistant:\n<think>plan</think>\nRenaming.\n[Tool call] Edit\n  path: src/config.py\n  old_string: a\n\n"
            "[Tool result] Edit\n\nassistant:\n[Tool call] Shell\n  command: pytest -q\n\n[Tool result] Shell\n\n"
            "user:\n[Image]\n<user_query>\n</user_query>\n")
    path = _write(tmp_path / "agent-transcripts" / "5969b6d3.txt", text)
    assert kind_of(path) == ("cursor", "transcript-txt")
    first, second = parse_log(path).turns  # an image sent alone is a typed prompt too
    assert first.prompt == "rename the config loader" and second.prompt == "[Image]"
    assert first.files_touched() == ["src/config.py"] and first.commands() == ["pytest -q"]


def test_an_opencode_v2_session_is_read_from_its_message_and_part_files(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    info = _write(storage / "session" / "p1" / "ses_1.json", json.dumps(
        {"id": "ses_1", "version": "1.0.107", "projectID": "p1", "directory": "/work/proj",
         "time": {"created": 1764265577709}}))
    _write(storage / "message" / "ses_1" / "msg_1.json", json.dumps(
        {"id": "msg_1", "sessionID": "ses_1", "role": "user", "time": {"created": 1764265577714}}))
    _write(storage / "message" / "ses_1" / "msg_2.json", json.dumps(
        {"id": "msg_2", "sessionID": "ses_1", "role": "assistant", "time": {"created": 1764265577715}}))
    _write(storage / "part" / "msg_1" / "prt_1.json", json.dumps({"id": "prt_1", "type": "text", "text": "add a README"}))
    _write(storage / "part" / "msg_2" / "prt_2.json", json.dumps(
        {"id": "prt_2", "type": "tool", "tool": "write", "callID": "c1",
         "state": {"status": "completed", "input": {"filePath": "/work/proj/README.md"}, "output": "ok"}}))
    _write(storage / "part" / "msg_2" / "prt_3.json", json.dumps({"id": "prt_3", "type": "text", "text": "Done."}))
    transcript = parse_log(info)
    assert (transcript.agent, transcript.session_id, transcript.cwd) == ("opencode", "ses_1", "/work/proj")
    [turn] = transcript.turns
    assert (turn.prompt, turn.timestamp[:19]) == ("add a README", "2025-11-27T17:46:17")
    assert turn.files_touched() == ["/work/proj/README.md"] and turn.assistant_text() == "Done."


def _expected(shared_agents: Path, client: str) -> dict[str, tuple[int, str]]:
    table = (shared_agents / "README.md").read_text(encoding="utf-8")
    return {m[1]: (int(m[2]), m[3]) for m in re.finditer(rf"^\| {client} \| (\S+) \| (\d+) \| (\S+)", table, re.M)}


@pytest.mark.shared
@pytest.mark.parametrize("client", CLIENTS)
def test_every_real_log_parses_to_its_typed_prompt_count(shared_agents: Path, client: str) -> None:
    """README.md counts each file's typed prompts; the reader finds exactly that many turns, or names the
    ones it leaves out: Copilot's empty "keep working" nudges (4, not a person's prompts) and the prompts of
    Gemini's logs.json whose session's chat file is beside it (99: recorded from the chat, with answers)."""
    from memdown.clients.copilot import NUDGE
    from memdown.clients.gemini import IN_A_CHAT

    expected = _expected(shared_agents, client)
    assert len(expected) >= 7
    left_out: dict[str, int] = {}
    for rel, (count, _shape) in expected.items():
        path = shared_agents / client / rel
        assert client_of(path) == client, rel
        parsed = parse_log(path)
        for reason, n in parsed.left_out.items():
            left_out[reason] = left_out.get(reason, 0) + n
        assert len(parsed.turns) + sum(parsed.left_out.values()) == count, rel
    assert left_out == {"copilot": {NUDGE: 4}, "gemini": {IN_A_CHAT: 99}}.get(client, {})


@pytest.mark.shared
@pytest.mark.parametrize("client", CLIENTS)
def test_import_of_every_real_log_brings_in_every_session_once(shared_agents: Path, memory_root: Path,
                                                               client: str) -> None:
    from memdown.config import load_config
    from memdown.services.capture.import_clients import OPENCODE_PIECE
    from memdown.services.capture.importer import import_transcripts, survey

    expected = _expected(shared_agents, client)
    sessions = {shared_agents / client / rel for rel in expected}
    found = survey([shared_agents / client], cwd=memory_root.parent, root=memory_root)
    assert set(found.transcripts) == sessions
    assert {why for _p, why in found.skipped} <= {OPENCODE_PIECE}
    config = load_config(memory_root)
    report = import_transcripts(memory_root, found, config=config, index=False)
    assert (report.sessions, report.entries > 0, report.errors) == (len(sessions), True, [])
    prompts = sum(len(parse_log(p).turns) for p in sessions)
    # Cursor writes some sessions twice (.txt beside .json/.jsonl, one uuid): the copy adds no turn.
    assert report.turns == prompts - (13 if client == "cursor" else 0)
    text = "".join(p.read_text(encoding="utf-8") for p in (memory_root / "memory").glob("*.md"))
    assert re.search(rf"^## Session \d\d:\d\d \({client}\)", text, re.M)
    again = import_transcripts(memory_root, survey([shared_agents / client], cwd=memory_root.parent,
                                                   root=memory_root), config=config, index=False)
    assert (again.sessions, again.already_imported, again.turns, again.entries) == (len(sessions),) * 2 + (0, 0)


def test_import_finds_this_projects_gemini_and_copilot_sessions(tmp_path: Path, memory_root: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from memdown.config import load_config
    from memdown.services.capture.import_clients import NO_CWD
    from memdown.services.capture.importer import import_transcripts, survey

    project = memory_root.parent
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "g"))
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "c"))
    ours = gemini_chat(tmp_path / "g" / ".gemini" / "tmp" / hashlib.sha256(str(project).encode()).hexdigest())
    theirs = gemini_chat(tmp_path / "g" / ".gemini" / "tmp" / "another-project")
    start = {"type": "session.start", "data": {"sessionId": "s-ours", "context": {"cwd": str(project / "src")}},
             "id": "e1", "timestamp": "2026-04-04T01:13:00Z"}
    prompt = {"type": "user.message", "data": {"content": "bump the version"}, "id": "e2",
              "timestamp": "2026-04-04T01:13:01Z"}
    copilot = _write(tmp_path / "c" / "session-state" / "s-ours" / "events.jsonl",
                     json.dumps(start) + "\n" + json.dumps(prompt) + "\n")
    elsewhere = {**start, "data": {"sessionId": "s-other", "context": {"cwd": "/elsewhere"}}}
    other = _write(tmp_path / "c" / "session-state" / "s-other" / "events.jsonl",
                   json.dumps(elsewhere) + "\n" + json.dumps(prompt) + "\n")
    flat = _write(tmp_path / "c" / "session-state" / "s-flat.jsonl",
                  json.dumps({**start, "data": {"sessionId": "s-flat"}}) + "\n" + json.dumps(prompt) + "\n")
    found = survey([], cwd=project, root=memory_root)
    assert set(found.transcripts) == {ours, copilot} and theirs not in dict(found.skipped)
    skipped = dict(found.skipped)
    assert "another project" in skipped[other] and skipped[flat] == NO_CWD
    report = import_transcripts(memory_root, found, config=load_config(memory_root), index=False)
    assert (report.sessions, report.turns) == (2, 2)


def test_an_opencode_database_is_every_top_level_session_in_it(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "opencode.db"
    connection = sqlite3.connect(path)
    connection.executescript(
        "CREATE TABLE session (id TEXT, parent_id TEXT, directory TEXT, version TEXT, time_created INTEGER);"
        "CREATE TABLE message (id TEXT, session_id TEXT, time_created INTEGER, data TEXT);"
        "CREATE TABLE part (id TEXT, message_id TEXT, data TEXT);")
    rows = [("ses_a", None, "/work/proj", "1.4.0", 1), ("ses_child", "ses_a", "/work/proj", "1.4.0", 2)]
    connection.executemany("INSERT INTO session VALUES (?,?,?,?,?)", rows)
    connection.executemany("INSERT INTO message VALUES (?,?,?,?)", [
        ("msg_1", "ses_a", 1782225603861, json.dumps({"role": "user"})),
        ("msg_2", "ses_a", 1782225603900, json.dumps({"role": "assistant"})),
        ("msg_3", "ses_a", 1782225604000, json.dumps({"role": "user"})),
        ("msg_4", "ses_child", 1782225604100, json.dumps({"role": "user"}))])
    connection.executemany("INSERT INTO part VALUES (?,?,?)", [
        ("prt_1", "msg_1", json.dumps({"type": "text", "text": "update the readme"})),
        ("prt_2", "msg_2", json.dumps({"type": "tool", "tool": "bash", "callID": "c1", "state": {
            "status": "error", "input": {"command": "npm test"}, "error": "exit 1"}})),
        ("prt_3", "msg_3", json.dumps({"type": "text", "synthetic": True, "text": "The user ran: ls"})),
        ("prt_4", "msg_4", json.dumps({"type": "text", "text": "written by the parent agent"}))])
    connection.commit()
    connection.close()
    assert kind_of(path) == ("opencode", "sqlite")
    transcript = parse_log(path)
    assert (transcript.cwd, transcript.version) == ("/work/proj", "1.4.0")
    first, second = transcript.turns  # the child session's prompt was the parent agent's
    assert first.prompt == "update the readme" and first.commands() == ["npm test"] and first.errors()
    assert second.prompt == "The user ran: ls"  # a command the person ran themselves is their turn


def test_the_transcript_command_reads_an_imported_gemini_chat_by_its_anchor(tmp_path: Path, memory_root: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from memdown.config import load_config
    from memdown.services.recall.drilldown import transcript_view
    from memdown.services.capture.importer import import_transcripts, survey

    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "g"))
    project = memory_root.parent
    chat = gemini_chat(tmp_path / "g" / ".gemini" / "tmp" / hashlib.sha256(str(project).encode()).hexdigest())
    import_transcripts(memory_root, survey([], cwd=project, root=memory_root), config=load_config(memory_root),
                       index=False)
    shown = transcript_view(memory_root, str(chat), "last")
    assert "why does the upload retry fail" in shown and "pytest -q" in shown
    copy = _write(tmp_path / "elsewhere" / chat.name, chat.read_text())  # not the client's, not recorded
    with pytest.raises(Exception, match="outside"):
        transcript_view(memory_root, str(copy))


def test_the_import_report_names_the_prompts_a_reader_left_out(tmp_path: Path, memory_root: Path) -> None:
    from memdown.clients.copilot import NUDGE
    from memdown.config import load_config
    from memdown.services.capture.importer import import_transcripts, survey

    found = survey([copilot_log(tmp_path)], cwd=memory_root.parent, root=memory_root)
    report = import_transcripts(memory_root, found, config=load_config(memory_root), index=False)
    assert (report.turns, report.left_out) == (1, {NUDGE: 1})
