"""A CLI search answered in-process (no daemon) starts the daemon, so the next one is answered warm."""
from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from conftest import run_memdown, wait_for
from memdown.live import lifecycle

pytestmark = pytest.mark.integration


@pytest.fixture
def root(memory_root: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMDOWN_WATCH_ENABLED", "1")
    assert run_memdown("init").returncode == 0
    day = memory_root / "memory" / "2026-04-01.md"
    day.write_text("# 2026-04-01\n\n## Session 10:00\n\n- the flaky test was a race in the quokka scheduler\n")
    assert run_memdown("index").returncode == 0
    yield memory_root
    lifecycle.stop(memory_root, timeout=10)
    pid = lifecycle.running_pid(memory_root, wait=0)
    if pid:
        os.kill(pid, signal.SIGKILL)


def test_cold_search_starts_the_daemon_and_the_next_search_uses_it(root: Path, monkeypatch):
    monkeypatch.setenv("MEMDOWN_WATCH_START_ON_QUERY", "1")
    assert not lifecycle.lock_held(root)
    cold = run_memdown("search", "quokka race", "--mode", "text")
    assert cold.returncode == 0 and "quokka" in cold.stdout, cold.stderr
    assert wait_for(lambda: lifecycle.ping(root), 60), "no daemon came up after a cold search"
    before = lifecycle.ping(root)["requests"]
    warm = run_memdown("search", "quokka race", "--mode", "text")
    assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout)
    assert lifecycle.ping(root)["requests"] > before  # answered by the daemon


def test_no_daemon_when_turned_off(root: Path, monkeypatch):
    monkeypatch.setenv("MEMDOWN_WATCH_START_ON_QUERY", "0")
    assert run_memdown("search", "quokka", "--mode", "text").returncode == 0
    assert run_memdown("stats").returncode == 0
    assert not lifecycle.lock_held(root) and lifecycle.running_pid(root, wait=0) is None


def test_the_cli_freezes_its_objects_before_the_interpreter_exits(tmp_path: Path):
    """The interpreter's last garbage collection walks every object a cold search imported (~0.1 s of CPU);
    frozen objects are skipped. Checked from an exit handler registered before memdown's (so it runs after)."""
    import subprocess
    import sys

    code = ("import atexit, gc, sys\n"
            "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0))\n"
            "sys.argv = ['memdown', '--version']\n"
            "from memdown.entry import main\nmain()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "frozen True", done.stderr
