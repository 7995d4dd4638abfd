"""GitHub Copilot CLI and Cursor: `memdown install/uninstall copilot|cursor` and `memdown hook EVENT CLIENT`.

Neither client runs here (both need their vendor's sign-in), so the real `memdown hook` subprocess is fed
payloads shaped exactly as the vendors' documents give them (memdown/hooks/clientwire.py names them; the
Copilot ones also match the real hook inputs recorded in ../shared/agents), and answers are checked
against the fields those documents say the client reads.
"""
from __future__ import annotations

import json
import shutil
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memdown.errors import InputFileError
from memdown.services.clients import agent_hooks
from test_guards import promote_quote

SYNC = {"MEMDOWN_HOOK_SYNC": "1", "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin"}


def hook(event: str, client: str, payload: dict, **env: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "memdown", "hook", event, client], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=180, env={**os.environ, **SYNC, **env})
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "home" / ".copilot"))
    return tmp_path / "home"


# --- install / uninstall ---------------------------------------------------------------------------------

CURSOR_THEIRS = {"version": 1, "hooks": {
    "beforeShellExecution": [{"command": "./hooks/audit.sh"}],
    "afterFileEdit": [{"command": "prettier --write"}]}, "note": "mine"}


def test_cursor_install_keeps_the_users_hooks_and_uninstall_gives_back_exactly_the_file(homes: Path) -> None:
    path = homes / ".cursor" / "hooks.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(CURSOR_THEIRS))
    report = agent_hooks.install("cursor")
    data = json.loads(path.read_text())
    assert report.hooks_file == path and len(report.changes) == 1
    assert data["note"] == "mine" and data["hooks"]["afterFileEdit"] == [{"command": "prettier --write"}]
    shell = [e["command"] for e in data["hooks"]["beforeShellExecution"]]
    assert shell[0] == "./hooks/audit.sh" and shell[1].endswith("memdown hook PreToolUse cursor")
    assert {e["command"].split(" hook ")[1] for k in ("sessionStart", "stop", "sessionEnd", "preToolUse")
            for e in data["hooks"][k]} == {"SessionStart cursor", "Stop cursor", "SessionEnd cursor",
                                            "PreToolUse cursor"}
    before = path.read_bytes()
    assert agent_hooks.install("cursor").changes == [] and path.read_bytes() == before  # idempotent

    assert agent_hooks.uninstall("cursor").changes
    assert json.loads(path.read_text()) == CURSOR_THEIRS


def test_copilot_gets_its_own_file_in_the_users_hooks_folder_and_uninstall_removes_it(homes: Path) -> None:
    other = homes / ".copilot" / "hooks" / "safety.json"
    other.parent.mkdir(parents=True)
    other.write_text('{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./guard.sh"}]}}')
    report = agent_hooks.install("copilot")
    assert report.hooks_file == homes / ".copilot" / "hooks" / "memdown.json"
    data = json.loads(report.hooks_file.read_text())
    assert data["version"] == 1
    assert set(data["hooks"]) == {"sessionStart", "preToolUse", "preCompact", "agentStop", "sessionEnd"}
    [entry] = data["hooks"]["agentStop"]
    assert entry["type"] == "command" and entry["bash"].endswith("memdown hook Stop copilot") and entry["timeoutSec"]
    assert agent_hooks.install("copilot").changes == []
    agent_hooks.uninstall("copilot")
    assert not report.hooks_file.exists() and other.exists()


def test_project_level_files_run_the_memdown_on_path(isolate_paths: Path, homes: Path) -> None:
    subprocess.run(["git", "init", "-q", str(isolate_paths)], check=True)
    copilot = agent_hooks.install("copilot", project=True, start=isolate_paths).hooks_file
    cursor = agent_hooks.install("cursor", project=True, start=isolate_paths).hooks_file
    assert copilot == isolate_paths.resolve() / ".github" / "hooks" / "memdown.json"
    assert cursor == isolate_paths.resolve() / ".cursor" / "hooks.json"
    assert json.loads(cursor.read_text())["hooks"]["stop"] == [{"command": "memdown hook Stop cursor", "timeout": 30}]
    assert not (homes / ".cursor").exists()


def test_a_changed_memdown_path_is_replaced_not_doubled_and_a_broken_file_is_left_alone(homes: Path) -> None:
    path = homes / ".cursor" / "hooks.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": 1, "hooks": {"stop": [{"command": "/old/venv/bin/memdown hook Stop cursor"}]}}))
    agent_hooks.install("cursor")
    [stop] = json.loads(path.read_text())["hooks"]["stop"]
    assert stop["command"] == agent_hooks.hook_command("cursor", False, "Stop")
    path.write_text("{not json")
    with pytest.raises(InputFileError, match="changed nothing"):
        agent_hooks.install("cursor")
    assert path.read_text() == "{not json"


def test_the_cli_installs_and_removes_each_client(homes: Path) -> None:
    env = {**os.environ, "HOME": str(homes), "COPILOT_HOME": str(homes / ".copilot")}
    for client in ("copilot", "cursor"):
        run = subprocess.run([sys.executable, "-m", "memdown", "install", client, "--json"], capture_output=True,
                             text=True, env=env)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["skill_file"] is None and json.loads(run.stdout)["changed"]
        gone = subprocess.run([sys.executable, "-m", "memdown", "uninstall", client], capture_output=True, text=True,
                              env=env)
        assert "removed" in gone.stdout
    assert not (homes / ".cursor" / "hooks.json").exists()


# --- the hook's answers ------------------------------------------------------------------------------------

def test_copilot_pretooluse_denies_a_guarded_command_and_edit(memory_root: Path, isolate_paths: Path) -> None:
    promote_quote(memory_root, "no, use pnpm, not npm")
    promote_quote(memory_root, "never edit `package-lock.json` by hand", kind="convention")
    call = {"sessionId": "s1", "timestamp": 1704614400000, "cwd": str(isolate_paths), "toolName": "bash",
            "toolArgs": {"command": "npm install left-pad", "description": "install"}}
    out = hook("PreToolUse", "copilot", call)
    assert out["permissionDecision"] == "deny" and "pnpm" in out["permissionDecisionReason"]
    assert "hookSpecificOutput" not in out
    assert hook("PreToolUse", "copilot", {**call, "toolArgs": json.dumps({"command": "npm ci"})})[
        "permissionDecision"] == "deny"  # toolArgs as a JSON string (older builds)
    assert hook("PreToolUse", "copilot", {**call, "toolArgs": {"command": "pnpm install"}}) == {}
    edit = {**call, "toolName": "edit", "toolArgs": {"path": str(isolate_paths / "package-lock.json"),
                                                     "old_str": "a", "new_str": "b"}}
    assert hook("PreToolUse", "copilot", edit)["permissionDecision"] == "deny"
    assert hook("PreToolUse", "copilot", {**call, "toolName": "view", "toolArgs": {"path": "package-lock.json"}}) == {}


def test_cursor_shell_and_tool_events_deny_in_cursors_terms(memory_root: Path, isolate_paths: Path) -> None:
    promote_quote(memory_root, "no, use pnpm, not npm")
    promote_quote(memory_root, "never edit `package-lock.json` by hand", kind="convention")
    common = {"conversation_id": "c-1", "generation_id": "g-1", "model": "gpt-5", "cursor_version": "2.0.77",
              "workspace_roots": [str(isolate_paths)], "transcript_path": None}
    shell = hook("PreToolUse", "cursor", {**common, "hook_event_name": "beforeShellExecution",
                                          "command": "npm install", "cwd": str(isolate_paths)})
    assert shell["permission"] == "deny" and "pnpm" in shell["agent_message"] and shell["user_message"]
    write = hook("PreToolUse", "cursor", {**common, "hook_event_name": "preToolUse", "tool_name": "Write",
                                          "tool_input": {"path": str(isolate_paths / "package-lock.json"),
                                                         "contents": "{}"}})
    assert write["permission"] == "deny"
    assert hook("PreToolUse", "cursor", {**common, "hook_event_name": "beforeShellExecution",
                                         "command": "pnpm install", "cwd": str(isolate_paths)}) == {}


def test_cursor_preToolUse_turns_an_ask_guard_into_deny_and_shell_keeps_ask(memory_root: Path,
                                                                            isolate_paths: Path) -> None:
    from memdown.hooks.clientwire import to_client

    asked = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                    "permissionDecisionReason": "memdown guard LRN-1: prefer rg"}}
    assert to_client("cursor", "PreToolUse", asked, {"command": "grep -r x"})["permission"] == "ask"
    assert to_client("cursor", "PreToolUse", asked, {"tool_name": "Write"})["permission"] == "deny"
    assert to_client("copilot", "PreToolUse", asked, {})["permissionDecision"] == "ask"


def test_session_start_context_comes_fenced_in_each_clients_field(memory_root: Path, isolate_paths: Path) -> None:
    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-11-20.md").write_text(
        "# 2026-11-20\n\n## Session 10:00 (codex)\n\n### 10:00\n- Moved the upload retry into the queue worker\n")
    copilot = hook("SessionStart", "copilot", {"sessionId": "s2", "timestamp": 1, "cwd": str(isolate_paths),
                                               "source": "new"}, MEMDOWN_WATCH_ENABLED="0")
    assert list(copilot) == ["additionalContext"]
    assert "<memdown-recorded-notes" in copilot["additionalContext"]
    assert "upload retry" in copilot["additionalContext"]
    cursor = hook("SessionStart", "cursor", {"session_id": "c-2", "conversation_id": "c-2", "is_background_agent": False,
                                             "hook_event_name": "sessionStart", "workspace_roots": [str(isolate_paths)]},
                  MEMDOWN_WATCH_ENABLED="0")
    assert list(cursor) == ["additional_context"] and "<memdown-recorded-notes" in cursor["additional_context"]
    for context in (copilot["additionalContext"], cursor["additional_context"]):  # no skill there: the command
        assert "memory-recall skill" not in context and "memdown search" in context
    # A prompt event's answer is not read by either client: nothing is sent.
    assert hook("UserPromptSubmit", "copilot", {"sessionId": "s2", "cwd": str(isolate_paths),
                                                "prompt": "why did we move the retry last time?"}) == {}


def _copilot_session(home: Path, session: str, cwd: Path, prompt: str) -> Path:
    def event(kind: str, data: dict, n: int) -> str:
        return json.dumps({"type": kind, "data": data, "id": f"e{n}", "timestamp": f"2026-11-27T10:00:{n:02d}Z",
                           "parentId": None})
    path = home / "session-state" / session / "events.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join([
        event("session.start", {"sessionId": session, "copilotVersion": "1.0.60", "context": {"cwd": str(cwd)}}, 1),
        event("user.message", {"content": prompt, "transformedContent": prompt}, 2),
        event("assistant.message", {"content": "Done: the retry now waits for the lock.", "toolRequests": []}, 3),
    ]) + "\n")
    return path


def _day_text(memory_root: Path) -> str:
    return "".join(p.read_text() for p in sorted((memory_root / "memory").glob("*.md")))


def test_copilot_agent_stop_and_session_end_capture_the_session_under_its_agents_heading(
        memory_root: Path, isolate_paths: Path, homes: Path) -> None:
    copilot_home = homes / ".copilot"
    events = _copilot_session(copilot_home, "0b7e5f0a-1", isolate_paths, "make the upload retry wait for the lock")
    assert hook("Stop", "copilot", {"sessionId": "0b7e5f0a-1", "timestamp": 1, "cwd": str(isolate_paths),
                                    "transcriptPath": str(events), "stopReason": "end_turn"},
                COPILOT_HOME=str(copilot_home)) == {}
    text = _day_text(memory_root)
    assert "(copilot)" in text and "session:0b7e5f0a-1" in text
    # sessionEnd names no transcript: the session's own events file under COPILOT_HOME is read.
    _copilot_session(copilot_home, "0b7e5f0a-2", isolate_paths, "rename the queue worker module")
    hook("SessionEnd", "copilot", {"sessionId": "0b7e5f0a-2", "timestamp": 2, "cwd": str(isolate_paths),
                                   "reason": "user_exit"}, COPILOT_HOME=str(copilot_home))
    assert "session:0b7e5f0a-2" in _day_text(memory_root)
    # Not an id: never a path.
    assert hook("SessionEnd", "copilot", {"sessionId": "../../etc", "cwd": str(isolate_paths)},
                COPILOT_HOME=str(copilot_home)) == {}


def test_cursor_stop_captures_the_transcript_under_its_uuid(memory_root: Path, isolate_paths: Path,
                                                            homes: Path) -> None:
    slug = str(isolate_paths).replace("/", "-").lstrip("-")
    transcript = homes / ".cursor" / "projects" / slug / "agent-transcripts" / "5969b6d3-aa" / "5969b6d3-aa.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("\n".join(json.dumps(line) for line in [
        {"role": "user", "message": {"content": [{"type": "text",
                                                  "text": "<user_query>\nadd a retry to the upload\n</user_query>"}]}},
        {"role": "assistant", "message": {"content": [{"type": "text", "text": "Added the retry."}]}},
    ]) + "\n")
    assert hook("Stop", "cursor", {"conversation_id": "5969b6d3-aa", "generation_id": "g", "status": "completed",
                                   "loop_count": 0, "hook_event_name": "stop", "transcript_path": str(transcript),
                                   "workspace_roots": [str(isolate_paths)]}) == {}
    text = _day_text(memory_root)
    assert "(cursor)" in text and "session:5969b6d3-aa" in text


@pytest.mark.parametrize("client", ["copilot", "cursor"])
@pytest.mark.parametrize("event", ["SessionStart", "PreToolUse", "Stop", "SessionEnd", "PreCompact"])
@pytest.mark.parametrize("stdin", ["", "not json", "[1]", '{"cwd": 5, "toolArgs": 7, "workspace_roots": "x"}'])
def test_every_client_hook_fails_open(client: str, event: str, stdin: str, isolate_paths: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "memdown", "hook", event, client], input=stdin, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert isinstance(json.loads(proc.stdout), dict)


# --- OpenCode: the plugin file, run by node the way OpenCode's runtime loads it -----------------------------

def test_opencode_plugin_install_is_idempotent_and_keeps_a_file_memdown_did_not_write(
        homes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(homes / ".config"))
    report = agent_hooks.install_plugin()
    assert report.hooks_file == homes / ".config" / "opencode" / "plugins" / "memdown.js"
    assert agent_hooks.PLUGIN_MARK in report.hooks_file.read_text() and report.changes
    assert agent_hooks.install_plugin().changes == []
    report.hooks_file.write_text(report.hooks_file.read_text() + "// my change\n")
    assert agent_hooks.uninstall_plugin().kept and report.hooks_file.exists()
    report.hooks_file.write_text("export const Mine = async () => ({})\n")
    assert agent_hooks.install_plugin().kept and "Mine" in report.hooks_file.read_text()
    report.hooks_file.unlink()
    agent_hooks.install_plugin()
    assert agent_hooks.uninstall_plugin().changes and not report.hooks_file.exists()


_NODE_CALL = """
const {{ MemdownPlugin }} = await import({plugin!r});
const hooks = await MemdownPlugin({{ directory: {directory!r} }});
try {{
  await hooks["tool.execute.before"]({{ tool: {tool!r}, sessionID: "ses_1", callID: "c1" }}, {{ args: {args} }});
  console.log("RAN");
}} catch (error) {{
  console.log("STOPPED " + error.message);
}}
"""


def _opencode_call(plugin: Path, project: Path, tool: str, args: dict) -> str:
    import shutil

    if shutil.which("node") is None:
        pytest.skip("node is absent")
    code = _NODE_CALL.format(plugin=str(plugin), directory=str(project), tool=tool, args=json.dumps(args))
    proc = subprocess.run(["node", "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **SYNC})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_the_opencode_plugin_stops_a_guarded_call_with_the_rule_and_lets_others_run(
        memory_root: Path, isolate_paths: Path, homes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(homes / ".config"))
    plugin = agent_hooks.install_plugin().hooks_file
    (plugin.parent / "package.json").write_text('{"type": "module"}')  # node: read memdown.js as the ES module Bun sees
    promote_quote(memory_root, "no, use pnpm, not npm")
    promote_quote(memory_root, "never edit `package-lock.json` by hand", kind="convention")
    stopped = _opencode_call(plugin, isolate_paths, "bash", {"command": "npm install", "description": "install"})
    assert stopped.startswith("STOPPED memdown guard") and "pnpm" in stopped
    assert _opencode_call(plugin, isolate_paths, "bash", {"command": "pnpm install"}) == "RAN"
    edit = {"filePath": str(isolate_paths / "package-lock.json"), "oldString": "a", "newString": "b"}
    assert _opencode_call(plugin, isolate_paths, "edit", edit).startswith("STOPPED")
    assert _opencode_call(plugin, isolate_paths, "read", {"filePath": "package-lock.json"}) == "RAN"


def _opencode_db(path: Path, project: Path) -> Path:
    """An OpenCode 1.2+ database with this project's session and another project's."""
    import sqlite3

    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    connection.executescript(
        "CREATE TABLE session (id TEXT, parent_id TEXT, directory TEXT, version TEXT, time_created INTEGER);"
        "CREATE TABLE message (id TEXT, session_id TEXT, time_created INTEGER, data TEXT);"
        "CREATE TABLE part (id TEXT, message_id TEXT, data TEXT);")
    connection.executemany("INSERT INTO session VALUES (?,?,?,?,?)", [
        ("ses_ours1", None, str(project), "1.18.33", 1), ("ses_other", None, "/elsewhere/secret-project", "1.18.33", 2)])
    connection.executemany("INSERT INTO message VALUES (?,?,?,?)", [
        ("msg_1", "ses_ours1", 1795780800000, json.dumps({"role": "user"})),
        ("msg_2", "ses_ours1", 1795780801000, json.dumps({"role": "assistant"})),
        ("msg_3", "ses_other", 1795780802000, json.dumps({"role": "user"}))])
    connection.executemany("INSERT INTO part VALUES (?,?,?)", [
        ("prt_1", "msg_1", json.dumps({"type": "text", "text": "make the upload retry wait for the lock"})),
        ("prt_2", "msg_2", json.dumps({"type": "text", "text": "Done."})),
        ("prt_3", "msg_3", json.dumps({"type": "text", "text": "the other project's private plan"}))])
    connection.commit()
    connection.close()
    return path


def test_an_opencode_database_gives_one_session_when_asked_and_all_for_an_import(tmp_path: Path) -> None:
    from memdown.clients import parse_log

    path = _opencode_db(tmp_path / "opencode.db", tmp_path / "proj")
    one = parse_log(path, session="ses_ours1")
    assert one.session_id == "ses_ours1" and one.cwd == str(tmp_path / "proj")
    assert [t.prompt for t in one.turns] == ["make the upload retry wait for the lock"]
    every = parse_log(path, session="opencode-db-opencode")  # what `memdown import opencode.db` records
    assert len(every.turns) == 2 and every.session_id == "opencode-db-opencode"


def test_the_opencode_plugin_records_the_idle_session_and_only_it(
        memory_root: Path, isolate_paths: Path, homes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(homes / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(homes / ".local" / "share"))
    _opencode_db(homes / ".local" / "share" / "opencode" / "opencode.db", isolate_paths)
    plugin = agent_hooks.install_plugin().hooks_file
    (plugin.parent / "package.json").write_text('{"type": "module"}')
    code = (f"const {{ MemdownPlugin }} = await import({str(plugin)!r});\n"
            f"const hooks = await MemdownPlugin({{ directory: {str(isolate_paths)!r} }});\n"
            "await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_ours1' } } });\n")
    if shutil.which("node") is None:
        pytest.skip("node is absent")
    proc = subprocess.run(["node", "--input-type=module", "-e", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **SYNC})
    assert proc.returncode == 0, proc.stderr
    text = _day_text(memory_root)
    assert "(opencode)" in text and "session:ses_ours1" in text and "upload retry" in text
    assert "private plan" not in text  # another project's session in the same database stays out


def test_a_copilot_session_captured_by_its_hook_is_not_written_again_by_import(
        memory_root: Path, isolate_paths: Path, homes: Path) -> None:
    from memdown.config import load_config
    from memdown.services.capture.importer import import_transcripts, survey

    copilot_home = homes / ".copilot"
    events = _copilot_session(copilot_home, "0b7e5f0a-3", isolate_paths, "split the upload worker in two")
    hook("Stop", "copilot", {"sessionId": "0b7e5f0a-3", "timestamp": 1, "cwd": str(isolate_paths),
                             "transcriptPath": str(events), "stopReason": "end_turn"}, COPILOT_HOME=str(copilot_home))
    before = _day_text(memory_root)
    assert before.count("session:0b7e5f0a-3") == 1
    report = import_transcripts(memory_root, survey([events], cwd=isolate_paths, root=memory_root),
                                config=load_config(memory_root), index=False)
    assert report.entries == 0 and _day_text(memory_root).count("session:0b7e5f0a-3") == 1
