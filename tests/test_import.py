"""``memdown import`` (issue #19, item 1): history in, each turn on its own day, once, resumable."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_memdown, wait_for
from transcript_factory import TranscriptBuilder

from memdown.services.capture.importer import find_transcripts, project_key
from memdown.store.daily import read_entries

ENV = {"MEMDOWN_SUMMARIZER_USE_CLAUDE": "1", "MEMDOWN_ARCHIVE_ENABLED": "0"}  # import must not use claude anyway


def _history(project: Path) -> Path:
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / project_key(project)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _session(folder: Path, day: str, prompts: int = 2, *, correction: bool = False,
             cwd: str = "") -> TranscriptBuilder:
    b = TranscriptBuilder(cwd=cwd or os.getcwd())  # a session started in the project (the test's cwd)
    for n in range(prompts):
        b.prompt(f"Step {n}: wire the {day} exporter into the nightly job")
        b.tool("Edit", {"file_path": f"/work/project/export_{n}.py", "old_string": "a", "new_string": "b"}, "ok")
        b.reply(f"Wired step {n} of the exporter into the nightly job.")
    if correction:
        b.prompt("no, use pnpm not npm for installs in this repo")
        b.reply("Switched the install step to pnpm.")
    for line in b.lines:
        line["timestamp"] = day + line["timestamp"][10:]
    path = b.write(folder / f"{b.session_id}.jsonl")
    os.utime(path, (1_700_000_000, 1_700_000_000))  # an old session, not a live one
    return b


def _anchors(root: Path) -> list[tuple[str, str, str]]:
    return [(p.stem, e.anchor.session, e.anchor.turn) for p in sorted((root / "memory").glob("*.md"))
            for e in read_entries(p) if e.anchor]


def _import(*args: str, env: dict | None = None) -> dict:
    proc = run_memdown("import", *args, "--json", "--no-index", env={**ENV, **(env or {})})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_subagent_logs_are_not_sessions(tmp_path, isolate_paths):
    folder = _history(isolate_paths)
    main = _session(folder, "2026-04-02")
    sub = folder / main.session_id / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-a1.jsonl").write_text((folder / f"{main.session_id}.jsonl").read_text())
    (folder / "agent-b2.jsonl").write_text((folder / f"{main.session_id}.jsonl").read_text())
    assert find_transcripts([], cwd=isolate_paths) == [folder / f"{main.session_id}.jsonl"]
    assert find_transcripts([folder], cwd=tmp_path) == [folder / f"{main.session_id}.jsonl"]


def test_each_turn_lands_on_its_day_signals_on_theirs_and_a_second_run_adds_nothing(isolate_paths, memory_root):
    folder = _history(isolate_paths)
    april = _session(folder, "2026-04-02", correction=True)
    may = _session(folder, "2026-05-06", prompts=3)
    first = _import()
    assert (first["sessions"], first["entries"], first["model_calls"]) == (2, 6, 0), first
    assert first["signals"] >= 1 and {"turns", "skipped", "seconds"} <= set(first)
    anchors = _anchors(memory_root)
    assert {(day, s) for day, s, _ in anchors} == {("2026-04-02", april.session_id), ("2026-05-06", may.session_id)}
    assert sorted(t for _, _, t in anchors) == sorted(april.turn_uuids + may.turn_uuids)
    signal_files = sorted(p.name for p in (memory_root / "signals").glob("*.md"))
    assert signal_files == ["2026-04-02.md"], signal_files  # the day it was said, not today
    before = {p: p.read_bytes() for p in memory_root.rglob("*.md")}
    again = _import()
    assert (again["entries"], again["signals"]) == (0, 0), again
    assert {p: p.read_bytes() for p in memory_root.rglob("*.md")} == before


def test_a_live_sessions_later_stop_never_repeats_an_imported_turn(isolate_paths, memory_root):
    folder = _history(isolate_paths)
    b = _session(folder, "2026-04-02")
    _import()
    b.prompt("And add a retry to the exporter")
    b.reply("Added one retry with backoff to the exporter.")
    path = b.write(folder / f"{b.session_id}.jsonl")
    proc = run_memdown("hook", "Stop", env={**ENV, "MEMDOWN_HOOK_SYNC": "1"}, input=json.dumps({
        "session_id": b.session_id, "transcript_path": str(path), "cwd": str(isolate_paths),
        "hook_event_name": "Stop"}))
    assert proc.returncode == 0, proc.stderr
    turns = [t for _, _, t in _anchors(memory_root)]
    assert sorted(turns) == sorted(b.turn_uuids) and len(turns) == len(set(turns)) == 3


def test_named_transcripts_and_bad_input(isolate_paths, memory_root, tmp_path):
    elsewhere = tmp_path / "exported"
    b = _session(elsewhere, "2026-03-09")
    assert _import(str(elsewhere / f"{b.session_id}.jsonl"))["entries"] == 2
    note = tmp_path / "notes.jsonl"
    note.write_text('{"hello": 1}\n')
    proc = run_memdown("import", str(note), env=ENV)
    assert proc.returncode != 0 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    missing = run_memdown("import", str(tmp_path / "nope"), env=ENV)
    assert missing.returncode != 0 and "does not exist" in missing.stderr


def test_plain_progress_lines_off_a_terminal_and_the_summary(isolate_paths, memory_root):
    folder = _history(isolate_paths)
    _session(folder, "2026-04-02")
    proc = run_memdown("import", "--no-index", env=ENV)
    assert proc.returncode == 0, proc.stderr
    assert "Imported 1 session(s): 2 entr" in proc.stdout
    assert "\x1b[" not in proc.stderr  # no bar codes in a pipe


def test_summarize_claude_says_how_many_calls_before_it_starts(isolate_paths, memory_root, tmp_path):
    folder = _history(isolate_paths)
    _session(folder, "2026-04-02", prompts=3)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "claude").write_text("#!/bin/sh\necho '- Wired the exporter into the nightly job (model)'\n")
    (fake / "claude").chmod(0o755)
    env = {**ENV, "PATH": f"{fake}:{os.environ['PATH']}"}
    proc = run_memdown("import", "--summarize", "claude", "--no-index", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "makes 3 `claude -p` call(s)" in proc.stderr
    assert json.loads(proc.stdout)["model_calls"] == 3


def test_an_import_killed_mid_way_resumes_with_nothing_lost_or_twice(isolate_paths, memory_root):
    folder = _history(isolate_paths)
    sessions = [_session(folder, f"2026-04-{n % 28 + 1:02d}", prompts=6) for n in range(40)]
    expected = sorted(t for b in sessions for t in b.turn_uuids)
    proc = subprocess.Popen([sys.executable, "-m", "memdown", "import", "--no-index"],
                            env={**os.environ, **ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state = memory_root / "state" / "sessions"
    wait_for(lambda: state.is_dir() and len(list(state.glob("*.json"))) >= 3, timeout=120, interval=0.01)
    killed_mid_way = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = len(_anchors(memory_root))
    resumed = _import()
    turns = sorted(t for _, _, t in _anchors(memory_root))
    assert turns == expected  # each turn exactly once
    assert resumed["entries"] == len(expected) - partial
    assert killed_mid_way and 0 < partial < len(expected), "the import ended before it could be killed"


def test_first_session_start_with_history_but_no_memory_offers_import_once(isolate_paths, memory_root):
    folder = _history(isolate_paths)
    _session(folder, "2026-04-02")
    current = folder / "current.jsonl"
    current.write_text("")
    start = {"session_id": "current", "cwd": str(isolate_paths), "source": "startup", "transcript_path": str(current)}

    def message(payload: dict) -> str:
        proc = run_memdown("hook", "SessionStart", input=json.dumps(payload))
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout).get("systemMessage", "")

    first = message(start)
    assert "memdown import" in first and "1 earlier session" in first
    assert "memdown import" not in message({**start, "session_id": "other"})


def test_no_offer_without_history(isolate_paths, memory_root):
    folder = _history(isolate_paths)
    current = folder / "only.jsonl"
    current.write_text("")
    proc = run_memdown("hook", "SessionStart", input=json.dumps(
        {"session_id": "only", "cwd": str(isolate_paths), "source": "startup", "transcript_path": str(current)}))
    assert "memdown import" not in proc.stdout


@pytest.mark.integration
def test_imported_signals_stay_out_of_default_search_and_answer_kind_signal(isolate_paths, memory_root):
    """Real index (LanceDB + packaged model): the entry answers; the signal only when asked for."""
    folder = _history(isolate_paths)
    _session(folder, "2026-04-02", correction=True)
    proc = run_memdown("import", "--json", env=ENV)
    assert proc.returncode == 0, proc.stderr
    hits = json.loads(run_memdown("search", "use pnpm not npm for installs", "--json", env=ENV).stdout)
    assert hits and all(h["kind"] != "signal" for h in hits), hits
    asked = json.loads(run_memdown("search", "use pnpm not npm", "--kind", "signal", "--json", env=ENV).stdout)
    assert asked and asked[0]["kind"] == "signal" and asked[0]["source"] == "signals/2026-04-02.md"


def test_summarize_claude_without_claude_fails_in_one_line_before_importing(isolate_paths, memory_root, tmp_path):
    folder = _history(isolate_paths)
    _session(folder, "2026-04-02")
    empty = tmp_path / "nobin"
    empty.mkdir()
    proc = run_memdown("import", "--summarize", "claude", env={**ENV, "PATH": str(empty)})
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (memory_root / "memory").exists()
