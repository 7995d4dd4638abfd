"""Deleted by a person means deleted everywhere, for an approved rule too (session 9 attack).

A rule promoted into CLAUDE.md compiles to a guard in ``$MEMDOWN_HOME/guards.json``. A person who then
deleted the rule's line from CLAUDE.md by hand (or rewrote it: "use pnpm, not npm" became "npm is fine
here") still had every ``npm`` call denied by the hook, in their words they had taken back; only ``reflect
undo`` or ``reflect guards --remove`` stopped it. Now the guard records the files its rule was written to,
and when it would stop a call the hook looks for the rule's line there (``shellguard.still_written``): gone or
rewritten, the guard stops nothing and the hook log says why. Real PreToolUse hook subprocesses.

Red with ``shellguard.still_written`` returning True, or with ``live=`` left out of ``pretool``'s ``shellguard.check``.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from test_guards import bash, decision, hook, promote_quote


def _lines(path: Path, change) -> None:
    path.write_text("".join(change(line) for line in path.read_text().splitlines(keepends=True)))


@pytest.mark.parametrize("edit", ["deleted", "rewritten", "file removed"])
def test_a_rule_a_person_took_back_stops_nothing(memory_root: Path, isolate_paths: Path, edit: str) -> None:
    result = promote_quote(memory_root, "no, use pnpm, not npm")
    claude_md = isolate_paths / "CLAUDE.md"
    assert result["guard"] == "deny" and "memdown:" in claude_md.read_text()
    assert decision(hook(bash(isolate_paths, "npm install left-pad"))) == "deny"
    if edit == "deleted":
        _lines(claude_md, lambda line: "" if "memdown:LRN" in line else line)
    elif edit == "rewritten":
        _lines(claude_md, lambda line: re.sub(r"^- .*?(<!--)", r"- npm is fine here \1", line))
    else:
        claude_md.unlink()
    assert hook(bash(isolate_paths, "npm install left-pad")) == {}
    log = (memory_root / "logs" / "hooks.log").read_text()
    assert "taken back by a person" in log


def test_an_untouched_rule_and_a_moved_line_still_stop_the_call(memory_root: Path, isolate_paths: Path) -> None:
    promote_quote(memory_root, "no, use pnpm, not npm")
    claude_md = isolate_paths / "CLAUDE.md"
    text = claude_md.read_text()
    rule = next(line for line in text.splitlines(keepends=True) if "memdown:LRN" in line)
    claude_md.write_text("# Notes\n\n" + rule + "\n" + text.replace(rule, ""))  # moved, same words
    assert decision(hook(bash(isolate_paths, "npm install left-pad"))) == "deny"
