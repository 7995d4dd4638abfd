"""A person's own client settings through `memdown install/uninstall gemini|codex|cursor|copilot`.

Gemini CLI saves its settings.json itself (trust, /settings), and a person may have the file open: a save
that lands between memdown's read and its write must be kept, not written over. A file its owner made
read-only, a symlink into a dotfiles repository, JSON with comments, a BOM or a non-UTF-8 file are refused
whole with one line, the file untouched.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memdown.services.clients import agent_hooks, codex_setup, gemini_setup

THEIRS = {"theme": "Dracula", "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [
    {"type": "command", "command": "./audit.sh", "timeout": 5000}]}]}}


@pytest.fixture
def homes(isolate_paths: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = Path(os.environ["HOME"])
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("COPILOT_HOME", str(home / ".copilot"))
    return home


def saved_meanwhile(module, name: str, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The client saves its settings (a new key, by renaming a new file over it, as Gemini CLI does) right
    after memdown has read them, once."""
    real = getattr(module, name)
    calls = []

    def change(data: dict, *args):
        if not calls:
            on_disk = json.loads(path.read_text()) if path.exists() else {}
            new = path.with_name("saved-by-client.tmp")
            new.write_text(json.dumps({**on_disk, "general": {"preferredEditor": "vim", "vimMode": True}}, indent=4))
            os.replace(new, path)
        calls.append(1)
        return real(data, *args)

    monkeypatch.setattr(module, name, change)


def test_a_save_by_gemini_between_read_and_write_is_kept_by_install_and_uninstall(homes: Path, monkeypatch) -> None:
    path = homes / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(THEIRS))
    with monkeypatch.context() as patch:
        saved_meanwhile(gemini_setup, "install_hooks", path, patch)
        assert gemini_setup.install().changes
    data = json.loads(path.read_text())
    assert data["general"] == {"preferredEditor": "vim", "vimMode": True}, "the client's save was overwritten"
    assert data["theme"] == "Dracula" and "SessionStart" in data["hooks"]
    with monkeypatch.context() as patch:
        saved_meanwhile(gemini_setup, "remove_hooks", path, patch)
        path.write_text(json.dumps({k: v for k, v in data.items() if k != "general"}))
        assert gemini_setup.uninstall().changes
    after = json.loads(path.read_text())
    assert after == {**THEIRS, "general": {"preferredEditor": "vim", "vimMode": True}}


def test_a_save_by_cursor_between_read_and_write_is_kept(homes: Path, monkeypatch) -> None:
    path = homes / ".cursor" / "hooks.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": 1, "hooks": {"afterFileEdit": [{"command": "prettier --write"}]}}))
    saved_meanwhile(agent_hooks, "_entries", path, monkeypatch)
    agent_hooks.install("cursor")
    data = json.loads(path.read_text())
    assert data["general"]["vimMode"] is True and data["hooks"]["afterFileEdit"] == [{"command": "prettier --write"}]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memdown", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("client, rel", [("gemini", ".gemini/settings.json"), ("codex", ".codex/hooks.json"),
                                         ("cursor", ".cursor/hooks.json")])
def test_a_read_only_settings_file_is_left_alone(homes: Path, client: str, rel: str) -> None:
    path = homes / rel
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": 1, "hooks": {}, "mine": True}))
    path.chmod(0o444)
    before = path.read_bytes()
    done = run("install", client)
    assert done.returncode == 7 and "read-only" in done.stderr and "changed nothing" in done.stderr, done.stderr
    assert path.read_bytes() == before and (path.stat().st_mode & 0o777) == 0o444


@pytest.mark.parametrize("raw", [
    b'{\n  // the theme I like\n  "theme": "Dracula",\n}\n',   # JSONC: comments and a trailing comma
    b"\xef\xbb\xbf" + json.dumps(THEIRS).encode(),              # a BOM
    json.dumps(THEIRS).encode("utf-16"),                        # UTF-16 (Windows editors)
    '{"name": "Jos\xe9"}'.encode("latin-1"),                    # not UTF-8
])
def test_settings_memdown_cannot_round_trip_are_refused_whole(homes: Path, raw: bytes) -> None:
    path = homes / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(raw)
    for verb in ("install", "uninstall"):
        done = run(verb, "gemini")
        assert done.returncode == 7 and "changed nothing" in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert path.read_bytes() == raw


def test_a_settings_file_linked_into_dotfiles_is_refused_and_stays_a_link(homes: Path, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text(json.dumps(THEIRS))
    link = homes / ".gemini" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    done = run("install", "gemini")
    assert done.returncode == 7 and "symlink" in done.stderr
    assert link.is_symlink() and json.loads(real.read_text()) == THEIRS


def test_uninstall_after_the_person_edited_memdowns_entry_removes_it_and_keeps_theirs(homes: Path) -> None:
    codex_setup.install()
    path = homes / ".codex" / "hooks.json"
    data = json.loads(path.read_text())
    for group in data["hooks"]["Stop"]:
        for handler in group["hooks"]:
            handler["timeout"] = 120  # the person gave memdown's capture more time
    data["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "notify-send done"}]})
    path.write_text(json.dumps(data))
    codex_setup.uninstall()
    left = json.loads(path.read_text())
    assert left == {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}


@pytest.mark.parametrize("client", ["opencode", "codex", "gemini"])
def test_a_reinstall_keeps_the_persons_edit_of_memdowns_own_file(homes: Path, client: str) -> None:
    """memdown's OpenCode plugin and its recall skill carry memdown's mark; a person who edits one and runs
    install again (after an upgrade) kept nothing: the file was rewritten without a word."""
    first = run("install", client)
    assert first.returncode == 0, first.stderr
    own = {"opencode": homes / ".config" / "opencode" / "plugins" / "memdown.js",
           "codex": homes / ".codex" / "skills" / "memory-recall" / "SKILL.md",
           "gemini": homes / ".gemini" / "skills" / "memory-recall" / "SKILL.md"}[client]
    original = own.read_text()
    edited = original + "\n<!-- mine: answer in Portuguese -->\n"
    own.write_text(edited)
    again = run("install", client)
    assert again.returncode == 0, again.stderr
    assert own.read_text() == original  # memdown's file is back
    [backup] = [p for p in own.parent.iterdir() if p.name.startswith(own.name + ".") and p.name.endswith(".bak")]
    assert backup.read_text() == edited and str(backup) in again.stdout  # the edit is kept and named
    assert not backup.name.endswith((".js", ".ts", ".md"))  # a name the client does not load
    assert run("install", client).stdout.count(".bak") == 0  # nothing to keep the second time
