"""The README's install routes, with the real clients (#26.8): the plugin from a local marketplace path,
and the CLI with uv (or pipx) from the clone's path. memdown is not on PyPI: no route may need it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import REPO

pytestmark = pytest.mark.e2e


def _isolated(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    config = home / ".claude"
    config.mkdir(parents=True)
    return {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(config),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"}


def _run(args: list[str], env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout, cwd=env["HOME"])


def test_the_clone_is_a_valid_plugin_and_marketplace(claude_cli, tmp_path):
    proc = _run([claude_cli, "plugin", "validate", str(REPO)], _isolated(tmp_path))
    assert proc.returncode == 0 and "Validation passed" in proc.stdout, proc.stdout + proc.stderr
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))
    plugin = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    assert f"{plugin['name']}@{market['name']}" == "memdown@memdown"  # what the README tells people to install
    assert [p["name"] for p in market["plugins"]] == ["memdown"]


def test_the_plugin_installs_from_a_local_marketplace_path(claude_cli, tmp_path):
    env = _isolated(tmp_path)
    added = _run([claude_cli, "plugin", "marketplace", "add", str(REPO)], env)
    assert added.returncode == 0, added.stdout + added.stderr
    installed = _run([claude_cli, "plugin", "install", "memdown@memdown"], env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = _run([claude_cli, "plugin", "list"], env)
    assert "memdown@memdown" in listed.stdout and "enabled" in listed.stdout, listed.stdout


@pytest.mark.slow
def test_uv_tool_installs_the_cli_from_the_clone_path(tmp_path):
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not installed")
    env = {**_isolated(tmp_path), "UV_TOOL_DIR": str(tmp_path / "tools"), "UV_TOOL_BIN_DIR": str(tmp_path / "bin")}
    proc = _run([uv, "tool", "install", "--quiet", str(REPO)], env, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    version = _run([str(tmp_path / "bin" / "memdown"), "--version"], env)
    assert version.returncode == 0 and "memdown" in version.stdout.lower(), version.stdout + version.stderr
