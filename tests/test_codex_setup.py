"""`memdown install codex` / `uninstall codex`: memdown's hooks and skill in Codex's settings, nothing else touched."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memdown.errors import InputFileError
from memdown.hooks.pretool import answer
from memdown.services.clients import codex_setup

THEIRS = {
    "model": "o3",
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh", "timeout": 5}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


@pytest.fixture
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def _handlers(data: dict, event: str) -> list[str]:
    return [h["command"] for g in data["hooks"].get(event, []) for h in g["hooks"]]


def test_install_adds_memdowns_hooks_and_skill_and_keeps_everything_else(codex_home: Path) -> None:
    codex_home.mkdir()
    (codex_home / "hooks.json").write_text(json.dumps(THEIRS))
    report = codex_setup.install()
    data = json.loads((codex_home / "hooks.json").read_text())
    assert data["model"] == "o3"
    assert _handlers(data, "PreToolUse")[0] == "~/bin/audit.sh"
    assert _handlers(data, "PreToolUse")[1].endswith("memdown hook PreToolUse codex")
    assert _handlers(data, "Stop") == ["notify-send done", codex_setup.hook_command(False, "Stop")]
    assert set(data["hooks"]) == set(codex_setup.EVENTS)
    assert (codex_home / "skills" / "memory-recall" / "SKILL.md").read_text() == codex_setup.SKILL
    assert len(report.changes) == 2 and not report.kept

    before = (codex_home / "hooks.json").read_bytes()
    again = codex_setup.install()
    assert again.changes == [] and (codex_home / "hooks.json").read_bytes() == before  # idempotent

    removed = codex_setup.uninstall()
    assert len(removed.changes) == 2
    assert json.loads((codex_home / "hooks.json").read_text()) == THEIRS  # exactly what was there before
    assert not (codex_home / "skills" / "memory-recall" / "SKILL.md").exists()


def test_uninstall_removes_a_file_install_created_and_keeps_an_edited_skill(codex_home: Path) -> None:
    codex_setup.install()
    skill = codex_home / "skills" / "memory-recall" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nMy own note.\n")
    report = codex_setup.uninstall()
    assert not (codex_home / "hooks.json").exists()
    assert skill.exists() and report.kept and "edited" in report.kept[0]


def test_project_level_writes_the_repository_files_with_memdown_from_path(isolate_paths: Path, codex_home: Path) -> None:
    subprocess.run(["git", "init", "-q", str(isolate_paths)], check=True)
    report = codex_setup.install(project=True, start=isolate_paths)
    assert report.hooks_file == isolate_paths.resolve() / ".codex" / "hooks.json"
    data = json.loads(report.hooks_file.read_text())
    assert _handlers(data, "SessionStart") == ["memdown hook SessionStart"]
    assert (isolate_paths / ".agents" / "skills" / "memory-recall" / "SKILL.md").exists()
    assert not codex_home.exists()


def test_a_broken_hooks_file_is_refused_and_left_alone(codex_home: Path) -> None:
    codex_home.mkdir()
    (codex_home / "hooks.json").write_text("{not json")
    with pytest.raises(InputFileError, match="changed nothing"):
        codex_setup.install()
    assert (codex_home / "hooks.json").read_text() == "{not json"


def test_the_cli_says_what_it_changed(codex_home: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "memdown", "install", "codex"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "hooks for SessionStart" in run.stdout and "/hooks" in run.stdout
    again = subprocess.run([sys.executable, "-m", "memdown", "install", "codex"], capture_output=True, text=True)
    assert "nothing to change" in again.stdout


def test_codex_guards_deny_where_claude_code_asks_and_judge_apply_patch_by_its_files(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from memdown import shellguard

    guards = [{"id": "LRN-1", "decision": "ask", "rule": "Run tests with `uv run pytest`."}]
    monkeypatch.setattr(shellguard, "load", lambda home: guards)
    monkeypatch.setattr(shellguard, "check", lambda g, tool, tool_input, root, *rest: (
        ("ask", "memdown guard LRN-1: prefer uv") if tool == "Bash" or tool_input.get("file_path", "").endswith(
            "migrations/1.sql") else None))
    call = {"tool_name": "Bash", "tool_input": {"command": "pytest -q"}, "cwd": "/p"}
    assert answer(call, "/p/.memdown").permission == "ask"
    assert answer(call, "/p/.memdown", "codex").permission == "deny"  # Codex 0.171.0 refuses ask from PreToolUse
    patch = {"tool_name": "apply_patch", "cwd": "/p", "tool_input": {
        "command": "*** Begin Patch\n*** Update File: src/a.py\n@@\n*** Add File: migrations/1.sql\n+x\n*** End Patch"}}
    assert answer(patch, "/p/.memdown", "codex").permission == "deny"
    patch["tool_input"]["command"] = "*** Begin Patch\n*** Update File: src/a.py\n*** End Patch"
    assert answer(patch, "/p/.memdown", "codex") is None
