"""Padding does not buy a pass (session 10 attack).

The PreToolUse hook does not parse a command over ``pretool.MAX_COMMAND`` characters (its budget), and it
used to let every such command through: ``git push --force origin main`` followed by 100,000 blanks ran
past the guard of a rule the person approved, and ``memdown reflect promote …`` padded the same way ran past
the check that keeps an agent from approving its own rules. Now a long command that names a program or path
a guard watches (or, in another client's shell, memdown) goes to a person (Codex: denied, it refuses
``ask``); a long command that names none passes as before. Real hook subprocesses.

Red with ``_too_long_to_parse`` not called (3 failed), its guards never matched (1) or a taken-back rule still counted (1).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_guards import bash, decision, hook, promote_quote

from memdown.hooks.pretool import MAX_COMMAND

PAD = " " * (MAX_COMMAND + 1)


def _codex_hook(payload: dict) -> dict:
    proc = subprocess.run([sys.executable, "-m", "memdown", "hook", "PreToolUse", "codex"], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def test_a_padded_forbidden_command_goes_to_a_person(memory_root: Path, isolate_paths: Path) -> None:
    promote_quote(memory_root, "Never run `git push --force` on main.")
    assert decision(hook(bash(isolate_paths, "git push --force origin main"))) == "deny"
    answer = hook(bash(isolate_paths, "git push --force origin main" + PAD))
    assert decision(answer) == "ask"
    assert "too long to check" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert decision(_codex_hook(bash(isolate_paths, "git push --force origin main" + PAD))) == "deny"
    assert "names git: a person decides" in (memory_root / "logs" / "hooks.log").read_text()


def test_a_padded_command_that_names_no_guarded_program_passes_and_is_logged(memory_root: Path,
                                                                           isolate_paths: Path) -> None:
    promote_quote(memory_root, "Never run `git push --force` on main.")
    assert hook(bash(isolate_paths, "ls -la" + PAD)) == {}
    assert "names no guarded program" in (memory_root / "logs" / "hooks.log").read_text()


def test_a_padded_person_command_in_another_clients_shell_is_refused(isolate_paths: Path) -> None:
    assert decision(_codex_hook(bash(isolate_paths, "memdown reflect promote LRN-1" + PAD))) == "deny"


def test_a_taken_back_rule_does_not_make_a_long_command_ask(memory_root: Path, isolate_paths: Path) -> None:
    promote_quote(memory_root, "Never run `git push --force` on main.")
    claude_md = isolate_paths / "CLAUDE.md"
    claude_md.write_text("".join(l for l in claude_md.read_text().splitlines(keepends=True) if "memdown:LRN" not in l))
    assert hook(bash(isolate_paths, "git push --force origin main" + PAD)) == {}
