"""A plugin-only install, as a plugin user gets it: no memdown anywhere on PATH.

The first SessionStart bootstraps memdown into ${CLAUDE_PLUGIN_DATA}/venv with
pip (from PyPI, detached); afterwards the hooks run from that venv and the
recall skill's bare ``memdown`` resolves through the plugin's ``bin/memdown``.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest

from .conftest import REPO, RecallScript, Reply, Request, wait_for_workers, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

INSTALLING = "memdown: installing in the background; memory starts next session"


def _python3_for_the_bootstrap(world) -> None:
    """The bootstrap runs `python3 -m venv`; memdown needs 3.11+. Use the system's when it is new enough."""
    probe = subprocess.run(["python3", "-c", "import sys; print(sys.version_info >= (3, 11))"],
                           env=world.env(), capture_output=True, text=True)
    if probe.stdout.strip() != "True":
        (world.bin / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))


class Script(RecallScript):
    """The fork runs `memdown stats --json` and hands its output back."""

    skill_args = "build tool"
    first_prompts = {"Which build tool": "Noted: the build uses make, not ninja."}

    def fork(self, req: Request) -> Reply:
        results = req.tool_results()
        if not results:
            return Reply.tool("Bash", {"command": "memdown stats --json", "description": "memdown stats"})
        self.fork_results.append(results[-1])
        return Reply.text(f"FORK SAW: {results[-1][:1500]}")


def test_plugin_only_install_bootstraps_and_puts_memdown_on_the_bash_path(make_world) -> None:
    script = Script()
    world = make_world(script).init_memory()
    _python3_for_the_bootstrap(world)
    assert not (world.bin / "memdown").exists() and shutil.which("memdown", path=world.env()["PATH"]) is None

    first = world.claude("Which build tool do we use here?")
    assert first.proc.returncode == 0, first.proc.stderr
    assert INSTALLING in first.debug_log
    assert all(h.status == 0 for h in first.hooks())
    started = time.monotonic()
    venv = world.plugin_data / "venv"
    wait_until(lambda: (venv / ".plugin-version").exists() and not (world.plugin_data / "bootstrap.lock").exists()
               or (world.plugin_data / "bootstrap.failed").exists(), 900, "the plugin's pip bootstrap")
    log = (world.plugin_data / "bootstrap.log").read_text(encoding="utf-8", errors="replace")
    assert not (world.plugin_data / "bootstrap.failed").exists(), log[-3000:]
    print(f"\n[e2e] plugin bootstrap finished {time.monotonic() - started:.0f}s after the first session ended")
    plugin = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    assert (venv / ".plugin-version").read_text().strip() == plugin["version"]

    # Next session: hooks run from the plugin venv, and so does the skill's `memdown`.
    second = world.claude("Please recall which build tool we use.")
    assert second.proc.returncode == 0, second.proc.stderr
    assert INSTALLING not in second.debug_log
    assert "memdown: " in second.debug_log  # SessionStart's status line, from the venv's memdown
    assert script.fork_results, second.out
    stats = script.fork_results[0]
    assert "not found" not in stats and "127" not in stats.split("\n")[0], stats
    assert '"files"' in stats or "chunks" in stats, stats
    assert script.main_results and "FORK SAW" in script.main_results[0]
    wait_for_workers(world, timeout=180)
    # That session was a recall: the venv's memdown records it as a recall pointer.
    text = wait_until(world.recall_text, 60, "a recall entry written by the venv's memdown")
    assert f"session:{second.session_id}" in text
