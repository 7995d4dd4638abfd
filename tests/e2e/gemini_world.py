"""Harness for the Gemini CLI end-to-end tests: the REAL Gemini CLI, memdown installed into it, a fake model.

Mirrors ``codex_world`` for Codex. Each test gets a ``GeminiWorld`` (an ``agent_cli.AgentWorld``): an isolated HOME (so ``~/.gemini``),
a git project, a PATH folder holding this checkout's ``memdown``, and a ``FakeGeminiAPI`` on 127.0.0.1
that plays the model: ``GOOGLE_GEMINI_BASE_URL`` points the CLI's ``@google/genai`` client at it (the CLI
reads it when it builds its content generator), with the ``gemini-api-key`` auth and a fake key. memdown
is set up the way a person does it, ``memdown install gemini``, into a settings.json that already holds
the person's own settings (auth, no usage statistics, no update check). ``GEMINI_CLI_TRUST_WORKSPACE``
stands in for the person trusting the project folder (``--yolo`` is refused in an untrusted one).

The CLI comes from ``$MEMDOWN_E2E_GEMINI`` or the repo-local install ``.ci/run`` makes (``.e2e/gemini-cli``);
without it every Gemini test skips with one line.
"""
from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .agent_cli import AgentWorld, find_cli
from .fake_gemini import FakeGeminiAPI

REPO = Path(__file__).resolve().parents[2]
_PIN = re.search(r"^GEMINI_CLI_VERSION=(\S+)$", (REPO / ".ci" / "run").read_text(encoding="utf-8"), re.M)
PINNED = _PIN[1] if _PIN else "?"  # the one pin is .ci/run's, which installs it
MODEL = "gemini-2.5-flash"  # a fixed model: "auto" would first ask a router model which one to use
LOCAL_CLI = REPO / ".e2e" / "gemini-cli" / "node_modules" / ".bin" / "gemini"
PERSONS_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}


def find_gemini() -> tuple[str | None, str]:
    """(path, why-not): the pinned Gemini CLI, or None and a one-line reason."""
    return find_cli("Gemini CLI", "MEMDOWN_E2E_GEMINI", LOCAL_CLI, PINNED, ".e2e/gemini-cli")


@dataclass
class GeminiRun:
    proc: subprocess.CompletedProcess

    @property
    def out(self) -> str:
        return self.proc.stdout

    @property
    def session_id(self) -> str:
        try:
            return str(json.loads(self.proc.stdout).get("session_id") or "")
        except ValueError:
            return ""


@dataclass
class GeminiWorld(AgentWorld):
    CLIENT = "gemini"
    api: FakeGeminiAPI
    runs: list[GeminiRun] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.settings_file.write_text(json.dumps(PERSONS_SETTINGS, indent=2), encoding="utf-8")

    @property
    def settings_file(self) -> Path:
        return self.client_home / "settings.json"

    def env(self, **extra: str) -> dict[str, str]:
        return super().env(**{"GOOGLE_GEMINI_BASE_URL": self.api.url, "GEMINI_API_KEY": "fake-gemini-key",
                              "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_COLOR": "1", **extra})

    def gemini(self, prompt: str, *, timeout: float = 240) -> GeminiRun:
        cmd = [str(self.bin / "gemini"), "-p", prompt, "-m", MODEL, "--yolo", "-o", "json"]
        run = GeminiRun(self.run_client(cmd, timeout))
        self.runs.append(run)
        return run

    def chats(self) -> list[Path]:
        return sorted((self.client_home / "tmp").glob("*/chats/session-*.json*"))
