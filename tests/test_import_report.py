"""``memdown import`` takes every transcript by its content and accounts for every file (#26.1),
and imports one project's history only (#25.5)."""
from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import run_memdown
from transcript_factory import TranscriptBuilder

from memdown.config import load_config
from memdown.services.capture.import_sources import SUBAGENT_LOG, project_key, started_in, survey
from memdown.services.capture.importer import import_transcripts
from memdown.store.daily import read_entries
from memdown.transcript.layout import looks_like_transcript, sniff

ENV = {"MEMDOWN_ARCHIVE_ENABLED": "0"}
OLD = 1_700_000_000  # an mtime long past: not a live session

# First lines Claude Code writes before (or instead of) a conversation line, and one not invented yet.
SNAPSHOT = {"type": "file-history-snapshot", "messageId": "m1", "isSnapshotUpdate": False,
            "snapshot": {"messageId": "m1", "trackedFileBackups": {}, "timestamp": "2026-04-02T09:00:00.000Z"}}
SUMMARY = {"type": "summary", "summary": "Exporter wiring", "leafUuid": "0b8e"}


def _history(place: Path) -> Path:
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / project_key(place)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _write(folder: Path, *, cwd: Path, first: list[dict] = (), prompts: int = 2, old: bool = True,
           name: str = "") -> tuple[TranscriptBuilder, Path]:
    b = TranscriptBuilder(cwd=str(cwd))
    for n in range(prompts):
        b.prompt(f"Step {n}: wire the exporter into the nightly job")
        b.reply(f"Wired step {n} of the exporter into the nightly job.")
    path = folder / (name or f"{b.session_id}.jsonl")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in [*first, *b.lines]))
    if old:
        os.utime(path, (OLD, OLD))
    return b, path


def _import(root: Path, targets=(), cwd: Path | None = None):
    found = survey(list(targets), cwd=cwd or Path.cwd(), root=root)
    return import_transcripts(root, found, config=load_config(root), index=False)


def _turns(root: Path) -> list[str]:
    return sorted(e.anchor.turn for p in (root / "memory").glob("*.md") for e in read_entries(p) if e.anchor)


@pytest.mark.parametrize("first", [
    [SNAPSHOT], [SUMMARY, SNAPSHOT], [{"type": "permission-mode", "permissionMode": "default", "sessionId": "s"}],
    [{"type": "queue-operation", "operation": "enqueue", "sessionId": "s", "timestamp": "2026-04-02T09:00:00Z"}],
    [{"type": "custom-title", "customTitle": "x"}, {"type": "last-prompt", "lastPrompt": "y"}],
    [{"type": "a-type-not-invented-yet", "data": [1, 2]}] * 20,
], ids=["file-history-snapshot", "summary+snapshot", "permission-mode", "queue-operation", "titles", "unknown"])
def test_a_transcript_is_taken_whatever_its_first_lines_are(isolate_paths, memory_root, first):
    b, path = _write(_history(isolate_paths), cwd=isolate_paths, first=first)
    assert looks_like_transcript(path)
    report = _import(memory_root)
    assert (report.imported, report.entries, report.skipped_sessions) == (1, 2, 0), report
    assert _turns(memory_root) == sorted(b.turn_uuids)


def test_a_named_file_starting_with_a_snapshot_imports(isolate_paths, memory_root, tmp_path):
    b, path = _write(tmp_path / "exported", cwd=tmp_path / "elsewhere", first=[SNAPSHOT])
    proc = run_memdown("import", str(path), "--json", "--no-index", env=ENV)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["entries"] == 2


def test_a_bom_before_the_first_line_loses_no_turn(isolate_paths, memory_root):
    b, path = _write(_history(isolate_paths), cwd=isolate_paths)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    os.utime(path, (OLD, OLD))
    assert sniff(path).session_id == b.session_id
    _import(memory_root)
    assert _turns(memory_root) == sorted(b.turn_uuids)


def test_every_file_looked_at_is_counted_with_its_reason(isolate_paths, memory_root):
    folder = _history(isolate_paths)
    b, main = _write(folder, cwd=isolate_paths)
    sub = folder / b.session_id / "subagents" / "agent-a1.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_text(main.read_text())
    (folder / "notes.jsonl").write_text('{"hello": 1}\n')
    (folder / "empty.jsonl").write_text("")
    (folder / "snapshots-only.jsonl").write_text(json.dumps(SNAPSHOT) + "\n")
    (folder / "binary.jsonl").write_bytes(b"\x00\x01\x02garbage\n")
    opted, _ = _write(folder, cwd=isolate_paths, prompts=1, name="opted.jsonl")
    lines = (folder / "opted.jsonl").read_text().replace("Step 0", "<memdown:skip> step 0")
    (folder / "opted.jsonl").write_text(lines)
    os.utime(folder / "opted.jsonl", (OLD, OLD))
    proc = run_memdown("import", "--json", "--no-index", env=ENV)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    reasons = {Path(item["path"]).name: item["reason"] for item in report["skipped_files"]}
    assert set(reasons) == {"agent-a1.jsonl", "notes.jsonl", "empty.jsonl", "snapshots-only.jsonl",
                            "binary.jsonl", "opted.jsonl"}, reasons
    assert reasons["agent-a1.jsonl"] == SUBAGENT_LOG
    assert reasons["empty.jsonl"] == "empty" and "file-history-snapshot" in reasons["snapshots-only.jsonl"]
    assert reasons["opted.jsonl"].startswith("opted out")
    assert (report["files"], report["imported"], report["skipped_sessions"]) == (7, 1, 6), report
    again = run_memdown("import", "--no-index", env=ENV)
    assert "Looked at 7 file(s): 0 session(s) imported, 1 already imported, 6 skipped." in again.stdout
    assert "Nothing new: every session read was imported before" in again.stdout
    assert f"skipped 1 file(s): {SUBAGENT_LOG}" in again.stdout and "skipped 1 file(s): empty" in again.stdout


def test_nothing_found_says_where_it_looked(isolate_paths, memory_root):
    proc = run_memdown("import", "--no-index", env=ENV)
    assert proc.returncode == 0, proc.stderr
    expected = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / project_key(isolate_paths)
    assert f"{expected} (no such folder)" in proc.stdout, proc.stdout


def _now_stamps(path: Path) -> None:
    """Entries written just now, as a running session writes them."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    path.write_text("".join(json.dumps({**json.loads(line), "timestamp": stamp}) + "\n"
                            for line in path.read_text().splitlines()))


def test_a_live_transcript_is_imported_up_to_its_last_turn_and_the_report_says_so(isolate_paths, memory_root):
    b, path = _write(_history(isolate_paths), cwd=isolate_paths, prompts=3, old=False)
    _now_stamps(path)
    report = _import(memory_root)
    assert report.entries == 2 and len(report.held_back) == 1, report
    assert report.held_back[0]["turns"] == 1 and "possibly live" in report.held_back[0]["reason"]
    assert _turns(memory_root) == sorted(b.turn_uuids[:2])
    os.utime(path, (OLD, OLD))  # the session ended long ago: the next import completes it
    again = _import(memory_root)
    assert (again.entries, again.held_back) == (1, []), again
    assert _turns(memory_root) == sorted(b.turn_uuids)


def test_only_sessions_started_in_this_project_are_imported(isolate_paths, memory_root):
    """``…/x/project`` and ``…/x-project`` share Claude Code's folder key: the cwd tells them apart."""
    folder = _history(isolate_paths)
    ours, _ = _write(folder, cwd=isolate_paths)
    inside, _ = _write(folder, cwd=isolate_paths / "src" / "api")
    twin = Path(f"{isolate_paths.parent}-project")
    assert project_key(twin) == project_key(isolate_paths)
    theirs, _ = _write(folder, cwd=twin)
    report = _import(memory_root)
    assert _turns(memory_root) == sorted(ours.turn_uuids + inside.turn_uuids)
    assert [(Path(s["path"]).stem, s["reason"]) for s in report.skipped_files] == [
        (theirs.session_id, f"another project (cwd {twin})")]


def test_a_worktrees_sessions_are_this_projects(isolate_paths, memory_root, tmp_path):
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=isolate_paths, check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x")
    worktree = tmp_path / "feature"
    git("worktree", "add", "-q", str(worktree))
    b, _ = _write(_history(worktree), cwd=worktree)
    _import(memory_root, cwd=isolate_paths)
    assert _turns(memory_root) == sorted(b.turn_uuids)


def test_started_in_compares_whole_path_components():
    places = [Path("/home/a/my-app")]
    assert started_in("/home/a/my-app", places) and started_in("/home/a/my-app/src", places)
    assert not started_in("/home/a/my_app", places) and not started_in("/home/a/my-app-2", places)
    assert started_in("C:\\Users\\a\\App\\src", [Path("c:\\users\\a\\app")])


def test_history_copied_just_now_is_not_live(isolate_paths, memory_root):
    """cp without -p gives old sessions a new mtime: their last entries are old, so nothing is held back."""
    b, path = _write(_history(isolate_paths), cwd=isolate_paths, prompts=3, old=False)
    report = _import(memory_root)
    assert (report.entries, report.held_back) == (3, []), report
    assert _turns(memory_root) == sorted(b.turn_uuids)
