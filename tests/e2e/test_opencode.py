"""The real OpenCode CLI (npm ``opencode-ai``, pinned) with memdown's plugin, against a local fake model.

``opencode run`` with an ``@ai-sdk/openai-compatible`` provider whose ``baseURL`` is ``FakeChatAPI`` on
127.0.0.1: the scripted model asks for ``npm install left-pad``; the plugin memdown installed
(``memdown install opencode --project``) runs ``memdown hook PreToolUse opencode``, the rule a person
approved on this machine ("use pnpm, not npm") stops the call, and the model is handed the rule as the
tool's error; when the session goes idle the plugin's ``memdown hook Stop opencode`` records the session's
turn from OpenCode's database under ``## Session HH:MM (opencode)``. Skips with one line when the CLI is absent (``.ci/run`` installs it in ``.e2e/opencode``).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_guards import promote_quote

from .fake_chat import FakeChatAPI

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
PINNED = "1.18.33"
LOCAL_CLI = REPO / ".e2e" / "opencode" / "node_modules" / ".bin" / "opencode"


def find_opencode() -> str:
    candidate = os.environ.get("MEMDOWN_E2E_OPENCODE") or (str(LOCAL_CLI) if LOCAL_CLI.exists() else "")
    if not candidate:
        pytest.skip("OpenCode CLI not installed (set MEMDOWN_E2E_OPENCODE or run .ci/run to put it in .e2e/opencode)")
    proc = subprocess.run([candidate, "--version"], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        pytest.skip(f"OpenCode CLI at {candidate} does not run: {(proc.stderr or proc.stdout).strip()[:120]}")
    if PINNED not in proc.stdout:
        print(f"note: the OpenCode e2e test pins {PINNED}, found {proc.stdout.strip()}", file=sys.stderr)
    return candidate


def _log_tail() -> str:
    logs = sorted((Path(os.environ["XDG_DATA_HOME"]) / "opencode" / "log").glob("*.log"))
    return "\n".join(logs[-1].read_text().splitlines()[-30:]) if logs else "(no opencode log)"


def _config(api: FakeChatAPI) -> dict:
    return {"$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
            "model": "fake/m", "small_model": "fake/m",
            "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                                  "options": {"baseURL": api.url, "apiKey": "fake"},
                                  "models": {"m": {"name": "m", "tool_call": True}}}}}


def test_an_approved_guard_stops_the_real_clients_command(memory_root: Path, isolate_paths: Path) -> None:
    opencode = find_opencode()
    project = isolate_paths
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "XDG_CACHE_HOME": str(REPO / ".e2e" / "opencode" / "cache"),  # the provider package, fetched once
           "OPENCODE_DISABLE_AUTOUPDATE": "1", "PWD": str(project)}  # opencode run takes its folder from $PWD
    installed = subprocess.run([sys.executable, "-m", "memdown", "install", "opencode", "--project"], cwd=project,
                               env=env, capture_output=True, text=True, timeout=60)
    assert installed.returncode == 0 and (project / ".opencode" / "plugins" / "memdown.js").is_file(), installed.stderr
    promote_quote(memory_root, "no, use pnpm, not npm")
    with FakeChatAPI(["npm install left-pad"]) as api:
        (project / "opencode.json").write_text(json.dumps(_config(api)))
        run = subprocess.run([opencode, "run", "install left-pad"], cwd=project, env=env, capture_output=True,
                             text=True, timeout=300)
        results = api.tool_results()
    assert run.returncode == 0, run.stderr[-2000:] + _log_tail()
    assert results and "memdown guard" in results[0] and "pnpm" in results[0], (results, run.stdout[-2000:])
    assert not (project / "node_modules" / "left-pad").exists()  # the command never ran
    log = (memory_root / "logs" / "hooks.log").read_text()
    assert "PreToolUse" in log and "deny" in log
    # session.idle: the plugin queued the capture of this session from OpenCode's database.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and "(opencode)" not in _days(memory_root):
        time.sleep(0.5)
    days = _days(memory_root)
    assert "## Session" in days and "(opencode)" in days and "session:ses_" in days, (days, log, _worker_log())
    assert "left-pad" in days


def _days(memory_root: Path) -> str:
    return "".join(p.read_text() for p in sorted((memory_root / "memory").glob("*.md")))


def _worker_log() -> str:
    logs = sorted((Path(os.environ["MEMDOWN_DIR"]) / "logs").glob("*.log"))
    return "\n".join(p.read_text()[-1500:] for p in logs)
