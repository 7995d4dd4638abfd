"""Harness for the Codex end-to-end tests: the REAL Codex CLI, memdown installed into it, a fake model.

Mirrors ``conftest.World`` for Claude Code. Each test gets a ``CodexWorld`` (an ``agent_cli.AgentWorld``):
an isolated HOME and CODEX_HOME, a git project, a PATH folder holding this checkout's ``memdown``, and a ``FakeResponsesAPI``
on 127.0.0.1 that plays the model through a custom provider (``wire_api = "responses"``, its
``base_url`` on the fake). memdown is set up the way a person does it, ``memdown install codex``;
``--dangerously-bypass-hook-trust`` stands in for the person's review of the new hooks in Codex's
``/hooks`` (Codex runs no untrusted hook, and memdown never writes that trust itself).

The CLI comes from ``$MEMDOWN_E2E_CODEX`` or the repo-local install ``.ci/run`` makes (``.e2e/codex``);
without it every Codex test skips with one line.
"""
from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .agent_cli import AgentWorld, find_cli
from .fake_responses import FakeResponsesAPI

REPO = Path(__file__).resolve().parents[2]
PINNED = "0.171.0"
LOCAL_CLI = REPO / ".e2e" / "codex" / "node_modules" / ".bin" / "codex"


def find_codex() -> tuple[str | None, str]:
    """(path, why-not): the pinned Codex CLI, or None and a one-line reason."""
    return find_cli("Codex CLI", "MEMDOWN_E2E_CODEX", LOCAL_CLI, PINNED, ".e2e/codex")


@dataclass
class CodexRun:
    proc: subprocess.CompletedProcess
    session_id: str

    @property
    def out(self) -> str:
        return self.proc.stdout


@dataclass
class CodexWorld(AgentWorld):
    CLIENT = "codex"
    api: FakeResponsesAPI
    runs: list[CodexRun] = field(default_factory=list)

    def env(self, **extra: str) -> dict[str, str]:
        return super().env(**{"CODEX_HOME": str(self.client_home), "FAKE_OPENAI_KEY": "sk-e2e-fake", **extra})

    def codex(self, prompt: str, *, timeout: float = 180) -> CodexRun:
        api = self.api.url
        cmd = [str(self.bin / "codex"), "exec", "--skip-git-repo-check", "--json",
               "-c", "model_provider=memdown_fake", "-c", "model=gpt-fake",
               "-c", "model_providers.memdown_fake.name=fake",
               "-c", f"model_providers.memdown_fake.base_url={api}",
               "-c", "model_providers.memdown_fake.wire_api=responses",
               "-c", "model_providers.memdown_fake.env_key=FAKE_OPENAI_KEY",
               "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", prompt]
        proc = self.run_client(cmd, timeout)
        run = CodexRun(proc, _thread_id(proc.stdout))
        self.runs.append(run)
        return run

    def rollouts(self) -> list[Path]:
        return sorted((self.client_home / "sessions").rglob("rollout-*.jsonl"))


def _thread_id(stdout: str) -> str:
    for line in stdout.splitlines():
        try:
            event: Any = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "thread.started":
            return str(event.get("thread_id") or "")
    return ""
