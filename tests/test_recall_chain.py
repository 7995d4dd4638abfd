"""From a real Claude Code transcript to recall: Stop hook → daily file → index →
search → expand → transcript drill-down to the exact turn (real model, real LanceDB)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memdown.transcript.parser import parse_transcript

pytestmark = pytest.mark.integration


def memdown(*args: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "memdown", *args], input=stdin, capture_output=True, text=True,
                          env={**os.environ, "MEMDOWN_HOOK_SYNC": "1", "MEMDOWN_WATCH_ENABLED": "0",
                               "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
                               **(env or {})}, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


MAIN_SESSIONS = [
    "semi-synthetic/obra-episodic-memory/tiny-conversation.jsonl",
    "semi-synthetic/DRMacIver-claude-reliability/coverage-test-fix.jsonl",
    "real/bradymholt-dotfiles/-Users-bholt-dev-evergreen/b6076239-b6a8-42a2-8a61-9d0390bdcf3b.jsonl",
    "real/austinweitao-claude-backup/-home-cwtrocks-OpenCoreAnalysisKit/5ea5e99e-9793-4288-9c85-c9838be1630c.jsonl",
]


@pytest.mark.parametrize("name", MAIN_SESSIONS)
def test_stop_hook_records_every_turn_of_real_transcripts(name, shared_transcripts, memory_root, isolate_paths):
    path = shared_transcripts / name
    parsed = parse_transcript(path, include_subagents=False)
    # Every turn the model worked on; `!cmd` shell-mode turns and turns with no reply
    # (client-only, or folded into the next turn) get no entry of their own (docs/entries.md).
    expected = [t for t in parsed.turns if t.prompt.strip() and t.kind != "bash" and (t.assistant_texts or t.tool_calls)]
    payload = {"session_id": parsed.session_id, "transcript_path": str(path), "cwd": str(isolate_paths)}
    proc = memdown("hook", "Stop", stdin=json.dumps(payload))
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}
    text = "".join(p.read_text() for p in (memory_root / "memory").glob("*.md"))
    for turn in expected:
        assert f"turn:{turn.uuid} " in text
    assert sum(line.startswith("### ") for line in text.splitlines()) == len(expected)
    # Hook-injected text from other plugins never becomes "what the user asked".
    assert "<system-reminder>" not in text and "hook_additional_context" not in text


def test_search_expand_and_drill_down_to_the_exact_turn(shared_transcripts, memory_root, isolate_paths):
    path = shared_transcripts / "semi-synthetic/obra-episodic-memory/tiny-conversation.jsonl"
    parsed = parse_transcript(path)
    payload = {"session_id": parsed.session_id, "transcript_path": str(path), "cwd": str(isolate_paths)}
    assert memdown("hook", "SessionEnd", stdin=json.dumps(payload)).returncode == 0
    hits = json.loads(memdown("search", "what is the right way to fix the instructions", "--json", "-k", "3").stdout)
    assert hits, "the recorded turn must be searchable"
    top = hits[0]
    assert top["session"] == parsed.session_id and top["turn"] == parsed.turns[1].uuid
    expanded = json.loads(memdown("expand", top["id"][:10], "--json").stdout)
    assert f"turn:{parsed.turns[1].uuid}" in expanded["text"]
    assert not expanded["transcript"].startswith(str(Path.home()))  # portable, no home dir leak
    # Drill down by session id: the live file first, then the archive after Claude Code deleted it.
    shown = memdown("transcript", parsed.session_id, "--turn", top["turn"][:8])
    assert shown.returncode == 0, shown.stderr
    assert "right way to fix the instructions" in shown.stdout
    archive = Path(os.environ["MEMDOWN_HOME"]) / "transcripts"
    assert any(archive.rglob(f"{parsed.session_id}*")), "SessionEnd archives the transcript"
    assert all(oct(p.stat().st_mode & 0o777) == "0o600" for p in archive.rglob("*") if p.is_file())
