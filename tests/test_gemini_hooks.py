"""`memdown hook EVENT gemini`: Gemini CLI's payloads answered through the one turn model, in Gemini's terms.

Payload and answer shapes are Gemini CLI 0.61.0's (bundled HookEventHandler, HookRunner and
DefaultHookOutput; tests/e2e/test_gemini.py drives the real client). Hooks run as subprocesses.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memdown.clients import parse_log
from memdown.fence import without_hook_context
from memdown.hooks.gemini import answer, in_memdown_terms

NO_CLAUDE = f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin"
DIGEST = '<hook_context>&lt;memdown-recorded-notes nonce="0a1b2c3d4e5f"&gt;\n- old note\n&lt;/memdown-recorded-notes nonce="0a1b2c3d4e5f"&gt;</hook_context>'


def _hook(event: str, payload: dict, cwd: Path, **env: str) -> dict:
    proc = subprocess.run([str(Path(sys.executable).parent / "memdown"), "hook", event, "gemini"],
                          input=json.dumps(payload), capture_output=True, text=True, cwd=cwd, timeout=120,
                          env={**os.environ, "PATH": NO_CLAUDE, **env})
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return json.loads(proc.stdout)


def _base(project: Path, event: str, transcript: Path | None = None) -> dict:
    return {"session_id": "5e55-1", "transcript_path": str(transcript or project / "none.jsonl"), "cwd": str(project),
            "hook_event_name": event, "timestamp": "2026-11-27T10:00:00.000Z"}


def test_the_hook_context_gemini_wraps_around_a_prompt_is_not_the_prompt() -> None:
    assert without_hook_context(f"{DIGEST}\n\nWhat retry budget did we pick?") == "What retry budget did we pick?"
    assert without_hook_context("fix <b>it</b>") == "fix <b>it</b>"
    assert without_hook_context("<hook_context>never closed") == ""  # nothing after an unclosed block is typed
    assert in_memdown_terms({"prompt": f"{DIGEST}\n\nwhy?"})["prompt"] == "why?"


def test_gemini_tools_are_judged_under_memdowns_names(tmp_path: Path) -> None:
    shell = in_memdown_terms({"cwd": "/p", "tool_name": "run_shell_command",
                              "tool_input": {"command": "npm i", "dir_path": "web", "description": "install"}})
    assert shell["tool_name"] == "Bash" and shell["tool_input"] == {"command": "npm i"} and shell["cwd"] == "/p/web"
    edit = in_memdown_terms({"cwd": "/p", "tool_name": "replace", "tool_input": {"file_path": "src/a.py"}})
    assert edit["tool_name"] == "Edit" and edit["tool_input"] == {"file_path": "/p/src/a.py"}
    write = in_memdown_terms({"cwd": "/p", "tool_name": "write_file", "tool_input": {"file_path": "/abs/b.md"}})
    assert write["tool_name"] == "Write" and write["tool_input"] == {"file_path": "/abs/b.md"}
    other = {"cwd": "/p", "tool_name": "Skill", "tool_input": {"skill": "memdown:memory-recall"}}
    assert in_memdown_terms(other) == other  # a tool Gemini names so is not Claude Code's plugin skill


def test_answers_take_gemini_cli_s_shape() -> None:
    context = {"systemMessage": "memdown: 3 days", "hookSpecificOutput": {
        "hookEventName": "UserPromptSubmit", "additionalContext": "<memdown-recorded-notes …>"}}
    assert answer(context) == {"systemMessage": "memdown: 3 days", "hookSpecificOutput": {
        "hookEventName": "BeforeAgent", "additionalContext": "<memdown-recorded-notes …>"}}
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": "memdown guard L1: use pnpm"}}
    assert answer(deny) == {"decision": "deny", "reason": "memdown guard L1: use pnpm"}
    ask = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                  "permissionDecisionReason": "memdown guard L2: prefer uv"}}
    assert answer(ask) == {"decision": "deny", "reason": "memdown guard L2: prefer uv"}  # headless Gemini would hang
    allow = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
    assert answer(allow) == {} and answer({}) == {}


def test_before_tool_denies_a_command_a_person_approved_a_guard_for(isolate_paths: Path, memory_root: Path) -> None:
    home = Path(os.environ["MEMDOWN_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    guard = {"id": "L1", "root": "", "rule": "Use pnpm, not npm.", "decision": "deny",
             "forbid": [{"argv": ["npm"], "instead": ["pnpm"]}]}
    (home / "guards.json").write_text(json.dumps({"format": 1, "guards": [guard]}))
    call = {**_base(isolate_paths, "BeforeTool"), "tool_name": "run_shell_command",
            "tool_input": {"command": "cd web && npm install left-pad", "description": "install"}}
    out = _hook("BeforeTool", call, isolate_paths)
    assert out["decision"] == "deny" and "Use pnpm" in out["reason"], out
    assert "hookSpecificOutput" not in out  # Gemini reads the top-level decision only
    call["tool_input"]["command"] = "pnpm install left-pad"
    assert _hook("BeforeTool", call, isolate_paths) == {}


def test_session_start_gives_the_digest_fenced_as_gemini_context(isolate_paths: Path, memory_root: Path) -> None:
    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-11-26.md").write_text(
        "# 2026-11-26\n\n## Session 09:00\n\n### 09:05\n\n- Chose a retry budget of 3 attempts for uploads.\n")
    out = _hook("SessionStart", {**_base(isolate_paths, "SessionStart"), "source": "startup"}, isolate_paths,
                MEMDOWN_HOOK_SYNC="1")
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "SessionStart"
    assert re.search(r'<memdown-recorded-notes nonce="[0-9a-f]{12}"', specific["additionalContext"]), specific


def _chat(path: Path, project: Path) -> Path:
    """A chat file as Gemini CLI 0.61.0 writes it headless (the SessionStart context before the prompt)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent.parent / ".project_root").write_text(str(project))
    lines = [
        {"sessionId": "5e55-1", "projectHash": "ab", "startTime": "2026-11-27T10:00:00.000Z", "kind": "main"},
        {"id": "u1", "timestamp": "2026-11-27T10:00:01.000Z", "type": "user",
         "content": [{"text": f"{DIGEST}\n\nWhat retry budget should uploads use?"}]},
        {"id": "g1", "timestamp": "2026-11-27T10:00:02.000Z", "type": "gemini", "content": "",
         "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "grep -rn retry src"},
                        "status": "success", "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                                                                              "response": {"output": "src/up.py:3"}}}]}]},
        {"id": "g2", "timestamp": "2026-11-27T10:00:03.000Z", "type": "gemini",
         "content": "Decision: keep the retry budget at 3 attempts."},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_the_chat_reader_leaves_the_injected_digest_out_of_the_prompt(tmp_path: Path) -> None:
    chat = _chat(tmp_path / "tmp" / "proj" / "chats" / "session-x.jsonl", tmp_path / "project")
    [turn] = parse_log(chat).turns
    assert turn.prompt == "What retry budget should uploads use?"
    assert [c.input["command"] for c in turn.tool_calls] == ["grep -rn retry src"]


def test_after_agent_records_the_turn_from_gemini_s_chat_file(isolate_paths: Path, memory_root: Path,
                                                              tmp_path: Path) -> None:
    (memory_root / "memory").mkdir(parents=True)
    chat = _chat(tmp_path / "gemini" / "tmp" / "proj" / "chats" / "session-2026-11-27T10-00-5e551.jsonl", isolate_paths)
    payload = {**_base(isolate_paths, "AfterAgent", chat), "prompt": f"{DIGEST}\n\nWhat retry budget should uploads use?",
               "prompt_response": "Decision: keep the retry budget at 3 attempts.", "stop_hook_active": False}
    assert _hook("AfterAgent", payload, isolate_paths, MEMDOWN_HOOK_SYNC="1") == {}
    text = "".join(p.read_text() for p in (memory_root / "memory").glob("*.md"))
    assert re.search(r"^## Session \d\d:\d\d \(gemini\)$", text, re.M), text
    assert re.search(r"<!-- session:5e55-1 turn:u1 transcript:\S+session-2026-11-27T10-00-5e551\.jsonl -->", text), text
    assert "memdown-recorded-notes" not in text and "old note" not in text  # the injected digest is not recorded again
    log = (memory_root / "logs" / "hooks.log").read_text()
    assert "Stop answered" in log, log


@pytest.mark.parametrize("broken", ["{not json", "[1, 2]", ""])
def test_a_bad_payload_fails_open_with_valid_json(isolate_paths: Path, broken: str) -> None:
    for event in ("SessionStart", "BeforeAgent", "AfterAgent", "BeforeTool", "SessionEnd", "PreCompress"):
        proc = subprocess.run([str(Path(sys.executable).parent / "memdown"), "hook", event, "gemini"], input=broken,
                              capture_output=True, text=True, cwd=isolate_paths, timeout=60)
        assert proc.returncode == 0 and isinstance(json.loads(proc.stdout), dict), (event, proc.stdout, proc.stderr)
        assert proc.stderr == "" and (json.loads(proc.stdout) == {} or broken != "{not json"), proc.stdout


def test_session_start_notices_fit_every_client(isolate_paths: Path, tmp_path: Path) -> None:
    from memdown.services.recall.session import first_run_notice, import_notice

    assert "memdown uninstall CLIENT" in first_run_notice(tmp_path / "new" / ".memdown")  # not only Claude Code's /plugin
    chats = tmp_path / "gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    own = chats / "session-2026-11-27T10-00-5e551111.jsonl"  # Gemini names the file, not by the session id
    own.write_text("{}\n")
    assert import_notice(tmp_path / "a" / ".memdown", str(own), "5e551111-2222-3333-4444-555555555555") == ""
    (chats / "session-2026-11-20T09-00-0badcafe.jsonl").write_text("{}\n")
    assert "1 earlier session(s)" in import_notice(tmp_path / "b" / ".memdown", str(own), "5e551111-2222")
