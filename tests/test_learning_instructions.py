"""Rules where every agent reads them (issue 28, item 6) and an undo that puts things back (issue 30, item 5)."""
from __future__ import annotations

import datetime as dt
import json
import os
import stat
from pathlib import Path

from conftest import run_memdown
from memdown import paths
from memdown.config import load_config
from memdown.learning import learnings, review
from memdown.signals import store
from memdown.signals.store import Signal

NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.timezone.utc)


def add(root: Path, text: str, kind: str = "convention", session: str = "s1") -> Signal:
    sig = Signal(kind, text, 2, session=session, turn=f"{session}-{text[:6]}", pattern=f"en.{kind}.x",
                 captured=store.iso(NOW))
    return store.append(root, [sig], now=NOW)[0]


def _promote(root: Path, sig: Signal, target: str | None = "project") -> dict:
    return review.promote(root, sig.id, target, now=NOW, config=load_config(root))


def _approvals() -> list[dict]:
    return [json.loads(line) for line in paths.approvals_file().read_text().splitlines() if line.strip()]


def test_a_promoted_rule_lands_in_claude_md_and_agents_md_with_one_approval_and_undo_removes_both(memory_root):
    project = memory_root.parent
    (project / "CLAUDE.md").write_text("# Project\n\nBuild with make.\n")
    (project / "AGENTS.md").write_text("# Agents\n\nRun the tests first.\n")
    sig = add(memory_root, "always use tabs for indentation")
    result = _promote(memory_root, sig)  # one command, one approval
    token = learnings.get(memory_root, result["learning"]).extra["token"]
    line = f"- Always use tabs for indentation. <!-- memdown:{result['learning']} #{token} -->"
    assert line in (project / "CLAUDE.md").read_text() and line in (project / "AGENTS.md").read_text()
    assert result["also"] == [str(project / "AGENTS.md")]
    assert {a.get("target") for a in _approvals()} == {"project", "agents"}  # recorded per file
    assert learnings.get(memory_root, result["learning"]).targets == ["project", "agents"]
    undone = review.undo(memory_root, result["learning"], now=NOW)
    assert sorted(undone["removed_from"]) == sorted([str(project / "CLAUDE.md"), str(project / "AGENTS.md")])
    assert (project / "CLAUDE.md").read_text() == "# Project\n\nBuild with make.\n"
    assert (project / "AGENTS.md").read_text() == "# Agents\n\nRun the tests first.\n"


def test_every_instruction_file_the_project_has_gets_the_rule(memory_root):
    project = memory_root.parent
    (project / ".github").mkdir()
    (project / ".github" / "copilot-instructions.md").write_text("Use TypeScript.\n")
    (project / "GEMINI.md").write_text("# Gemini\n")
    (project / ".cursor" / "rules").mkdir(parents=True)
    sig = add(memory_root, "always run make lint before committing")
    result = _promote(memory_root, sig)
    lrn = result["learning"]
    cursor = project / ".cursor" / "rules" / "memdown.mdc"
    for path in (project / "CLAUDE.md", project / ".github" / "copilot-instructions.md", project / "GEMINI.md", cursor):
        assert f"memdown:{lrn} #" in path.read_text(), path
    assert cursor.read_text().startswith("---\ndescription: Rules learned by memdown\nalwaysApply: true\n---\n")
    assert not (project / "AGENTS.md").exists()  # written where present, never created by the default
    review.undo(memory_root, lrn, now=NOW)
    assert not cursor.exists() and not (project / "CLAUDE.md").exists()  # memdown made them for this rule
    assert (project / "GEMINI.md").read_text() == "# Gemini\n"
    assert (project / ".github" / "copilot-instructions.md").read_text() == "Use TypeScript.\n"


def test_a_project_with_only_agents_md_keeps_claude_code_reading_it(memory_root):
    project = memory_root.parent
    (project / "AGENTS.md").write_text("# Agents\n")
    result = _promote(memory_root, add(memory_root, "always use tabs for indentation"))
    assert "memdown:" in (project / "AGENTS.md").read_text()
    assert not (project / "CLAUDE.md").exists()  # Claude Code reads AGENTS.md only while there is no CLAUDE.md
    assert result["path"] == str(project / "AGENTS.md")


def test_to_agents_and_a_linked_instruction_file(memory_root):
    project = memory_root.parent
    result = _promote(memory_root, add(memory_root, "always use tabs for indentation"), "agents")
    agents = project / "AGENTS.md"
    assert "memdown:" in agents.read_text() and not (project / "CLAUDE.md").exists()
    assert stat.S_IMODE(agents.stat().st_mode) == 0o644  # a committed file, not memdown's private state
    review.undo(memory_root, result["learning"], now=NOW)
    assert not agents.exists()
    (project / "CLAUDE.md").write_text("# P\n")
    os.symlink("CLAUDE.md", project / "AGENTS.md")  # a common setup: one file, two names
    again = _promote(memory_root, add(memory_root, "never commit generated files", session="s2"))
    assert again["skipped"] == ["AGENTS.md: a link (not followed)"]
    assert (project / "CLAUDE.md").read_text().count("memdown:") == 1


def test_undo_puts_things_back(memory_root):
    """#30.5: no 0-byte CLAUDE.md left behind, the signals as they were, the candidate reviewable again."""
    project = memory_root.parent
    sig = add(memory_root, "always use tabs for indentation")
    result = _promote(memory_root, sig)
    claude = project / "CLAUDE.md"
    assert stat.S_IMODE(claude.stat().st_mode) == 0o644
    assert store.get(memory_root, sig.id).status == "promoted"
    review.undo(memory_root, result["learning"], now=NOW)
    assert not claude.exists()
    restored = store.get(memory_root, sig.id)
    assert restored.status == "captured" and "learning" not in restored.extra and "before" not in restored.extra
    assert learnings.get(memory_root, result["learning"]).status == "undone"
    found = review.analyze(memory_root, now=NOW, config=load_config(memory_root))
    assert [c.id for c in found.candidates] == [sig.id]
    again = _promote(memory_root, sig)  # approvable again, as a new learning
    assert again["learning"] != result["learning"] and "memdown:" in claude.read_text()


def test_undo_keeps_a_file_memdown_created_once_a_person_wrote_in_it(memory_root):
    project = memory_root.parent
    result = _promote(memory_root, add(memory_root, "always use tabs for indentation"))
    claude = project / "CLAUDE.md"
    claude.write_text("# My notes\n\n" + claude.read_text())
    review.undo(memory_root, result["learning"], now=NOW)
    assert claude.read_text().startswith("# My notes") and "memdown:" not in claude.read_text()


def test_cli_promote_to_agents(memory_root):
    sig = add(memory_root, "always use tabs for indentation")
    done = run_memdown("reflect", "promote", sig.id, "--to", "agents", "--json")
    assert done.returncode == 0, done.stderr
    assert "memdown:LRN-" in (memory_root.parent / "AGENTS.md").read_text()
