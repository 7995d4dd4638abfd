"""Recall in the real client: Skill → forked subagent → memdown search (windows), transcript.

The scripted fork follows the skill: it expands a hit only when its window does not answer
(clipped, or the decision is not in it), so a window that answers costs no `expand` call.

No permission rule is written anywhere: the plugin's PreToolUse hook allows
memdown's own read-only recall skill, the skill's ``allowed-tools`` let its
``memdown`` Bash calls run, and ``memdown`` itself is the plugin's ``bin/memdown``.
"""
from __future__ import annotations

import json
import re
import shlex

import pytest

from .conftest import RECALL_SKILL, RecallScript, Reply, Request, World, wait_for_workers, wait_until

pytestmark = pytest.mark.e2e

DECISION = "Keep the retry budget at 3 attempts because the upstream API rate-limits bursts"
QUESTION = "What did we decide last week about the retry budget?"


def _bash(command: str) -> Reply:
    return Reply.tool("Bash", {"command": command, "description": "memdown recall step"})


class Script(RecallScript):
    """The fork runs search, then expand only if the window does not answer, then transcript."""

    skill_args = "retry budget decision"
    first_prompts = {"retry budget should": f"Agreed. Decision: {DECISION}."}

    def __init__(self) -> None:
        super().__init__()
        self.skill_text = ""

    def fork(self, req: Request) -> Reply:
        results = req.tool_results()
        step = len(results)
        if step == 0:
            self.skill_text = req.all_text() + req.system_text
            return self._run('memdown search "retry budget" -k 5')
        self.fork_results.append(results[-1])
        last = results[-1]
        if self.fork_commands[-1].startswith("memdown search"):
            first_hit = last.split("\n[2] ")[0]
            clipped = re.search(r"^\s+…\s*$", first_hit, re.MULTILINE)  # the window cut a long entry
            answered = "retry budget at 3 attempts" in first_hit and not clipped
            drill = re.search(r"drill down: (memdown transcript \S+ --turn \S+)", last)
            if not answered or not drill:  # the skill: expand only when the window does not answer
                hit = re.search(r"\[1\] ([0-9a-f]{12})", last)
                if not hit:
                    return Reply.text(f"RECALL FAILED: search gave {last[:500]}")
                return self._run(f"memdown expand {hit[1]}")
            return self._run(f"{drill[1]} --context 1")
        if self.fork_commands[-1].startswith("memdown expand"):
            anchor = re.search(r"session:(\S+) turn:(\S+)", last)
            if not anchor:
                return Reply.text(f"RECALL FAILED: no anchor in {last[:500]}")
            return self._run(f"memdown transcript {anchor[1]} --turn {shlex.quote(anchor[2])} --context 1")
        quoted = "retry budget at 3 attempts" in last and "rate-limits bursts" in last
        return Reply.text(f"RECALLED: {DECISION} (transcript confirms: {quoted})")

    def _run(self, command: str) -> Reply:
        self.fork_commands.append(command)
        return _bash(command)


def _record_decision(world: World) -> str:
    first = world.claude("What retry budget should the upload client use? Decide and record it.")
    assert first.proc.returncode == 0, first.proc.stderr
    wait_for_workers(world, timeout=150)  # SessionEnd's job also builds the index (real fastembed)
    wait_until(lambda: (world.memory / "index").is_dir(), 30, "the index")
    return first.session_id


def test_recall_runs_all_three_layers_in_the_same_turn(make_world) -> None:
    script = Script()
    world = make_world(script).with_memdown_on_path().init_memory()
    _record_decision(world)

    run = world.claude(QUESTION)
    assert run.proc.returncode == 0, run.proc.stderr
    print(f"\n[e2e] forked recall agent commands: {script.fork_commands}")
    expands = [c for c in script.fork_commands if c.startswith("memdown expand")]
    print(f"[e2e] expand calls made by the forked agent: {len(expands)}")

    # The Skill ran without any permission rule: memdown's PreToolUse hook allowed it. (The fork's Bash
    # calls pass memdown's guard hook too, which has no guard to apply here and lets them run.)
    pre = run.hooks("PreToolUse")
    assert pre and all(h.status == 0 for h in pre), run.debug_log[-2000:]
    assert any(h.matcher == "Skill" for h in pre) and {h.matcher for h in pre} <= {"Skill", "Bash"}
    assert "allow rule" not in run.out
    # The skill the fork read says to expand only when a window does not answer.
    assert "Do not `memdown expand` a hit whose window answers" in script.skill_text
    # The search's text view showed the decision inside its window, so the fork went straight
    # from search to the transcript: no expand call (it was one per recall before windows).
    assert [c.split()[1] for c in script.fork_commands] == ["search", "transcript"], script.fork_results[:1]
    assert len(expands) == 0
    assert "retry budget at 3 attempts" in script.fork_results[0] and "<!--" not in script.fork_results[0]
    assert "rate-limits bursts" in script.fork_results[1]
    for result in script.fork_results:
        assert "not found" not in result and "Exit code 127" not in result, result
    # The fork's answer reached the main agent as the Skill's result, in the same turn.
    assert len(script.main_results) == 1
    assert f'Skill "{RECALL_SKILL}" completed (forked execution)' in script.main_results[0]
    assert "RECALLED: " + DECISION in script.main_results[0]
    assert "transcript confirms: True" in script.main_results[0]
    assert "MAIN AGENT ANSWER" in run.out and "RECALLED:" in run.out

    # Recall hygiene: the recall turn is recorded as a pointer, never as a new fact in the daily log,
    # and it does not outrank the decision it recalled.
    daily_before = world.daily_text()
    wait_for_workers(world, timeout=150)
    pointer = wait_until(lambda: f"session:{run.session_id}" in world.recall_text() and world.recall_text(),
                         60, "the recall pointer")
    assert "Recall" in pointer
    assert f"session:{run.session_id}" not in world.daily_text()
    assert world.daily_text() == daily_before
    found = world.memdown("search", "retry budget decision", "--json", "-k", "3")
    assert found.returncode == 0, found.stderr
    assert all(hit.get("kind") != "recall" for hit in json.loads(found.stdout)), found.stdout


def test_without_memdown_hooks_recall_is_denied_in_print_mode(make_world) -> None:
    """The defect the PreToolUse hook fixes: `claude -p` refuses the Skill without a rule."""
    script = Script()
    world = make_world(script).with_memdown_on_path().init_memory()
    run = world.claude(QUESTION, MEMDOWN_DISABLE="1")
    assert run.proc.returncode == 0, run.proc.stderr
    assert not script.fork_commands
    assert script.main_results and "Skill(memdown:memory-recall)" in script.main_results[0]


def test_a_user_deny_rule_still_wins_over_the_hook(make_world) -> None:
    """The hook's allow skips the prompt only; the user's deny rule for the skill still holds."""
    script = Script()
    world = make_world(script).with_memdown_on_path().init_memory()
    settings = world.project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"deny": [f"Skill({RECALL_SKILL})"]}}))
    run = world.claude(QUESTION)
    assert run.proc.returncode == 0, run.proc.stderr
    assert not script.fork_commands, "the skill ran despite the deny rule"
    assert script.main_results and "completed (forked execution)" not in script.main_results[0]
