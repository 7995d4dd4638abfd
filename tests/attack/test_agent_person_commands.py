"""A person command run from an agent's shell with the agent's variables cleared.

`memdown reflect promote|undo`, `install|uninstall`, `config approve`, `forget` refuse (exit 11) when one of
the agents' shell variables is set (cli/agentsafe.py, docs/trust.md). A model following an injected memory can
clear them first: `env -u GEMINI_CLI memdown reflect promote …` runs, so an approval (a rule, a guard, CLAUDE.md)
is made by the model, not a person. docs/trust.md says the client's permission rules must stop that; but Gemini
CLI --yolo, Copilot CLI --allow-all-tools and Codex's full-auto ask nothing, and memdown's own PreToolUse hook
sees every shell call in all six clients: it refuses a person command there, whatever the environment
(shellguard.person_command over agentcommands.COMMANDS, the list cli/agentsafe.py enforces).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLEARED = [
    ("gemini", "BeforeTool", lambda cwd, c: {"session_id": "s", "cwd": cwd, "tool_name": "run_shell_command",
                                             "tool_input": {"command": c}}, "decision"),
    ("copilot", "PreToolUse", lambda cwd, c: {"sessionId": "s", "cwd": cwd, "toolName": "bash",
                                              "toolArgs": {"command": c}}, "permissionDecision"),
    ("cursor", "PreToolUse", lambda cwd, c: {"conversation_id": "c", "workspace_roots": [cwd], "command": c},
     "permission"),
]


@pytest.mark.parametrize("client, event, shape, field", CLEARED)
def test_an_agent_clearing_its_variables_cannot_approve_through_its_shell(isolate_paths: Path, client, event, shape,
                                                                          field) -> None:
    command = "env -u GEMINI_CLI -u COPILOT_CLI -u CURSOR_AGENT -u AI_AGENT memdown reflect promote 3f2a --target project"
    proc = subprocess.run([sys.executable, "-m", "memdown", "hook", event, client],
                          input=json.dumps(shape(str(isolate_paths), command)), capture_output=True, text=True,
                          timeout=120, env={**os.environ})
    assert proc.returncode == 0
    assert json.loads(proc.stdout).get(field) == "deny"


@pytest.mark.parametrize("command", ["memdown search 'retry budget' -k 8", "memdown expand 3f2a9c", "memdown stats",
                                     "memdown reflect list --json", "memdown --dir .memdown search x", "memdown mining"])
def test_recall_and_reading_commands_still_run(isolate_paths: Path, command: str) -> None:
    for client, event, shape, field in CLEARED:
        proc = subprocess.run([sys.executable, "-m", "memdown", "hook", event, client],
                              input=json.dumps(shape(str(isolate_paths), command)), capture_output=True, text=True,
                              timeout=120)
        assert json.loads(proc.stdout) == {}, (client, command, proc.stdout)


def test_claude_codes_own_path_is_unchanged(isolate_paths: Path) -> None:
    """Claude Code's recall skill has its own Bash rules and its hook shim answers without Python when no guard
    exists (docs/trust.md): memdown's answer there stays the CLI's exit 11, not a hook refusal."""
    payload = {"session_id": "s", "cwd": str(isolate_paths), "tool_name": "Bash",
               "tool_input": {"command": "memdown reflect promote 3f2a --target project"}}
    proc = subprocess.run([sys.executable, "-m", "memdown", "hook", "PreToolUse"], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=120)
    assert json.loads(proc.stdout) == {}
