"""Quiet on success: the real CLI, in subprocesses with a plain environment (no LANCEDB_LOG, no TTY),
prints nothing on stderr when a command succeeds: no Rust warnings from LanceDB, no progress bars,
no third-party log lines. What users see, not what a test environment hides (issue #19, item 4)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT

pytestmark = pytest.mark.integration

CORPUS = REPO_ROOT / "bench" / "retrieval" / "corpus"


def plain_env(**extra: str) -> dict[str, str]:
    """The test's isolated paths and nothing else a user would not have set (no LANCEDB_LOG, no RUST_LOG)."""
    keep = ("PATH", "HOME", "LANG", "MEMDOWN_HOME", "MEMDOWN_CONFIG", "MEMDOWN_DIR", "XDG_DATA_HOME",
            "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "CLAUDE_CONFIG_DIR", "MEMDOWN_WATCH_ENABLED",
            "MEMDOWN_WATCH_START_ON_QUERY")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return {**env, **extra}


def memdown(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memdown", *args], capture_output=True, text=True,
                          env=env or plain_env(), timeout=300, stdin=subprocess.DEVNULL)


def quiet(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    result = memdown(*args, env=env)
    assert result.returncode == 0, (args, result.returncode, result.stderr)
    assert result.stderr == "", (args, result.stderr)
    return result


@pytest.fixture
def filled(memory_root: Path) -> Path:
    assert "LANCEDB_LOG" not in plain_env()
    quiet("init")
    for path in sorted(CORPUS.glob("2026-06-0*.md")):
        shutil.copy2(path, memory_root / "memory" / path.name)
    return memory_root


def test_every_read_and_write_command_is_silent_on_stderr_in_a_plain_environment(filled: Path):
    quiet("index")
    hits = json.loads(quiet("search", "why did the migration fail", "--json").stdout)
    assert hits
    assert quiet("search", "redis cache ttl").stdout.startswith("[1] ")
    quiet("search", "redis cache ttl", "--mode", "vector")
    quiet("expand", hits[0]["id"][:12])
    quiet("stats")
    quiet("verify")
    quiet("reflect", "list")


def test_a_search_that_builds_the_index_itself_is_silent_off_a_terminal(filled: Path):
    """No index yet: the search builds it; no progress bar or rebuild notice tears a pipe's stderr...
    except the one-line note that the index was built, which is the documented notice."""
    result = memdown("search", "why did the migration fail")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert all(line.startswith("memdown: index built:") for line in lines), lines
    assert "\x1b[" not in result.stderr  # no terminal control codes when stderr is not a terminal


def test_a_user_setting_of_lancedb_log_is_left_alone(filled: Path):
    """memdown only sets a default: a user who asks for LanceDB's logs gets them."""
    quiet("index")
    result = memdown("search", "why did the migration fail", env=plain_env(LANCEDB_LOG="warn"))
    assert result.returncode == 0, result.stderr
    assert "WARN" in result.stderr and "lance" in result.stderr


def test_a_daemon_started_by_a_query_says_so_once(filled: Path):
    env = plain_env(MEMDOWN_WATCH_ENABLED="1", MEMDOWN_WATCH_START_ON_QUERY="1")
    quiet("index")
    try:
        first = memdown("stats", env=env)
        assert first.returncode == 0, first.stderr
        lines = first.stderr.splitlines()
        assert len(lines) == 1 and "started the live index" in lines[0], lines
        assert "memdown watch stop" in lines[0]
        from conftest import wait_for

        assert wait_for(lambda: "running" in memdown("watch", "status", env=env).stdout, timeout=60)
        second = memdown("stats", env=env)
        assert second.returncode == 0 and second.stderr == "", second.stderr
    finally:
        memdown("watch", "stop", env=env)


@pytest.mark.parametrize("endpoint", ["http://127.0.0.1:9", "http://10.255.255.1"])
def test_model_pull_without_network_fails_in_one_line(memory_root: Path, endpoint: str):
    """Refused (nothing listens) and unroutable (a connect that never answers): one line, exit code 4,
    no retry log lines. (Measured: under 4 s; the subprocess timeout only guards against a hang.)"""
    result = subprocess.run([sys.executable, "-m", "memdown", "model", "pull", "BAAI/bge-small-en-v1.5"],
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                            env=plain_env(HF_ENDPOINT=endpoint, HF_HUB_OFFLINE="0"))
    assert result.returncode == 4, (result.returncode, result.stderr)
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("Error: "), result.stderr
    assert "cannot be reached" in result.stderr and "memdown model pull" in result.stderr
