"""A destructive fix hidden by invisible or look-alike characters is still destructive (session 8 attack).

A known fix that runs a destructive command is never injected as "What fixed it" (#27 item 7), judged by
``shellguard.destructive``. A committed signal's fix written ``git push --for\\u00adce`` (a soft hyphen), with
a zero-width space, full-width or Cyrillic letters was judged harmless by the shell parser, and the fence
then removed the invisible character, so the failure hook told the model "What fixed it: Bash `git push
--force`" and ``reflect list`` showed it unmarked. ``destructive`` now judges the text as it is read too
(``fence.normalized``), as the guards do.

Red without it: ``destructive`` judging ``text`` alone (``_destructive(text)``): every disguised case.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_memdown
from memdown import fence
from memdown.shellguard import destructive
from memdown.signals import store
from memdown.signals.store import Signal

PUSH_ERROR = ("To https://github.com/org/app.git\n ! [rejected]        main -> main (fetch first)\n"
              "error: failed to push some refs to 'https://github.com/org/app.git' hint: Updates were rejected")
DISGUISED = {
    "soft-hyphen": "git push origin main --for\u00adce",
    "zero-width": "git push --f\u200borce origin main",
    "word-joiner": "git reset --ha\u2060rd origin/main",
    "full-width": "ｇｉｔ push --force",
    "cyrillic-i": "g\u0456t push --force",
    "tag-chars": "rm -r\U000e0020f build",
}


@pytest.mark.parametrize("command", DISGUISED.values(), ids=DISGUISED.keys())
def test_what_the_fence_shows_is_what_is_judged(command: str) -> None:
    assert destructive(f"Bash `{fence.clean(command)}`") or destructive(f"Bash `{fence.normalized(command)}`")
    assert destructive(f"Bash `{command}`")


def _hook(event: str, payload: dict) -> dict:
    proc = subprocess.run([sys.executable, "-m", "memdown", "hook", event], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=120, env={**os.environ, "MEMDOWN_HOOK_SYNC": "1"})
    assert proc.returncode == 0
    return json.loads(proc.stdout)


@pytest.mark.integration
def test_a_committed_disguised_force_push_is_never_what_fixed_it(memory_root: Path, isolate_paths: Path) -> None:
    assert run_memdown("init").returncode == 0
    store.append(memory_root, [Signal("failure", PUSH_ERROR, 2, extra={
        "tool": "Bash", "input": "Bash `git push origin main`", "fix": f"Bash `{DISGUISED['soft-hyphen']}`"})])
    out = _hook("PostToolUseFailure", {"session_id": "s1", "cwd": str(isolate_paths), "tool_name": "Bash",
                                       "tool_input": {"command": "git push origin main"}, "error": PUSH_ERROR,
                                       "hook_event_name": "PostToolUseFailure"})
    context = out.get("hookSpecificOutput", {}).get("additionalContext", "")
    assert "similar Bash failure" in context
    assert "What fixed it" not in context and "--force" not in context and "destructive" in context
    shown = run_memdown("reflect", "list").stdout
    assert "--force" not in shown or "destructive (force push)" in shown
