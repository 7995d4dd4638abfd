"""One redaction for everything that leaves the transcript (issue #27.5): the drill-down.

``memdown transcript`` reads the live transcript, where secrets are as typed; it printed a GitHub
token the daily log and archive had redacted, also under ``CLAUDECODE=1``, so into the model's
context. Now the list and the turn views (text and JSON) are redacted; ``--raw`` shows the
recorded text only to a person at a terminal, never under a coding agent or into a pipe.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import run_memdown
from memdown import paths
from transcript_factory import TranscriptBuilder

TOKEN = "ghp_" + "R8s2Kq" + "Lm4Vx9Tz1Bc7Np3Wd6Yh0Fj5Ga2Qe"


def _live_transcript():
    b = TranscriptBuilder()
    b.prompt(f"use my token {TOKEN} to push")
    b.tool("Bash", {"command": f"GH_TOKEN={TOKEN} gh pr create"}, f"remote: token {TOKEN} ok")
    b.reply(f"Pushed with {TOKEN}.")
    return b, b.write(paths.claude_home() / "projects" / "-repo" / f"{b.session_id}.jsonl")


@pytest.mark.parametrize("view", [["--turn", "last"], ["--turn", "last", "--json"], [], ["--json"]])
@pytest.mark.parametrize("agent", [True, False])
def test_transcript_views_are_redacted(isolate_paths, view, agent):
    b, _live = _live_transcript()
    proc = run_memdown("transcript", b.session_id, *view, env={"CLAUDECODE": "1"} if agent else {})
    assert proc.returncode == 0, proc.stderr
    assert "R8s2KqLm4Vx9" not in proc.stdout
    if "--turn" in view:
        assert "[REDACTED:" in proc.stdout
        assert "gh pr create" in proc.stdout  # the rest of the turn is shown
    if "--json" in view:
        json.loads(proc.stdout)


def test_raw_is_refused_under_a_coding_agent(isolate_paths):
    b, _live = _live_transcript()
    proc = run_memdown("transcript", b.session_id, "--turn", "last", "--raw", env={"CLAUDECODE": "1"})
    assert proc.returncode != 0
    assert "R8s2KqLm4Vx9" not in proc.stdout + proc.stderr
    assert "coding agent" in proc.stderr


def test_raw_is_refused_into_a_pipe(isolate_paths):
    b, _live = _live_transcript()
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "AI_AGENT")}
    proc = subprocess.run([sys.executable, "-m", "memdown", "transcript", b.session_id, "--turn", "last", "--raw"],
                          capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    assert proc.returncode != 0
    assert "R8s2KqLm4Vx9" not in proc.stdout
    assert "terminal" in proc.stderr


def test_raw_shows_the_recorded_text_to_a_person_at_a_terminal(isolate_paths):
    import pty

    b, _live = _live_transcript()
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "AI_AGENT")}
    env["COLUMNS"] = "200"
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal on stdin and stdout
        os.execve(sys.executable, [sys.executable, "-m", "memdown", "transcript", b.session_id, "--turn", "last",
                                   "--raw"], env)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    assert TOKEN in out.decode(errors="replace").replace("\r\n", "\n").replace("\n", "")


def test_expand_shows_a_secret_pasted_into_a_day_file_redacted(memory_root):
    from conftest import FakeEmbedder
    from memdown.config import load_config
    from memdown.services.upkeep.memory import Memory

    memory_root.mkdir(parents=True)
    day = paths.daily_file(memory_root, "2026-03-14")
    day.parent.mkdir(parents=True, exist_ok=True)
    day.write_text(f"# 2026-03-14\n\n## Notes\n\n- the deploy token is {TOKEN} for now\n")
    mem = Memory(memory_root, config=load_config(memory_root), embedder=FakeEmbedder())
    mem.index()
    hit = mem.search("deploy token", k=1, mode="text")[0]
    shown = mem.expand(hit.id[:12]).text
    assert "deploy token" in shown and "R8s2KqLm4Vx9" not in shown
