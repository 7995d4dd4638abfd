"""``memdown forget`` (issue 28, item 5): a forgotten entry leaves no trace in any file under the memory
root or MEMDOWN_HOME (index files, embedding cache, archive decompressed, state, logs), and nothing
brings it back: healing, ``verify --repair``, re-import, a later Stop. A person's deletion by hand gets
the same once ``memdown verify`` runs."""
from __future__ import annotations

import gzip
import json
import os
import sys
from pathlib import Path

import pytest

from conftest import run_memdown, wait_for
from transcript_factory import TranscriptBuilder

UNIQUE = "quokkaflux7"
NO_CLAUDE = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin"}


def _traces(*folders: Path, needle: str = UNIQUE) -> list[str]:
    """Every file under ``folders`` holding ``needle`` (gzip files decompressed; case-insensitive)."""
    found = []
    for folder in folders:
        for path in folder.rglob("*"):
            if not path.is_file() or path.is_symlink():
                continue
            data = path.read_bytes()
            if data[:2] == b"\x1f\x8b":
                try:
                    data = gzip.decompress(data)
                except (OSError, EOFError):
                    pass
            if needle.encode() in data.lower():
                found.append(str(path.relative_to(folder.parent)))
    return found


def _session(home: Path, cwd: Path) -> tuple[TranscriptBuilder, Path]:
    b = TranscriptBuilder(cwd=str(cwd))
    b.prompt("Please fix the login flow")
    b.reply("Fixed the login flow in `src/auth.py`.")
    b.prompt(f"Never put the codename {UNIQUE} in commit messages, remember that")
    b.tool("Bash", {"command": f"grep -r {UNIQUE} ."}, f"docs/plan.md: {UNIQUE} launch")
    b.reply(f"Understood: the codename {UNIQUE.upper()} stays out of commit messages.")
    b.prompt("No, don't edit the changelog by hand, use the release script instead")
    b.reply("Done: the changelog now comes from `scripts/release.sh`.")
    return b, b.write(home / ".claude" / "projects" / "-p" / f"{b.session_id}.jsonl")


def _later_stop(root: Path, b: TranscriptBuilder, transcript: Path, monkeypatch) -> None:
    """The session goes on: one more turn, then its SessionEnd job runs (capture, archive, mining, index)."""
    from memdown.config import load_config
    from memdown.services.capture import jobs
    from memdown.services.capture import worker

    b.prompt("Now update the README install section")
    b.reply("Updated the README install section.")
    b.write(transcript)
    monkeypatch.setenv("MEMDOWN_HOOK_SYNC", "1")
    job = jobs.enqueue(root, "sessionend", {"session_id": b.session_id, "transcript_path": str(transcript),
                                            "cwd": str(root.parent), "hook_event_name": "SessionEnd"})
    assert worker.run_job_file(root, load_config(root), job)


def test_forgotten_entry_leaves_no_trace_and_nothing_brings_it_back(isolate_paths: Path, memory_root: Path,
                                                                     monkeypatch) -> None:
    home = Path(os.environ["HOME"])
    memdown_home = Path(os.environ["MEMDOWN_HOME"])
    monkeypatch.setenv("PATH", NO_CLAUDE["PATH"])
    b, transcript = _session(home, isolate_paths)
    assert run_memdown("init").returncode == 0
    imported = run_memdown("import", str(transcript), env=NO_CLAUDE)
    assert imported.returncode == 0, imported.stderr
    archive = memdown_home / "transcripts" / f"{b.session_id}.jsonl.gz"
    assert wait_for(archive.exists, timeout=120)
    wait_for(lambda: not (memory_root / "state" / "import-archive.json").exists()
             or json.loads((memory_root / "state" / "import-archive.json").read_text()) == {}, timeout=60)
    before = _traces(memory_root, memdown_home)
    assert any("memory/" in t for t in before) and any("transcripts/" in t for t in before)
    assert any("index/" in t for t in before) and any("state/written" in t for t in before)

    found = run_memdown("search", f"codename {UNIQUE}", "--json")
    hit = next(h for h in json.loads(found.stdout) if UNIQUE in h["text"])
    refused = run_memdown("forget", hit["id"], input="")  # no terminal, no --yes: nothing happens
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "--yes" in refused.stderr
    assert _traces(memory_root, memdown_home) == before

    done = run_memdown("forget", hit["id"], "--yes", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["removed"]["entries"] == 1 and report["removed"]["signals"] >= 1
    assert _traces(memory_root, memdown_home) == []
    day = (memory_root / "memory" / "2026-11-20.md").read_text()
    assert "Forgotten on" in day and "Please fix the login flow" in day

    _later_stop(memory_root, b, transcript, monkeypatch)
    assert "README install section" in "".join(p.read_text() for p in (memory_root / "memory").glob("*.md"))
    assert run_memdown("verify", "--repair").returncode == 0
    again = run_memdown("import", str(transcript), env=NO_CLAUDE)
    assert again.returncode == 0, again.stderr
    assert _traces(memory_root, memdown_home) == []
    assert UNIQUE not in run_memdown("search", UNIQUE, "--json").stdout


def _recorded(memory_root: Path, home: Path, cwd: Path, fake_embedder):
    """The session recorded, archived, mined and indexed in-process (extractive; the fake embedder)."""
    from memdown.api import Memory
    from memdown.config import load_config
    from memdown.services.capture.record import record_session
    from memdown.services.capture.signal_mining import mine_session
    from memdown.store.layout import init_layout
    from memdown.transcript.archive import archive_transcript

    init_layout(memory_root)
    b, transcript = _session(home, cwd)
    config = load_config(memory_root)
    record_session(memory_root, transcript, b.session_id, config=config, final=True)
    mine_session(memory_root, transcript, b.session_id, config=config)
    archive_transcript(transcript, b.session_id)
    mem = Memory.open(memory_root, embedder=fake_embedder)
    mem.index()
    return b, transcript, mem


def test_a_deletion_by_hand_is_forgotten_everywhere_once_verify_runs(isolate_paths: Path, memory_root: Path,
                                                                      fake_embedder, monkeypatch) -> None:
    from memdown.services.upkeep.verify import verify
    from memdown.store import daily, forgetting, written

    home, memdown_home = Path(os.environ["HOME"]), Path(os.environ["MEMDOWN_HOME"])
    b, _transcript, mem = _recorded(memory_root, home, isolate_paths, fake_embedder)
    assert _traces(memory_root, memdown_home)
    day = memory_root / "memory" / "2026-11-20.md"
    entry = next(e for e in forgetting.entries_in(day, day.read_text()) if UNIQUE in e.block)
    lines = day.read_text().split("\n")
    del lines[entry.start:entry.end]  # the person deletes the lines, long after they were written
    monkeypatch.setattr(written, "HEAL_SECONDS", -1.0)
    day.write_text("\n".join(lines))
    report = verify(mem)
    assert report.purged == 1 and report.deleted_turns
    assert _traces(memory_root, memdown_home) == []
    assert daily.heal_all(memory_root) == [] and UNIQUE not in day.read_text()
    assert forgetting.load(memory_root).covers(b.session_id, entry.turn)
    registry = (memory_root / "state" / "recorded-turns.tsv").read_text().splitlines()
    (line,) = [ln for ln in registry if ln.startswith(entry.turn)]
    assert line.split("\t")[1] == b.session_id and len(line.split("\t")) == 3  # still known (a fork), no prompt hash


def test_forget_a_whole_session_drops_its_archive_and_a_day_its_entries(isolate_paths: Path, memory_root: Path,
                                                                        fake_embedder) -> None:
    from memdown.services.upkeep.forget import describe, forget, plan_forget

    home, memdown_home = Path(os.environ["HOME"]), Path(os.environ["MEMDOWN_HOME"])
    b, _transcript, mem = _recorded(memory_root, home, isolate_paths, fake_embedder)
    (memory_root / "learnings.md").write_text(f"# Learnings\n\n## LRN-1 · x\n- sources: {_signal_id(memory_root)}\n")
    plan = plan_forget(mem, session=b.session_id[:8])
    assert len(plan.entries) == 3 and plan.sessions == {b.session_id}
    assert plan.kept == ["learnings.md"]  # a person's approved decision is said, not changed
    assert all(UNIQUE not in line for line in describe(plan, memory_root))  # it names, never quotes
    report = forget(mem, plan)
    assert report.entries == 3 and report.archives == 1
    assert list((memdown_home / "transcripts").glob("*.jsonl.gz")) == []
    assert _traces(memory_root, memdown_home, needle="login flow") == []
    assert _traces(memory_root, memdown_home) == []


def _signal_id(root: Path) -> str:
    from memdown.signals import store

    return store.load(root)[0].id


def test_forget_refuses_what_it_cannot_name(isolate_paths: Path, memory_root: Path, fake_embedder) -> None:
    from memdown.errors import NotFoundError, UsageError
    from memdown.services.upkeep.forget import plan_forget

    home = Path(os.environ["HOME"])
    _b, _transcript, mem = _recorded(memory_root, home, isolate_paths, fake_embedder)
    with pytest.raises(UsageError):
        plan_forget(mem)
    with pytest.raises(NotFoundError):
        plan_forget(mem, day="2020-01-01")
    assert plan_forget(mem, text="no such words anywhere").entries == []
    assert len(plan_forget(mem, day="2026-11-20").entries) == 3
    bad = run_memdown("forget", "--day", "yesterday", "--yes")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_an_agent_cannot_forget_without_a_person(isolate_paths: Path, memory_root: Path, fake_embedder) -> None:
    """`forget` writes a person's memory: under an agent's environment it is refused (cli/agentsafe.py)."""
    home = Path(os.environ["HOME"])
    _recorded(memory_root, home, isolate_paths, fake_embedder)
    before = (memory_root / "memory" / "2026-11-20.md").read_text()
    refused = run_memdown("forget", "--text", UNIQUE, "--yes", env={"CLAUDECODE": "1"}, input="")
    assert refused.returncode == 11 and refused.stderr.count("\n") == 1
    assert (memory_root / "memory" / "2026-11-20.md").read_text() == before


def test_the_archive_loses_exactly_the_turns_lines(tmp_path: Path) -> None:
    from memdown.transcript.archive import turn_starts, without_turns
    from memdown.transcript.parser import parse_transcript

    b = TranscriptBuilder()
    for n in range(3):
        b.prompt(f"step {n} please")
        b.tool("Bash", {"command": f"echo {n}"}, f"out {n}")
        b.reply(f"did step {n}")
    path = b.write(tmp_path / "t.jsonl")
    data = path.read_bytes()
    kept = without_turns(data, frozenset({b.turn_uuids[1] + "@2"}.union({b.turn_uuids[1]})), turn_starts(path))
    (tmp_path / "kept.jsonl").write_bytes(kept)
    turns = parse_transcript(tmp_path / "kept.jsonl", include_subagents=False).turns
    assert [t.prompt for t in turns] == ["step 0 please", "step 2 please"]
    assert b"step 1" not in kept and b"out 1" not in kept and len(kept.splitlines()) == 2 * len(data.splitlines()) // 3
