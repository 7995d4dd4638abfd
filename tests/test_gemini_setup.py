"""`memdown install gemini` / `uninstall gemini`: memdown's hooks in Gemini CLI's settings.json, nothing else touched."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memdown.errors import InputFileError
from memdown.services.clients import gemini_setup

THEIRS = {
    "model": {"name": "gemini-2.5-pro"},
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "mcpServers": {"github": {"command": "gh-mcp"}},
    "hooks": {
        "BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "~/bin/lint.sh", "timeout": 5000}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "hooksConfig": {"enabled": True},
}


@pytest.fixture
def gemini_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gh"))
    return tmp_path / "gh" / ".gemini"


def _handlers(data: dict, event: str) -> list[str]:
    return [h["command"] for g in data["hooks"].get(event, []) for h in g["hooks"]]


def test_install_adds_memdowns_hooks_and_keeps_every_other_setting(gemini_home: Path) -> None:
    gemini_home.mkdir(parents=True)
    (gemini_home / "settings.json").write_text(json.dumps(THEIRS))
    report = gemini_setup.install()
    data = json.loads((gemini_home / "settings.json").read_text())
    assert {k: v for k, v in data.items() if k != "hooks"} == {k: v for k, v in THEIRS.items() if k != "hooks"}
    assert _handlers(data, "BeforeTool")[0] == "~/bin/lint.sh"
    assert _handlers(data, "BeforeTool")[1].endswith("memdown hook BeforeTool gemini")
    assert _handlers(data, "SessionEnd") == ["notify-send done", gemini_setup.hook_command(False, "SessionEnd", " gemini")]
    assert set(data["hooks"]) == set(gemini_setup.EVENTS)
    ours = [g for g in data["hooks"]["BeforeTool"] if g.get("matcher", "").startswith("^(")]
    assert ours and ours[0]["hooks"][0]["timeout"] == 10_000  # Gemini CLI counts milliseconds
    skill = gemini_home / "skills" / "memory-recall" / "SKILL.md"
    assert skill.read_text() == gemini_setup.SKILL and "`memdown uninstall gemini`" in gemini_setup.SKILL
    assert "--agent gemini" in gemini_setup.SKILL
    assert len(report.changes) == 2 and not report.kept

    before = (gemini_home / "settings.json").read_bytes()
    again = gemini_setup.install()
    assert again.changes == [] and (gemini_home / "settings.json").read_bytes() == before  # idempotent

    removed = gemini_setup.uninstall()
    assert len(removed.changes) == 2
    assert json.loads((gemini_home / "settings.json").read_text()) == THEIRS  # exactly what was there before
    assert not skill.exists()


def test_a_skill_the_person_edited_or_wrote_is_left_alone(gemini_home: Path) -> None:
    gemini_setup.install()
    skill = gemini_home / "skills" / "memory-recall" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nMy own note.\n")
    assert "edited" in gemini_setup.uninstall().kept[0] and skill.exists()
    skill.write_text("---\nname: memory-recall\ndescription: mine\n---\n")
    assert "not memdown's" in gemini_setup.install().kept[0]
    assert skill.read_text().endswith("description: mine\n---\n")


def test_uninstall_removes_the_file_install_created(gemini_home: Path) -> None:
    gemini_setup.install()
    assert (gemini_home / "settings.json").exists()
    report = gemini_setup.uninstall()
    assert not (gemini_home / "settings.json").exists() and report.changes
    assert gemini_setup.uninstall().changes == []


def test_a_stale_memdown_hook_is_replaced_not_doubled(gemini_home: Path) -> None:
    gemini_home.mkdir(parents=True)
    old = {"hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "/old/venv/bin/memdown hook AfterAgent gemini"}]}]}}
    (gemini_home / "settings.json").write_text(json.dumps(old))
    gemini_setup.install()
    data = json.loads((gemini_home / "settings.json").read_text())
    assert _handlers(data, "AfterAgent") == [gemini_setup.hook_command(False, "AfterAgent", " gemini")]


def test_project_level_writes_the_repository_settings_with_memdown_from_path(
        isolate_paths: Path, gemini_home: Path) -> None:
    subprocess.run(["git", "init", "-q", str(isolate_paths)], check=True)
    report = gemini_setup.install(project=True, start=isolate_paths)
    assert report.hooks_file == isolate_paths.resolve() / ".gemini" / "settings.json"
    data = json.loads(report.hooks_file.read_text())
    assert _handlers(data, "SessionStart") == ["memdown hook SessionStart gemini"]
    assert (isolate_paths / ".gemini" / "skills" / "memory-recall" / "SKILL.md").exists()
    assert not gemini_home.exists()


def test_a_settings_file_with_comments_is_refused_and_left_alone(gemini_home: Path) -> None:
    gemini_home.mkdir(parents=True)
    text = '{\n  // my theme\n  "ui": {"theme": "Dracula"}\n}\n'
    (gemini_home / "settings.json").write_text(text)
    with pytest.raises(InputFileError, match="changed nothing"):
        gemini_setup.install()
    assert (gemini_home / "settings.json").read_text() == text


def test_the_cli_lists_the_clients_and_says_what_it_changed(gemini_home: Path) -> None:
    helped = subprocess.run([sys.executable, "-m", "memdown", "install", "--help"], capture_output=True, text=True)
    assert "codex" in helped.stdout and "gemini" in helped.stdout
    run = subprocess.run([sys.executable, "-m", "memdown", "install", "gemini"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "hooks for SessionStart, BeforeAgent, BeforeTool" in run.stdout and "trust" in run.stdout
    again = subprocess.run([sys.executable, "-m", "memdown", "install", "gemini"], capture_output=True, text=True)
    assert "nothing to change" in again.stdout
    gone = subprocess.run([sys.executable, "-m", "memdown", "uninstall", "gemini"], capture_output=True, text=True)
    assert "removed" in gone.stdout and not (gemini_home / "settings.json").exists()
