"""Claude Code's auto memory: indexed read-only as kind ``automemory``, feedback/project notes as signals."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from conftest import run_memdown
from memdown.signals import store
from memdown.signals.automemory import import_notes, parts
from memdown.store import automemory

FEEDBACK = """\
---
name: use-pnpm
description: This repo installs with pnpm, never npm
metadata:
  type: feedback
---
Use pnpm for every install and script in this repository, never npm.

**Why:** the lockfile is pnpm-lock.yaml; npm rewrote it and broke CI twice.
**How to apply:** run `pnpm install` and `pnpm run <script>`; see [[project-layout]].
"""
PROJECT = """\
---
name: project-layout
description: Where the payment webhooks live
metadata:
  type: project
---
Stripe webhook handlers live in services/billing/webhooks.py and are retried by the outbox worker.
"""
USER = """\
---
name: user-role
description: The user is a data scientist
metadata:
  type: user
---
The user mostly works on notebooks and prefers short answers.
"""
INDEX = "- [use-pnpm](use-pnpm.md) — pnpm, never npm\n- [project-layout](project-layout.md) — webhooks\n"


def write_notes(folder: Path) -> dict[Path, tuple[int, bytes]]:
    folder.mkdir(parents=True)
    for name, text in (("use-pnpm.md", FEEDBACK), ("project-layout.md", PROJECT), ("user-role.md", USER),
                       ("MEMORY.md", INDEX)):
        (folder / name).write_text(text)
    return snapshot(folder)


def snapshot(folder: Path) -> dict[Path, tuple[int, bytes]]:
    return {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(folder.iterdir())}


def test_memory_folder_follows_claude_code(isolate_paths: Path, monkeypatch):
    root = isolate_paths / ".memdown"
    key = automemory.project_key(isolate_paths)
    assert re.fullmatch(r"-[A-Za-z0-9-]+", key) and key.endswith("-project")
    assert automemory.memory_dir(root) == Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / key / "memory"
    # autoMemoryDirectory from the local settings moves it (the shared project settings file does not)
    (isolate_paths / ".claude").mkdir()
    (isolate_paths / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": "/nowhere"}))
    assert automemory.memory_dir(root).name == "memory"
    (isolate_paths / ".claude" / "settings.local.json").write_text(json.dumps({"autoMemoryDirectory": "notes/mem"}))
    assert automemory.memory_dir(root) == isolate_paths / "notes" / "mem"


def test_note_parts():
    rule, why, how = parts(FEEDBACK.split("---\n", 2)[2])
    assert rule == "Use pnpm for every install and script in this repository, never npm."
    assert why.startswith("the lockfile is pnpm-lock.yaml") and how.startswith("run `pnpm install`")


def test_feedback_and_project_notes_become_signals_once(isolate_paths: Path):
    root = isolate_paths / ".memdown"
    root.mkdir()
    folder = automemory.memory_dir(root)
    before = write_notes(folder)
    first = import_notes(root)
    assert sorted(s.type for s in first) == ["convention", "correction"]  # the user note is not a rule
    pnpm = next(s for s in first if s.type == "correction")
    assert pnpm.text.startswith("Use pnpm for every install") and pnpm.corroboration == 2 and pnpm.confidence == 3
    assert "Why: the lockfile" in pnpm.context and pnpm.pattern == "automemory.feedback"
    assert import_notes(root) == []  # the same note version is taken in once
    (folder / "use-pnpm.md").write_text(FEEDBACK.replace("twice", "three times"))
    assert [s.type for s in import_notes(root)] == ["correction"]  # a changed note comes in again
    assert len(store.load(root)) == 3
    after = snapshot(folder)
    assert {p: v for p, v in after.items() if p.name != "use-pnpm.md"} == \
        {p: v for p, v in before.items() if p.name != "use-pnpm.md"}


@pytest.mark.integration
def test_search_sees_auto_memory_next_to_daily_logs_and_never_writes_it(isolate_paths: Path):
    root = isolate_paths / ".memdown"
    assert run_memdown("init").returncode == 0
    (root / "memory" / "2026-11-20.md").write_text(
        "# 2026-11-20\n\n## Session 10:00\n\n### 10:00\n- Moved the billing webhooks to an outbox worker.\n")
    folder = automemory.memory_dir(root)
    before = write_notes(folder)

    index = run_memdown("index", "--json")
    assert index.returncode == 0, index.stderr
    assert json.loads(index.stdout)["files_indexed"] == 4  # the daily log and three notes (not MEMORY.md)
    verify = run_memdown("verify", "--json")
    assert verify.returncode == 0, verify.stdout + verify.stderr  # auto-memory rows are not seen as orphans
    found = run_memdown("search", "which package manager installs dependencies", "--json", "-k", "5")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    hits = hits.get("results", hits) if isinstance(hits, dict) else hits
    top = next(h for h in hits if h["kind"] == "automemory")
    assert top["source"] == "automemory/use-pnpm.md" and "use-pnpm (feedback)" in top["heading"]
    only = json.loads(run_memdown("search", "webhooks", "--kind", "automemory", "--json").stdout)
    only = only.get("results", only) if isinstance(only, dict) else only
    assert only and {h["kind"] for h in only} == {"automemory"}
    both = json.loads(run_memdown("search", "billing webhooks outbox worker", "--json", "-k", "5").stdout)
    both = both.get("results", both) if isinstance(both, dict) else both
    assert {"summary", "automemory"} <= {h["kind"] for h in both}  # next to the daily logs
    shown = run_memdown("expand", top["id"], "--json")
    assert shown.returncode == 0, shown.stderr
    assert "never npm" in json.loads(shown.stdout)["text"]
    sweep = run_memdown("reflect", "sweep", "--json")
    assert sweep.returncode == 0, sweep.stderr
    listed = run_memdown("reflect", "list", "--json")
    assert listed.returncode == 0 and "Use pnpm for every install" in listed.stdout
    assert snapshot(folder) == before  # index, search, expand and reflect never write Claude Code's folder

    (folder / "user-role.md").unlink()  # a note Claude deleted leaves the index
    assert json.loads(run_memdown("index", "--json").stdout)["files_removed"] == 1
