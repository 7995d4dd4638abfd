"""The guard hook's latency as Claude Code measures it (called by bench_guards.py --client N).

N real ``claude -p`` sessions (the pinned CLI of tests/e2e) against the fake Messages API; in each,
the scripted model makes four Bash calls: ``npm install`` (stopped by a guard), ``ls``, ``npm ci``
(stopped), ``git status``. The client's own timing of each PreToolUse:Bash hook is read from
``--debug-file``. memdown runs from a venv holding this checkout (no dependencies: the guard's path
is standard library), which the plugin's shim starts with ``python -I -S`` as a plugin install runs it.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
from memdown import shellguard  # noqa: E402
from tests.e2e.conftest import World, find_claude  # noqa: E402
from tests.e2e.fake_api import FakeMessagesAPI, Reply, Request  # noqa: E402

CALLS = ["npm install", "ls", "npm ci", "git status"]


def _responder(req: Request) -> Reply:
    if "haiku" in req.model:
        return Reply.text("- ran four commands\n- two were stopped")
    done = len(req.tool_results())
    if done < len(CALLS):
        return Reply.tool("Bash", {"command": CALLS[done], "description": "step"})
    return Reply.text("done")


def client_latency(active: list[dict], sessions: int, load: Callable[[], str]) -> None:
    cli, why = find_claude()
    if cli is None:
        print(f"client latency skipped: {why}")
        return
    with tempfile.TemporaryDirectory(prefix="bench-client-guards-", ignore_cleanup_errors=True) as tmp:  # workers may still write
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-deps", str(REPO)], check=True,
                       capture_output=True)
        stopped: list[int] = []
        passed: list[int] = []
        with FakeMessagesAPI(_responder) as api:
            world = World(cli, Path(tmp) / "w", api)
            home = world.home / ".local" / "share" / "memdown"
            home.mkdir(parents=True)
            (home / shellguard.GUARD_FILE).write_text(json.dumps({"format": shellguard.FORMAT, "guards": active}))
            for _ in range(sessions):
                run = world.claude("go", args=("--allowedTools", "Bash"), MEMDOWN_BIN=str(venv / "bin" / "memdown"))
                timings = [h.ms for h in run.hooks("PreToolUse") if h.matcher == "Bash" and h.ms is not None]
                for k, ms in enumerate(timings):
                    (stopped if CALLS[k % len(CALLS)].startswith("npm") else passed).append(ms)
        for label, values in (("stopped", stopped), ("passes", passed)):
            if values:
                print(f"client PreToolUse:Bash ({label}): median {statistics.median(values):.0f} ms over "
                      f"{len(values)} calls in {sessions} sessions; load {load()}")
            else:
                print(f"client PreToolUse:Bash ({label}): no timings found")
