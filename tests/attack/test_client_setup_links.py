"""`memdown install CLIENT --project` writes inside the repository only (session 8 attack).

The setup refused a linked settings file, but not a linked folder: a repository committing
``.gemini -> /anywhere`` (or ``.opencode/plugins``, ``.cursor``, ``.github/hooks``, ``.codex``, ``.agents``)
made ``memdown install gemini --project`` write settings.json and the recall skill, and ``install opencode
--project`` memdown's plugin, into the folder the link names, outside the repository (and ``uninstall``
remove files there). ``codex_setup.in_project`` builds every project path of every client's setup and
refuses a link on the way, as the promotion's writes into a repository do.

Red without it: ``in_project`` without its ``check_folders`` (every client below).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

LINKED = {  # client: the folder a repository links away
    "gemini": ".gemini",
    "opencode": ".opencode/plugins",
    "cursor": ".cursor",
    "copilot": ".github/hooks",
    "codex": ".codex",
}


@pytest.mark.parametrize("client", LINKED)
def test_a_linked_folder_in_the_repository_is_refused(isolate_paths: Path, tmp_path: Path, client: str) -> None:
    project = isolate_paths
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    link = project / LINKED[client]
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)
    for action in ("install", "uninstall"):
        proc = subprocess.run([sys.executable, "-m", "memdown", action, client, "--project"], cwd=project,
                              capture_output=True, text=True, timeout=120, env=os.environ.copy())
        assert proc.returncode != 0 and "a symlink" in proc.stderr, (action, proc.stdout, proc.stderr)
        assert sorted(p.name for p in outside.rglob("*")) == [], action
    assert link.is_symlink()


def test_codex_skill_folder_link_is_refused(isolate_paths: Path, tmp_path: Path) -> None:
    project = isolate_paths
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".agents").symlink_to(outside, target_is_directory=True)
    proc = subprocess.run([sys.executable, "-m", "memdown", "install", "codex", "--project"], cwd=project,
                          capture_output=True, text=True, timeout=120, env=os.environ.copy())
    assert proc.returncode != 0 and list(outside.rglob("*")) == []
