"""Hooks as a table over services: the one-time memory-location notice, env switches, import boundaries."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT

SHIM = REPO_ROOT / "hooks" / "memdown-hook"


def run_hook(event: str, payload: dict, **env: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "memdown", "hook", event], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=120, env={**os.environ, **env})
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def test_first_session_says_once_where_memory_lives_and_how_to_turn_it_off(memory_root: Path, isolate_paths: Path):
    assert not memory_root.exists()  # the first Stop will create it, unasked
    start = {"session_id": "s1", "cwd": str(isolate_paths), "source": "startup"}
    first = run_hook("SessionStart", start)["systemMessage"]
    assert str(memory_root) in first and "MEMDOWN_DISABLE=1" in first and "/plugin" in first
    second = run_hook("SessionStart", {**start, "session_id": "s2"})["systemMessage"]
    assert "MEMDOWN_DISABLE" not in second and "no memory yet" in second
    assert not memory_root.exists()  # saying so creates nothing in the project


def test_the_notice_is_per_project(tmp_path: Path, isolate_paths: Path):
    from memdown.services.recall.session import first_run_notice

    assert "MEMDOWN_DISABLE" in first_run_notice(tmp_path / "a" / ".memdown")
    assert first_run_notice(tmp_path / "a" / ".memdown") == ""
    assert "MEMDOWN_DISABLE" in first_run_notice(tmp_path / "b" / ".memdown")


# The shim (hooks/memdown-hook) decides before Python starts; Python decides for
# `memdown hook` run directly and for mining. Both must read the same words.
@pytest.mark.parametrize("value, off", [("1", True), ("true", True), ("yes", True), ("TRUE", True), ("Yes", True),
                                        ("0", False), ("false", False), ("no", False), ("", False), ("on", False),
                                        ("2", False)])
def test_memdown_disable_means_the_same_in_the_shim_and_in_python(value: str, off: bool, tmp_path: Path,
                                                                   isolate_paths: Path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "memdown").write_text("#!/bin/sh\nprintf '{\"systemMessage\": \"ran\"}\\n'\n")
    (fake / "memdown").chmod(0o755)
    shim = subprocess.run([str(SHIM), "SessionStart"], input="{}", capture_output=True, text=True, timeout=30,
                          env={"PATH": f"{fake}:/usr/bin:/bin", "HOME": str(isolate_paths), "MEMDOWN_DISABLE": value})
    assert shim.returncode == 0
    assert (json.loads(shim.stdout) == {}) is off, shim.stdout
    py = run_hook("SessionStart", {"cwd": str(isolate_paths)}, MEMDOWN_DISABLE=value)
    assert (py == {}) is off, py

    from memdown.config import memdown_disabled

    os.environ["MEMDOWN_DISABLE"] = value
    try:
        assert memdown_disabled() is off
    finally:
        del os.environ["MEMDOWN_DISABLE"]

