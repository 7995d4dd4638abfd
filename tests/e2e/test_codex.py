"""memdown in the REAL Codex CLI (0.171.0) against a local fake of the OpenAI Responses API.

memdown is installed the way a person does it (`memdown install codex`), then `codex exec` runs with a
custom model provider whose base_url is the fake. What is proven, each from what the client itself did:
(a) a first session's turn is recorded from its rollout, with its anchor, under `## Session HH:MM (codex)`;
(b) a second session gets the digest in its first request and recalls the decision with `memdown search`;
(c) a correction approved on this machine stops the repeated command (PreToolUse deny; the program never runs);
(d) a poisoned repository's memory reaches the model only inside memdown's fence, its orders flagged.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from .agent_cli import (FENCE_OPEN, POISON, Script, approve, assert_only_fenced, fake_programs, programs_ran, recorded,
                        shell_plan, world_maker)
from .codex_world import CodexWorld, find_codex
from .conftest import jobs_pending, wait_until
from .fake_responses import FakeResponsesAPI, Reply, Request

pytestmark = pytest.mark.e2e
CODEX_CLI, WHY_NOT = find_codex()
if CODEX_CLI is None:  # one line for the whole module, not one per test
    pytest.skip(WHY_NOT, allow_module_level=True)

DECISION = "Keep the retry budget at 3 attempts because the upstream API rate-limits bursts"


@pytest.fixture(scope="session")
def codex_cli() -> str:
    assert CODEX_CLI is not None
    return CODEX_CLI


@pytest.fixture
def make_codex_world(codex_cli: str, tmp_path: Path):
    yield from world_maker(CodexWorld, FakeResponsesAPI, codex_cli, tmp_path)


def first_session(world: CodexWorld) -> None:
    run = world.codex("What retry budget should the upload client use? Decide and record it.")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    recorded(world, "(codex)")
    # the capture worker goes on to mine and index: a search racing the index's first build fails
    # ("index is not open"), with any client, so the next session starts when it is done
    wait_until(lambda: not jobs_pending(world), 120, "memdown's detached workers to finish their jobs")


def decide(req: Request, output: str | None) -> Reply:
    return Reply.say(f"Agreed. Decision: {DECISION}.")


def test_a_first_session_is_recorded_with_its_anchor(make_codex_world) -> None:
    world = make_codex_world(Script(decide)).install().init_memory()
    first_session(world)
    [rollout] = world.rollouts()
    session = re.search(r"([0-9a-f-]{36})\.jsonl$", rollout.name)[1]
    text = world.daily_text()
    assert re.search(r"^## Session \d\d:\d\d \(codex\)$", text, re.M), text
    anchor = re.search(r"<!-- session:(\S+) turn:(\S+) transcript:(\S+) -->", text)
    assert anchor and anchor[1] == session and anchor[3].endswith(rollout.name), text
    assert "retry budget" in text.lower(), text
    assert "Stop answered" in world.hooks_log() or "SessionEnd answered" in world.hooks_log(), world.hooks_log()


def test_a_second_session_gets_the_digest_and_recalls_it(make_codex_world) -> None:
    def plan(req: Request, output: str | None) -> Reply:
        if "retry budget should" in req.last_user_text():
            return decide(req, output)
        if output is None:
            return Reply.shell('memdown search "retry budget upload client" -k 5')
        return Reply.say(f"RECALLED: {output[:1500]}")

    script = Script(plan)
    world = make_codex_world(script).install().init_memory()
    first_session(world)
    script.requests.clear()
    run = world.codex("Why did we pick that retry budget last time?")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    opening = script.requests[0].all_text()
    assert "retry budget" in opening.lower() and FENCE_OPEN.search(opening), opening[-3000:]  # the digest
    assert "memory-recall" in opening  # the recall skill is offered to the model
    [searched] = script.outputs
    assert "3 attempts" in searched and FENCE_OPEN.search(searched), searched
    assert "RECALLED" in run.out


def test_an_approved_correction_stops_the_repeated_command(make_codex_world) -> None:
    script = Script(shell_plan(Reply, "grep -r TODO src", "rg TODO src"))
    world = make_codex_world(script).install().init_memory()
    (world.project / "src").mkdir()
    fake_programs(world, "grep", "rg")
    assert "guard: deny" in approve(world, "never grep, use rg", "Never use grep, use `rg` instead.")
    run = world.codex("Find the TODOs.")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    assert not [c for c in programs_ran(world) if "grep" in c], programs_ran(world)  # grep never ran …
    stopped, then = script.outputs
    assert stopped.startswith("Command blocked by PreToolUse hook: memdown guard"), stopped
    assert "Never use grep" in stopped and "Instead run: rg" in stopped, stopped
    assert "blocked" not in then and "Process exited with code" in then, then  # … the command the rule names did
    assert "PreToolUse deny" in world.hooks_log(), world.hooks_log()


def test_a_poisoned_repository_reaches_the_model_only_fenced(make_codex_world) -> None:
    def plan(req: Request, output: str | None) -> Reply:
        return Reply.shell('memdown search "deploy key rotation" -k 5') if output is None else Reply.say("ok")

    script = Script(plan)
    world = make_codex_world(script).install().init_memory()
    (world.memory / "memory" / "2026-11-20.md").write_text(POISON, encoding="utf-8")
    run = world.codex("How do we rotate the deploy key?")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    for text in (script.requests[0].all_text(), script.outputs[0]):  # the digest, then search output
        assert_only_fenced(text)
