"""Claude Code's own auto memory reaches recall in the real client, read-only.

A feedback note sits where Claude Code 2.1.x keeps auto memory for this project
(``$CLAUDE_CONFIG_DIR/projects/<key>/memory/``). The model calls the recall
skill; the forked agent's ``memdown search`` finds the note as kind
``automemory``; after the session, ``/memdown:reflect`` has it as a signal to
review; and the note's bytes and mtime are untouched.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .conftest import RecallScript, Reply, Request, World, json_from, wait_for_workers

pytestmark = pytest.mark.e2e

NOTE = """---
name: use-pnpm
description: This repository installs JavaScript packages with pnpm, never npm or yarn
metadata:
  type: feedback
---
Always use pnpm for installs and scripts in this repository.

**Why:** the lockfile is pnpm-lock.yaml; npm rewrote it and broke CI twice.
**How to apply:** run `pnpm install` / `pnpm run <script>`; never commit package-lock.json.
"""


class Script(RecallScript):
    skill_args = "which package manager this project uses"

    def fork(self, req: Request) -> Reply:
        results = req.tool_results()
        if not results:
            command = 'memdown search "package manager installs" --json -k 5'
            self.fork_commands.append(command)
            return Reply.tool("Bash", {"command": command, "description": "memdown recall step"})
        self.fork_results.append(results[-1])
        return Reply.text(f"FOUND: {results[-1][:3000]}")


def _auto_memory_dir(world: World) -> Path:
    key = re.sub(r"[^A-Za-z0-9]", "-", str(world.project))  # Claude Code's project key
    return world.config_dir / "projects" / key / "memory"


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def test_auto_memory_note_is_found_by_recall_and_never_written(make_world) -> None:
    script = Script()
    world = make_world(script).with_memdown_on_path().init_memory()
    notes = _auto_memory_dir(world)
    notes.mkdir(parents=True)
    (notes / "use-pnpm.md").write_text(NOTE, encoding="utf-8")
    (notes / "MEMORY.md").write_text("- [use-pnpm](use-pnpm.md): installs use pnpm\n", encoding="utf-8")
    before = _snapshot(notes)
    indexed = world.memdown("index")
    assert indexed.returncode == 0, indexed.stderr

    run = world.claude("Which package manager do we use here?")
    assert run.proc.returncode == 0, run.proc.stderr
    assert script.fork_results, run.out
    hits = json_from(script.fork_results[0]) or []
    notes_found = [h for h in hits if h.get("kind") == "automemory"]
    assert notes_found, script.fork_results[0]
    assert "automemory/use-pnpm.md" in json.dumps(notes_found)
    assert "pnpm" in run.out

    # The SessionEnd sweep takes feedback notes in as signals for /memdown:reflect.
    wait_for_workers(world, timeout=150)
    listed = world.memdown("reflect", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "pnpm" in listed.stdout, listed.stdout
    assert _snapshot(notes) == before  # read-only: Claude Code's memory folder is never written
