"""Two real clones write memory on the same day through the real write paths
(Stop hook, signal mining, reflect promote); `git pull` merges them with no
conflict, every entry exactly once, and the merged tree indexes and reviews."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memdown.services.upkeep.merge import merge_texts, units
from transcript_factory import TranscriptBuilder, hook_payload

PG = "Exit code 2\npsql: error: connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or directory"


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


def memdown_in(clone: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    env = {"MEMDOWN_DIR": str(clone / ".memdown"), "MEMDOWN_HOOK_SYNC": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    done = subprocess.run([sys.executable, "-m", "memdown", *args], input=input, capture_output=True, text=True,
                          cwd=clone, env={**os.environ, **env}, timeout=300)
    assert done.returncode == 0, f"memdown {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


def work_session(clone: Path, tmp: Path, who: str, tool: str) -> None:
    """One session in one clone: a Stop capture, mined signals, one promotion to learnings."""
    tb = TranscriptBuilder(session_id=f"sess-{who}", cwd=str(clone))
    tb.prompt(f"set up the {who} database")
    tb.tool("Bash", {"command": "psql -c 'create database shop'"}, PG, is_error=True)
    tb.tool("Bash", {"command": "docker compose up -d db && psql -c 'create database shop'"}, "CREATE DATABASE")
    tb.reply(f"Database for {who} created.")
    tb.prompt(f"no, use {tool} not npm")
    tb.tool("Bash", {"command": f"{tool} install"}, "Done")
    tb.reply(f"Switched to {tool}; tests pass.")
    transcript = tb.write(tmp / who / f"sess-{who}.jsonl")
    memdown_in(clone, "hook", "Stop", input=hook_payload("Stop", tb, transcript, clone))
    memdown_in(clone, "reflect", "mine", str(transcript), "--json")
    listed = json.loads(memdown_in(clone, "reflect", "list", "--json").stdout)
    wanted = next(c for c in listed["candidates"] if tool in c["text"])
    memdown_in(clone, "reflect", "promote", wanted["id"], "--to", "learnings", "--json")
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", f"memory from {who}")


def entry_keys(root: Path) -> list[str]:
    """Every entry id and every session anchor in the committed memory files, with repeats."""
    keys: list[str] = []
    for path in sorted(root.rglob("*.md")):
        text = path.read_text()
        keys += re.findall(r"^#{2,3} ([A-Z]{3}-\d{8}-[A-Z0-9-]+)", text, re.M)
        keys += re.findall(r"<!-- session:(\S+) turn:(\S+)", text)
    return [k if isinstance(k, str) else " ".join(k) for k in keys]


@pytest.mark.integration
def test_two_clones_merge_without_conflict(tmp_path: Path, isolate_paths: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(remote), str(alice))
    for clone in (alice, bob):
        if clone == bob:
            git(tmp_path, "clone", "-q", str(remote), str(bob))
        git(clone, "config", "user.email", f"{clone.name}@example.com")
        git(clone, "config", "user.name", clone.name)
        if clone == alice:
            (alice / "README.md").write_text("# shop\n")
            memdown_in(alice, "init")
            assert "merge=memdown" in (alice / ".memdown" / ".gitattributes").read_text()
            git(alice, "add", "-A")
            git(alice, "commit", "-qm", "start")
            git(alice, "push", "-q", "origin", "main")
        else:
            memdown_in(bob, "init")  # registers the driver in bob's .git/config (attributes came with the clone)

    work_session(alice, tmp_path, "alice", "pnpm")
    work_session(bob, tmp_path, "bob", "yarn")
    alice_keys = entry_keys(alice / ".memdown")
    bob_keys = entry_keys(bob / ".memdown")
    assert set(alice_keys) & set(bob_keys) == set(), "ids or anchors collide across clones"
    git(alice, "push", "-q", "origin", "main")

    pulled = subprocess.run(["git", "pull", "-q", "--no-rebase", "origin", "main"], cwd=bob,
                            capture_output=True, text=True, timeout=120)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    merged = bob / ".memdown"
    for path in merged.rglob("*.md"):
        assert not re.search(r"^(<<<<<<<|=======|>>>>>>>)", path.read_text(), re.M), path
    keys = entry_keys(merged)
    assert sorted(keys) == sorted(alice_keys + bob_keys)  # every entry, exactly once
    # Both sessions wrote the same day file, and both learnings are there.
    days = sorted((merged / "memory").glob("*.md"))
    assert len(days) == 1 and "sess-alice" in days[0].read_text() and "sess-bob" in days[0].read_text()
    learnings = (merged / "learnings.md").read_text()
    assert "pnpm" in learnings and "yarn" in learnings

    rebuilt = json.loads(memdown_in(bob, "index", "--rebuild", "--json").stdout)
    assert rebuilt["rebuilt"] and rebuilt["chunks_total"] > 0
    assert memdown_in(bob, "verify").returncode == 0
    review = json.loads(memdown_in(bob, "reflect", "list", "--all", "--json").stdout)
    assert review is not None
    learned = {line for line in learnings.splitlines() if line.startswith("### LRN-")}
    for heading in learned:
        learning_id = heading.split()[1]
        shown = json.loads(memdown_in(bob, "reflect", "show", learning_id, "--json").stdout)
        assert learning_id in json.dumps(shown)


def test_union_would_lose_a_line_but_the_driver_does_not(tmp_path: Path) -> None:
    """Why not `merge=union`: git drops a line both additions end with; the entry merge keeps it."""
    base = "# 2026-11-22\n\n## Session 08:00\n\n### 08:01\n<!-- session:s0 turn:t0 -->\n- base\n"
    ours = base + "\n## Session 14:30\n\n### 14:35\n<!-- session:sA turn:tA -->\n- fixed the cache\n- ran tests\n"
    theirs = base + "\n## Session 14:30\n\n### 14:35\n<!-- session:sB turn:tB -->\n- wrote docs\n- ran tests\n"
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_text(text)
    union = subprocess.run(["git", "merge-file", "-p", "--union", str(tmp_path / "ours"), str(tmp_path / "base"),
                            str(tmp_path / "theirs")], capture_output=True, text=True).stdout
    assert union.count("- ran tests") == 1  # git's line union: one entry lost a bullet
    merged, conflicted = merge_texts(base, ours, theirs)
    assert not conflicted and merged.count("- ran tests") == 2
    assert [u for u in units(merged) if "session:sB" in u][0].startswith("### 14:35")  # B keeps its own heading


def test_entry_changed_on_both_sides_is_a_marked_conflict_and_one_side_wins_otherwise() -> None:
    base = "# Signals\n\n## SIG-20261122-AAAA-0001 · correction\n- type: correction\n- status: captured\n\n> use pnpm\n"
    promoted = base.replace("status: captured", "status: promoted")
    dismissed = base.replace("status: captured", "status: dismissed")
    added = base + "\n## SIG-20261122-BBBB-0001 · correction\n- status: captured\n\n> use uv\n"
    merged, conflicted = merge_texts(base, promoted, added)
    assert not conflicted and "status: promoted" in merged and "SIG-20261122-BBBB-0001" in merged
    assert merged.count("SIG-20261122-AAAA-0001") == 1
    merged, conflicted = merge_texts(base, promoted, dismissed)
    assert conflicted and "<<<<<<< ours" in merged and "status: dismissed" in merged
