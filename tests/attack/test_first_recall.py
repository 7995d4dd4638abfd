"""The first recall after the first session: search answers on the first try, and memdown's own
failed command is never recorded as the user's failure.

The race seen in the real client: SessionStart starts the daemon, the forked recall agent searches at
once, and another writer (a Stop job's index step, or the daemon's catch-up) is building the first
index. Real hooks as subprocesses, the daemon's real query handler.
"""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memdown import paths
from memdown.config import load_config
from memdown.fsutil import file_lock

ENTRY = "# 2099-02-01\n\n## Session 10:00\n\n### 10:00\n\n- Fixed the flaky login test by pinning the clock.\n"


def _project(memory_root: Path, config: str) -> Path:
    (memory_root / "memory").mkdir(parents=True, exist_ok=True)
    (memory_root / "memory" / "2099-02-01.md").write_text(ENTRY)
    return memory_root


def _hook(event: str, payload: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memdown", "hook", event], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=120, env={**os.environ, "MEMDOWN_HOOK_SYNC": "1"})


def _while_another_writer_builds(memory_root: Path, query) -> list:
    """Run ``query`` while this test holds the index lock (another writer), then let go; its outcome."""
    results: list = []

    def run() -> None:
        try:
            results.append(query())
        except Exception as exc:  # noqa: BLE001 - the test reports it
            results.append(exc)

    with file_lock(paths.lock_file(memory_root, "index-refresh"), timeout=5):
        worker = threading.Thread(target=run)
        worker.start()
        time.sleep(1.0)  # orders events only: the search reaches the held lock first
    worker.join(300)
    return results


def test_the_daemon_answers_the_first_search_while_another_writer_builds(memory_root: Path, fake_embedder) -> None:
    from memdown.api import Memory
    from memdown.daemon.query import QueryHandler
    from memdown.daemon.state import SharedIndex

    _project(memory_root, "")
    mem = Memory(memory_root.resolve(), config=load_config(memory_root), embedder=fake_embedder)
    handler = QueryHandler(SharedIndex(memory_root.resolve(), mem, logging.getLogger("memdown.test.first")),
                           status=dict)
    line = json.dumps({"v": 1, "op": "search", "params": {"query": "flaky login", "k": 3}}).encode()
    (reply,) = _while_another_writer_builds(memory_root, lambda: handler.handle_line(line))
    assert reply.get("ok"), reply  # not {"error": "no index yet", "code": 5}
    assert any("pinning the clock" in hit["text"] for hit in reply["result"])


# --- search answers on the first try ------------------------------------------------------

def test_search_waits_for_the_first_build_instead_of_no_index(memory_root: Path, fake_embedder) -> None:
    from memdown.services.upkeep.memory import Memory

    _project(memory_root, "")
    results = _while_another_writer_builds(memory_root, lambda: Memory.open(
        memory_root, config=load_config(memory_root), embedder=fake_embedder).search("flaky login", refresh=False))
    assert results and not isinstance(results[0], Exception), results
    assert any("pinning the clock" in hit.text for hit in results[0])


# --- memdown's own failures are not the user's ----------------------------------------------

@pytest.mark.parametrize("command", ["memdown search 'why did the deploy fail' -k 10",
                                     "cd /repo && memdown expand abc123",
                                     "/home/u/.venv/bin/memdown transcript s1 --turn t1",
                                     "python -m memdown search deploy"])
def test_a_failed_memdown_command_is_not_a_failure_signal(memory_root: Path, isolate_paths: Path, command: str) -> None:
    _project(memory_root, "")
    out = _hook("PostToolUseFailure", {"session_id": "s1", "cwd": str(isolate_paths),
                                       "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
                                       "tool_input": {"command": command},
                                       "error": '{"error": "no index yet", "code": 5}\nExit code 5'})
    assert out.returncode == 0
    signals = list(paths.signals_dir(memory_root).glob("*.md")) if paths.signals_dir(memory_root).is_dir() else []
    assert all("no index yet" not in p.read_text() for p in signals)


def test_mining_skips_memdowns_own_failed_calls() -> None:
    from memdown.signals.tool_patterns import failed

    class Call:
        name, is_error = "Bash", True
        input = {"command": "memdown search 'auth flow' -k 10"}
        result = '{"error": "no index yet", "code": 5}'

    assert failed(Call()) is False
    Call.input = {"command": "pytest -x tests/"}
    assert failed(Call()) is True
