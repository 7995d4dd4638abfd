"""Correct once, never again, in the real client: the correction is mined, approved, loaded, and enforced.

Session 1: the agent runs ``npm install``; the user says "no, use pnpm, not npm". SessionEnd mines it;
``memdown reflect promote`` (the person's approval) writes the rule and compiles its guard.
Session 2: the rule is in the model's context, and when the scripted model repeats ``npm install`` the
PreToolUse guard stops it before it runs: the model's next request carries the reason as the tool result.
"""
from __future__ import annotations

import json

import pytest

from .agent_cli import fake_programs, programs_ran
from .conftest import Reply, Request, World, summary_reply, wait_for_workers, wait_until

pytestmark = pytest.mark.e2e

CORRECTION = "no, use pnpm, not npm"
RULE = "Use pnpm for every install and script, not npm."


class Agent:
    """Runs the package manager it is told to (npm first), and records what it is told back."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.tool_results: list[str] = []
        self.phrasings: list[str] = []

    def __call__(self, req: Request) -> Reply:
        if "haiku" in req.model and "Rewrite the user's correction" in req.all_text():
            self.phrasings.append(req.all_text())
            return Reply.text(RULE)  # memdown's `claude -p` phrasing of the rule, through the real CLI
        summary = summary_reply(req)
        if summary:
            return summary
        self.requests.append(req)
        prompt = req.last_user_text()
        result = req.last_tool_result()
        if result is not None:
            self.tool_results.append(result)
            return Reply.text("Done." if "memdown guard" not in result else "Understood: pnpm install it is.")
        if CORRECTION in prompt:
            return Reply.text("Understood, pnpm from now on.")
        return Reply.tool("Bash", {"command": "npm install", "description": "Install dependencies"})


def _candidate(world: World) -> dict | None:
    listed = world.memdown("reflect", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return next((c for c in json.loads(listed.stdout)["candidates"] if "pnpm" in c["text"]), None)


def test_an_approved_correction_stops_the_repeated_command(make_world) -> None:
    agent = Agent()
    world = make_world(agent).with_memdown_on_path().init_memory()
    fake_programs(world, "npm", "pnpm")
    allow = ("--allowedTools", "Bash")

    first = world.claude("Install the dependencies.", args=allow)
    assert first.proc.returncode == 0, first.proc.stderr
    assert programs_ran(world) == ["npm install"]  # nothing stops npm before the correction
    corrected = world.claude(CORRECTION, resume=first.session_id, args=allow)
    assert corrected.proc.returncode == 0, corrected.proc.stderr
    wait_for_workers(world, timeout=120)
    cand = wait_until(lambda: _candidate(world), 60, "the correction as a review candidate")

    promoted = world.memdown("reflect", "promote", cand["id"], "--to", "project")
    assert promoted.returncode == 0, promoted.stderr
    assert f"rule: {RULE}" in promoted.stdout and "guard: deny" in promoted.stdout, promoted.stdout
    assert RULE in (world.project / "CLAUDE.md").read_text()
    assert len(agent.phrasings) == 1 and "use pnpm, not npm" in agent.phrasings[0].lower()  # by claude -p, once
    assert CORRECTION not in (world.project / "CLAUDE.md").read_text()  # the quote stays in .memdown
    assert CORRECTION in (world.memory / "learnings.md").read_text()

    before = len(agent.requests)
    second = world.claude("Set the project up again from scratch.", args=allow)
    assert second.proc.returncode == 0, second.proc.stderr
    session2 = agent.requests[before:]
    assert RULE in session2[0].all_text() + session2[0].system_text  # the approved rule is in the model's context
    assert programs_ran(world) == ["npm install"], "the repeated npm install ran"
    assert len(session2) == 2, [r.last_user_text()[:200] for r in session2]
    reason = session2[1].last_tool_result() or ""
    assert "memdown guard" in reason and RULE in reason and "pnpm install" in reason, reason
    guard_runs = [h for h in second.hooks("PreToolUse")]
    assert guard_runs and all(h.status == 0 for h in guard_runs), second.debug_log[-2000:]
