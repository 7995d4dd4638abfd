"""A resumed or forked session in the real client does not mine its parent's correction again.

Claude Code 2.1.328 appends a resume to the same file and starts a fork's file with the parent's lines
under the same uuids; both are caught by uuid. Older clients re-logged history under fresh uuids: that
case is tests/test_forks.py's (the recorded-turns registry), as no current client writes it.
"""
from __future__ import annotations

import pytest

from memdown.signals import store

from .conftest import Reply, Request, summary_reply, wait_for_workers, wait_until

pytestmark = pytest.mark.e2e

CORRECTION = "no, use pnpm, not npm"


def agent(req: Request) -> Reply:
    summary = summary_reply(req)
    if summary:
        return summary
    if req.last_tool_result() is not None:
        return Reply.text("Done.")
    if CORRECTION in req.last_user_text():
        return Reply.text("Understood, pnpm from now on.")
    if "Install" in req.last_user_text():
        return Reply.tool("Bash", {"command": "echo npm install", "description": "Install dependencies"})
    return Reply.text("Nothing else to change.")


def corrections(world) -> list:
    return [s for s in store.load(world.memory) if s.type == "correction" and "pnpm" in s.text]


@pytest.mark.parametrize("how", ["resume", "fork"])
def test_the_parents_correction_is_mined_once(make_world, how: str) -> None:
    world = make_world(agent).with_memdown_on_path().init_memory()
    allow = ("--allowedTools", "Bash")
    first = world.claude("Install the dependencies.", args=allow)
    assert first.proc.returncode == 0, first.proc.stderr
    corrected = world.claude(CORRECTION, resume=first.session_id, args=allow)
    assert corrected.proc.returncode == 0, corrected.proc.stderr
    wait_for_workers(world, timeout=120)
    wait_until(lambda: corrections(world), 60, "the correction as a signal")
    again = world.claude("Anything else?", resume=first.session_id,
                         args=allow + (("--fork-session",) if how == "fork" else ()))
    assert again.proc.returncode == 0, again.proc.stderr
    wait_for_workers(world, timeout=120)
    found = corrections(world)
    assert len(found) == 1, [(s.id, s.session, s.turn) for s in found]
