"""End to end through real subprocesses: mine → memdown reflect → CLAUDE.md → SessionStart; failure lookup."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_memdown
from transcript_factory import TranscriptBuilder

PG = "Exit code 2\npsql: error: connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or directory"


def _json(proc) -> object:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.integration
def test_session_to_claude_md_to_session_start(memory_root, isolate_paths, tmp_path):
    memory_root.mkdir(parents=True)
    claude = isolate_paths / "CLAUDE.md"
    claude.write_text("# Shop\n\nA web shop.\n")
    tb = TranscriptBuilder(session_id="sess-e2e", cwd=str(isolate_paths))
    tb.prompt("set up the dev database")
    tb.tool("Bash", {"command": "psql -c 'create database shop'"}, PG, is_error=True)
    tb.tool("Bash", {"command": "docker compose up -d db && psql -c 'create database shop'"}, "CREATE DATABASE")
    tb.tool("Bash", {"command": "npm install"}, "added 200 packages")
    tb.reply("Database created and deps installed with npm.")
    tb.prompt("no, use pnpm not npm")
    tb.tool("Bash", {"command": "pnpm install"}, "Done")
    tb.tool("Edit", {"file_path": "README.md"}, "ok")
    tb.reply("Switched to pnpm.")
    tb.prompt("perfect. and stop using var in new code")
    transcript = tb.write(tmp_path / "sess-e2e.jsonl")

    mined = _json(run_memdown("reflect", "mine", str(transcript), "--json"))
    assert {s["type"] for s in mined} >= {"correction", "positive", "failure"}
    review = _json(run_memdown("reflect", "list", "--json"))
    texts = {c["text"]: c for c in review["candidates"]}
    pnpm = texts["Use pnpm not npm."]
    assert pnpm["target"] == "project" and pnpm["confidence"] == 3

    shown = _json(run_memdown("reflect", "show", pnpm["id"], "--json"))
    assert shown["signals"][0]["session"] == "sess-e2e"
    result = _json(run_memdown("reflect", "promote", pnpm["id"], "--to", "project", "--json"))
    assert Path(result["backup"]).read_text() == "# Shop\n\nA web shop.\n"
    assert f"- Use pnpm not npm. <!-- memdown:{result['learning']} #" in claude.read_text()
    dismissed = _json(run_memdown("reflect", "dismiss", texts["Stop using var in new code."]["id"], "--json"))
    assert dismissed[0]["action"] == "dismiss"
    stats = _json(run_memdown("reflect", "stats", "--json"))
    assert stats["learnings"] == {"promoted": 1}
    rows = {(r["kind"], r["name"]): r for r in stats["acceptance"]}
    assert rows[("type", "correction")]["accepted"] == 1 and rows[("type", "correction")]["dismissed"] == 1

    # the next session starts with the learning in its digest
    payload = json.dumps({"session_id": "next", "cwd": str(isolate_paths), "hook_event_name": "SessionStart",
                          "source": "startup", "transcript_path": str(tmp_path / "next.jsonl")})
    # MEMDOWN_HOOK_SYNC: this test is about what the hooks say, not their time budget (a loaded 2-core
    # machine can blow it, and the hook then fails open with {} as it should)
    out = _json(run_memdown("hook", "SessionStart", input=payload, env={"MEMDOWN_HOOK_SYNC": "1"}))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "Use pnpm not npm." in context

    # a known failure comes back with its fix, at once
    payload = json.dumps({"session_id": "next", "cwd": str(isolate_paths), "hook_event_name": "PostToolUseFailure",
                          "tool_name": "Bash", "tool_input": {"command": "psql -c 'select 1'"}, "error": PG,
                          "transcript_path": str(tmp_path / "next.jsonl")})
    out = _json(run_memdown("hook", "PostToolUseFailure", input=payload, env={"MEMDOWN_HOOK_SYNC": "1"}))
    fix = out["hookSpecificOutput"]["additionalContext"]
    assert "docker compose up -d db" in fix and len(fix) <= 1500

    undo = _json(run_memdown("reflect", "undo", result["learning"], "--json"))
    assert undo["action"] == "revert" and "memdown:LRN" not in claude.read_text()
    sweep = _json(run_memdown("reflect", "sweep", "--json"))
    assert set(sweep) == {"folded", "expired", "semantic", "automemory"}


def test_mining_toggle_says_what_it_does(memory_root):
    memory_root.mkdir(parents=True)
    assert _json(run_memdown("mining", "status", "--json"))["enabled"] is True
    off = _json(run_memdown("mining", "off", "--json"))
    assert off["enabled"] is False and Path(off["written"]) == memory_root / "config.toml"
    shown = run_memdown("mining")
    assert "signal mining is off" in shown.stdout and "daily log is written either way" in shown.stdout
    assert _json(run_memdown("mining", "on", "--json"))["enabled"] is True
    assert "capture" not in run_memdown("--help").stdout  # the old name is hidden, not advertised


def test_the_old_capture_name_still_works_with_a_one_line_notice(memory_root):
    memory_root.mkdir(parents=True)
    old = run_memdown("capture", "off", "--json")
    assert old.returncode == 0 and _json(old)["enabled"] is False
    assert old.stderr.count("\n") == 1 and "`memdown mining`" in old.stderr
    assert _json(run_memdown("mining", "status", "--json"))["enabled"] is False


def test_errors_are_one_line_with_exit_codes(memory_root):
    proc = run_memdown("reflect", "list")
    assert proc.returncode == 3 and "memdown init" in proc.stderr
    memory_root.mkdir(parents=True)
    proc = run_memdown("reflect", "show", "SIG-20990101-0001")
    assert proc.returncode == 6 and "no signal" in proc.stderr and "Traceback" not in proc.stderr
    assert run_memdown("reflect", "list").stdout.strip() == "Nothing to review."
