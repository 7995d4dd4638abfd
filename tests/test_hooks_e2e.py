"""Hooks end to end: real `memdown hook` subprocesses fed Claude Code's JSON."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from capture_stress import parked, pending, recorded, start_gated_hooks, wait_settled, workers_running, write_sessions
from conftest import wait_for
from transcript_factory import TranscriptBuilder, hook_payload

HEAVY = ("lancedb", "fastembed", "pyarrow", "numpy", "onnxruntime")


def run_hook(event: str, stdin: str, *, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memdown", "hook", event],
        input=stdin, capture_output=True, text=True, timeout=180,  # sync SessionEnd indexes for real
        env={**os.environ, **(env or {})}, cwd=cwd,
    )


@pytest.fixture
def fake_claude(tmp_path: Path) -> dict:
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    script = bin_dir / "claude"
    script.write_text(
        "#!/bin/sh\n"
        'env > "$FAKE_CLAUDE_ENV"\n'
        'cat > "$FAKE_CLAUDE_INPUT"\n'
        "printf -- '- The user asked to fix the flaky login test\\n- Replaced time.sleep with an Event wait in tests/test_login.py\\n'\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "FAKE_CLAUDE_ENV": str(tmp_path / "claude-env.txt"),
        "FAKE_CLAUDE_INPUT": str(tmp_path / "claude-input.txt"),
        "MEMDOWN_HOOK_SYNC": "1",
    }


@pytest.fixture
def no_claude(tmp_path: Path) -> dict:
    """PATH without any `claude`: only the interpreter's folder and system dirs."""
    return {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin", "MEMDOWN_HOOK_SYNC": "1"}


def _session(tmp_path: Path, prompt: str = "Fix the flaky login test please") -> tuple[TranscriptBuilder, Path]:
    b = TranscriptBuilder()
    b.prompt(prompt)
    b.tool("Read", {"file_path": "tests/test_login.py"}, "def test_login(): ...")
    b.tool("Bash", {"command": "pytest tests/test_login.py -q"}, "Exit code 1\nFAILED test_login", is_error=True)
    b.tool("Edit", {"file_path": "tests/test_login.py", "old_string": "a", "new_string": "b"}, "ok")
    b.reply("Replaced the sleep with an Event wait; the test passes 50/50 runs now.")
    return b, b.write(tmp_path / "claude" / f"{b.session_id}.jsonl")


def _day_files(root: Path) -> list[Path]:
    return sorted((root / "memory").glob("*.md"))


def test_stop_with_claude_writes_its_bullets_and_guards_recursion(tmp_path, memory_root, isolate_paths, fake_claude):
    b, transcript = _session(tmp_path)
    proc = run_hook("Stop", hook_payload("Stop", b, transcript, isolate_paths), env=fake_claude)
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}
    text = _day_files(memory_root)[0].read_text()
    assert "Replaced time.sleep with an Event wait" in text
    assert f"<!-- session:{b.session_id} turn:{b.turn_uuids[0]} transcript:" in text
    assert text.count("### ") == 1 and "## Session" in text
    child_env = Path(fake_claude["FAKE_CLAUDE_ENV"]).read_text()
    assert "MEMDOWN_DISABLE=1" in child_env  # the summarizer's own session fires no memdown hook
    assert "Fix the flaky login test" in Path(fake_claude["FAKE_CLAUDE_INPUT"]).read_text()


def test_stop_without_claude_writes_extractive_summary(tmp_path, memory_root, isolate_paths, no_claude):
    b, transcript = _session(tmp_path)
    proc = run_hook("Stop", hook_payload("Stop", b, transcript, isolate_paths), env=no_claude)
    assert proc.returncode == 0
    text = _day_files(memory_root)[0].read_text()
    assert "Asked: Fix the flaky login test please" in text
    assert "`tests/test_login.py`" in text and "pytest tests/test_login.py -q" in text
    assert "Outcome: Replaced the sleep with an Event wait" in text


def test_failing_claude_falls_back(tmp_path, memory_root, isolate_paths, fake_claude):
    (Path(fake_claude["PATH"].split(os.pathsep)[0]) / "claude").write_text("#!/bin/sh\nexit 3\n")
    b, transcript = _session(tmp_path)
    run_hook("Stop", hook_payload("Stop", b, transcript, isolate_paths), env=fake_claude)
    assert "Asked: Fix the flaky login test please" in _day_files(memory_root)[0].read_text()


def test_same_turn_is_never_written_twice(tmp_path, memory_root, isolate_paths, no_claude):
    b, transcript = _session(tmp_path)
    for _ in range(3):
        run_hook("Stop", hook_payload("Stop", b, transcript, isolate_paths), env=no_claude)
    run_hook("SessionEnd", hook_payload("SessionEnd", b, transcript, isolate_paths, reason="exit"),
             env={**no_claude, "MEMDOWN_WATCH_ENABLED": "0"})
    assert _day_files(memory_root)[0].read_text().count(f"turn:{b.turn_uuids[0]}") == 1


def test_second_turn_goes_under_the_same_session_heading(tmp_path, memory_root, isolate_paths, no_claude):
    b, transcript = _session(tmp_path)
    run_hook("Stop", hook_payload("Stop", b, transcript, isolate_paths), env=no_claude)
    other, other_path = _session(tmp_path, "Another session asks about redis")
    run_hook("Stop", hook_payload("Stop", other, other_path, isolate_paths), env=no_claude)
    b.prompt("Now add a regression test for the login race")
    b.reply("Added test_login_race.")
    b.write(transcript)
    run_hook("Stop", hook_payload("Stop", b, transcript, isolate_paths), env=no_claude)
    text = _day_files(memory_root)[0].read_text()
    first_session = text.index(f"session:{b.session_id}")
    other_session = text.index(f"session:{other.session_id}")
    second_turn = text.index(f"turn:{b.turn_uuids[1]}")
    # A day only grows at its end (docs/entries.md): the second turn follows the other session's
    # section, under the first session's own heading repeated as "(continued)".
    assert first_session < other_session < second_turn
    headings = [line for line in text.splitlines() if line.startswith("## Session")]
    assert len(headings) == 3 and headings[2] == headings[0] + " (continued)"
    assert other_session < text.index(headings[2]) < second_turn


def test_secrets_are_redacted_and_skip_marker_records_nothing(tmp_path, memory_root, isolate_paths, no_claude):
    token = "ghp_" + "Ab3" * 12
    b, transcript = _session(tmp_path, f"deploy with GITHUB_TOKEN={token} and <private>my diary</private>")
    run_hook("Stop", hook_payload("Stop", b, transcript, isolate_paths), env=no_claude)
    text = _day_files(memory_root)[0].read_text()
    assert token not in text and "my diary" not in text and "[REDACTED" in text

    s, skip_path = _session(tmp_path, "<memdown:skip> this is off the record")
    run_hook("Stop", hook_payload("Stop", s, skip_path, isolate_paths), env=no_claude)
    assert s.session_id not in "".join(p.read_text() for p in _day_files(memory_root))


def test_disable_and_stop_hook_active_are_no_ops(tmp_path, memory_root, isolate_paths, no_claude):
    b, transcript = _session(tmp_path)
    proc = run_hook("Stop", hook_payload("Stop", b, transcript, isolate_paths), env={**no_claude, "MEMDOWN_DISABLE": "1"})
    assert proc.returncode == 0 and proc.stdout.strip() == "{}"
    proc = run_hook("Stop", hook_payload("Stop", b, transcript, isolate_paths, stop_hook_active=True), env=no_claude)
    assert proc.returncode == 0
    assert not _day_files(memory_root)


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostToolUseFailure",
                                   "SessionEnd", "session-start", "user-prompt-submit"])
@pytest.mark.parametrize("stdin", ["", "not json", "[1,2]", '{"cwd": 5, "transcript_path": "/nonexistent/x.jsonl"}',
                                   "\udcff".encode("utf-8", "surrogateescape").decode("latin-1")])
def test_every_hook_fails_open(event, stdin, no_claude):
    proc = run_hook(event, stdin, env=no_claude)
    assert proc.returncode == 0, proc.stderr
    assert isinstance(json.loads(proc.stdout), dict)
    assert "Traceback" not in proc.stderr


def test_session_start_digest_and_status(tmp_path, memory_root, isolate_paths, no_claude):
    b, transcript = _session(tmp_path)
    run_hook("Stop", hook_payload("Stop", b, transcript, isolate_paths), env=no_claude)
    proc = run_hook("SessionStart", json.dumps({"session_id": "new", "cwd": str(isolate_paths), "source": "startup"}),
                    env={**no_claude, "MEMDOWN_WATCH_ENABLED": "0"})
    out = json.loads(proc.stdout)
    assert out["systemMessage"].startswith("memdown: 1 day(s) of memory")
    context = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Fix the flaky login test" in context and len(context) <= 10_000
    # The digest budget is honoured.
    proc = run_hook("SessionStart", json.dumps({"session_id": "new", "cwd": str(isolate_paths), "source": "resume"}),
                    env={**no_claude, "MEMDOWN_WATCH_ENABLED": "0", "MEMDOWN_HOOKS_DIGEST_CHARS": "50"})
    assert "Fix the flaky" not in json.dumps(json.loads(proc.stdout))
    assert not list((memory_root / "memory").glob("*.md"))[0].read_text().count("## Session") > 1


def test_prompt_hint_first_prompt_and_recall_cues(memory_root, isolate_paths, no_claude):
    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-11-20.md").write_text("# 2026-11-20\n\n### 10:00\n- did a thing\n")
    payload = {"session_id": "p1", "cwd": str(isolate_paths), "prompt": "add a button to the settings page"}
    first = json.loads(run_hook("UserPromptSubmit", json.dumps(payload), env=no_claude).stdout)
    assert "memory-recall" in first["hookSpecificOutput"]["additionalContext"]
    second = json.loads(run_hook("UserPromptSubmit", json.dumps(payload), env=no_claude).stdout)
    assert second == {}
    payload["prompt"] = "why did we change the cache last time?"
    cued = json.loads(run_hook("UserPromptSubmit", json.dumps(payload), env=no_claude).stdout)
    assert "2026-11-20" in cued["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "Stop", "PostToolUseFailure"])
def test_hook_fast_path_imports_nothing_heavy(event, tmp_path, memory_root, isolate_paths):
    b, transcript = _session(tmp_path)
    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-11-20.md").write_text("# 2026-11-20\n\n### 10:00\n- did a thing\n")
    code = (  # a hook leaves with os._exit (no atexit work): the report is written there
        "import os, sys\n"
        "_exit = os._exit\n"
        f"os._exit = lambda code: (sys.stderr.write('HEAVY=' + ','.join(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))), sys.stderr.flush(), _exit(code))\n"
        f"sys.argv = ['memdown', 'hook', {event!r}]\n"
        "from memdown.entry import main\nmain()\n"
    )
    payload = hook_payload(event, b, transcript, isolate_paths, prompt="why did we do this before?",
                           tool_name="Bash", tool_input={"command": "make"}, error="Exit code 2")
    proc = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True, text=True,
                          env={**os.environ, "MEMDOWN_WATCH_ENABLED": "0"}, timeout=60)
    assert proc.returncode == 0
    assert "HEAVY=" in proc.stderr and proc.stderr.split("HEAVY=")[-1].strip() == ""


@pytest.mark.integration
def test_twenty_overlapping_stop_hooks_lose_no_turn(tmp_path, memory_root, isolate_paths, no_claude):
    """20 real hook processes released together by a barrier, async as in the client: every turn lands once.

    (The old version of this test ran 16 sequential loops that barely overlapped,
    and failed on unchanged code under load; bench/bench_capture_stress.py runs 64.)
    """
    payloads, expected = write_sessions(tmp_path, isolate_paths, 20, 2)
    env = {**os.environ, **no_claude, "MEMDOWN_HOOK_SYNC": "0", "MEMDOWN_ARCHIVE_ENABLED": "0"}
    barrier = tmp_path / "go"
    procs = start_gated_hooks(payloads, barrier, env, isolate_paths)
    time.sleep(0.3)  # all shells are waiting on the barrier
    barrier.touch()
    outputs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * 20 and all(json.loads(o) == {} for o in outputs)
    wait_settled(memory_root, expected, time.monotonic() + 300)
    found = recorded(memory_root)
    assert set(found) == expected and len(found) == len(expected)  # nothing lost, nothing twice
    # The last jobs are removed just after their entries land; then the workers leave.
    assert wait_for(lambda: pending(memory_root) == 0 and not workers_running(memory_root), timeout=60)
    assert parked(memory_root) == 0


OVERSIZED = json.dumps({"session_id": "s", "prompt": "x" * (9 << 20)})  # valid JSON, over the 8 MB read


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "Stop", "PostToolUseFailure", "PreToolUse"])
@pytest.mark.parametrize("stdin, why", [(OVERSIZED, "payload over 8 MB"),
                                       ('{"prompt": "unterminated', "error JSONDecodeError: Unterminated string")],
                         ids=["9MB", "not-json"])
def test_a_payload_the_hook_cannot_read_is_answered_empty_and_logged(event, stdin, why, memory_root, isolate_paths,
                                                                      no_claude):
    """Fail open, never silent: the hook answers {} and its project's hooks.log says why (the root comes from
    the hook's working folder or MEMDOWN_DIR when the payload, which names the cwd, cannot be read)."""
    (memory_root / "memory").mkdir(parents=True)
    if event == "PreToolUse":  # with a guard file, so the payload is read at all
        home = Path(os.environ["MEMDOWN_HOME"])
        home.mkdir(parents=True)
        (home / "guards.json").write_text(json.dumps({"format": 1, "guards": [
            {"id": "L1", "root": "", "rule": "Use pnpm, not npm.", "decision": "deny",
             "forbid": [{"argv": ["npm"], "instead": ["pnpm"]}]}]}))
    proc = run_hook(event, stdin, env=no_claude, cwd=isolate_paths)
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}, proc.stderr
    log = memory_root / "logs" / "hooks.log"
    assert log.is_file() and f"{event} {why}" in log.read_text(), log.read_text() if log.is_file() else "no log"
