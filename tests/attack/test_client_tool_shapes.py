"""Guards through every client's own tool names and argument shapes (real `memdown hook` subprocesses).

An approved rule ("Never edit `package-lock.json` by hand") must stop the edit however the client spells the
tool: the real logs in ../shared/agents show Copilot CLI's and Cursor's `apply_patch`/`ApplyPatch` (GPT
models; the argument is the raw patch text), Cursor's older `write`/`search_replace` with `file_path`, and
OpenCode has `multiedit`, `patch` and `apply_patch` besides `edit`/`write`. Each used to pass unjudged.
The hook configuration install writes must also send those tools to the hook at all.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memdown.learning import guards as compiled
from memdown.services.clients import agent_hooks

RULE = "Never edit `package-lock.json` by hand."
PUSH = "Never run `git push --force`."


@pytest.fixture
def guarded(isolate_paths: Path) -> Path:
    home = Path(os.environ["MEMDOWN_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    specs = []
    for n, rule in enumerate((RULE, PUSH)):
        spec = compiled.compile_rule(rule)
        assert spec is not None
        specs.append({**spec, "id": f"L{n}", "root": "", "rule": rule})
    (home / "guards.json").write_text(json.dumps({"format": 1, "guards": specs}))
    return isolate_paths


def hook(client: str, payload: dict) -> dict:
    proc = subprocess.run([sys.executable, "-m", "memdown", "hook", "PreToolUse", client], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def stopped(client: str, out: dict) -> bool:
    return {"copilot": out.get("permissionDecision"), "cursor": out.get("permission"),
            "opencode": out.get("decision")}[client] == "deny"


def patch(path: str) -> str:
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n-  \"version\": \"1.0.0\"\n+  \"version\": \"1.0.1\"\n*** End Patch\n"


def calls(project: Path) -> list[tuple[str, dict]]:
    lock = str(project / "package-lock.json")
    return [
        ("copilot", {"sessionId": "s", "cwd": str(project), "toolName": "apply_patch", "toolArgs": patch(lock)}),
        ("copilot", {"sessionId": "s", "cwd": str(project), "toolName": "apply_patch",
                     "toolArgs": patch("package-lock.json")}),
        ("cursor", {"conversation_id": "c", "workspace_roots": [str(project)], "tool_name": "ApplyPatch",
                    "tool_input": patch("package-lock.json")}),
        ("cursor", {"conversation_id": "c", "workspace_roots": [str(project)], "tool_name": "write",
                    "tool_input": {"file_path": lock, "contents": "{}"}}),
        ("cursor", {"conversation_id": "c", "workspace_roots": [str(project)], "tool_name": "search_replace",
                    "tool_input": {"file_path": lock, "old_string": "a", "new_string": "b"}}),
        ("cursor", {"conversation_id": "c", "workspace_roots": [str(project)], "tool_name": "Write",
                    "tool_input": {"file_path": lock, "contents": "{}"}}),
        ("opencode", {"sessionID": "o", "directory": str(project), "tool": "multiedit",
                      "args": {"filePath": lock, "edits": []}}),
        ("opencode", {"sessionID": "o", "directory": str(project), "tool": "patch",
                      "args": {"patchText": patch("package-lock.json")}}),
        ("opencode", {"sessionID": "o", "directory": str(project), "tool": "apply_patch",
                      "args": {"patchText": patch(lock)}}),
        ("cursor", {"conversation_id": "c", "workspace_roots": [str(project)], "tool_name": "run_terminal_cmd",
                    "tool_input": {"command": "git push --force"}}),
        ("copilot", {"sessionId": "s", "cwd": str(project), "toolName": "bash", "toolArgs": {"cmd": "git push -f"}}),
    ]


@pytest.mark.parametrize("n", range(11))
def test_each_clients_patch_and_edit_spellings_meet_the_guard(guarded: Path, n: int) -> None:
    client, payload = calls(guarded)[n]
    out = hook(client, payload)
    assert stopped(client, out), (client, payload, out)


def test_a_patch_of_another_file_and_a_read_of_the_guarded_one_still_run(guarded: Path) -> None:
    project = str(guarded)
    assert hook("copilot", {"sessionId": "s", "cwd": project, "toolName": "apply_patch",
                            "toolArgs": patch("src/app.js")}) == {}
    assert hook("opencode", {"sessionID": "o", "directory": project, "tool": "read",
                             "args": {"filePath": str(guarded / "package-lock.json")}}) == {}
    assert hook("copilot", {"sessionId": "s", "cwd": project, "toolName": "view",
                            "toolArgs": {"path": str(guarded / "package-lock.json")}}) == {}


def test_installed_hooks_send_the_patch_tools_to_memdown(isolate_paths: Path) -> None:
    copilot = agent_hooks.install("copilot").hooks_file
    [pre] = json.loads(copilot.read_text())["hooks"]["preToolUse"]
    assert "apply_patch" in pre["matcher"].split("|")
    cursor = agent_hooks.install("cursor").hooks_file
    matchers = [e.get("matcher", "") for e in json.loads(cursor.read_text())["hooks"]["preToolUse"]]
    assert any("ApplyPatch" in m.split("|") for m in matchers)
    plugin = agent_hooks.plugin_text(False)
    for tool in ("multiedit", "patch", "apply_patch"):
        assert f'"{tool}"' in plugin


# Windows clients: the real logs show Copilot CLI's `powershell` tool (250 calls) and Cursor's Shell running
# `cmd /c "cd /d … && git …"` and `powershell -NoProfile -Command "…"`; macOS and Windows find `Git` as git.
WRAPPED = [
    'cmd /c "cd /d C:\\work\\app && git push --force"',
    'cmd.exe /C git push --force',
    'powershell -NoProfile -Command "git push --force"',
    'pwsh -c \'git push --force\'',
    'powershell.exe -NoProfile -EncodedCommand ZwBpAHQAIABwAHUAcwBoACAALQAtAGYAbwByAGMAZQA=',
    '"C:\\Program Files\\Git\\cmd\\git.exe" push --force',
    'bash.exe -lc "git push --force"',
    'wsl -e git push --force',
    'iex "git push --force"',
    'Git push --force',
]


@pytest.mark.parametrize("command", WRAPPED)
def test_a_command_wrapped_by_a_windows_shell_meets_the_guard(guarded: Path, command: str) -> None:
    out = hook("copilot", {"sessionId": "s", "cwd": str(guarded), "toolName": "powershell", "toolArgs": {"command": command}})
    assert stopped("copilot", out), (command, out)
    cursor = hook("cursor", {"conversation_id": "c", "workspace_roots": [str(guarded)], "command": command,
                             "cwd": str(guarded)})
    assert stopped("cursor", cursor), (command, cursor)


@pytest.mark.parametrize("command", ['cmd /c "git push origin main"', 'powershell -NoProfile -Command "git status"',
                                     'powershell -ExecutionPolicy Bypass -File push.ps1', 'cmd /c dir'])
def test_the_same_wrappers_around_an_allowed_command_run(guarded: Path, command: str) -> None:
    assert hook("copilot", {"sessionId": "s", "cwd": str(guarded), "toolName": "powershell",
                            "toolArgs": {"command": command}}) == {}
