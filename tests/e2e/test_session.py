"""A whole session in the real client: turns, Stop, resume, compaction, SessionEnd."""
from __future__ import annotations

import re

import pytest

from .conftest import Reply, Request, summary_reply, wait_for_workers, wait_until

pytestmark = pytest.mark.e2e

DECISION = "Keep the retry budget at 3 attempts because the upstream API rate-limits bursts"


def main_agent(req: Request) -> Reply:
    summary = summary_reply(req)
    if summary:
        return summary
    prompt = req.last_user_text()
    if "compact" in req.system_text.lower() and "summar" in prompt.lower():
        return Reply.text("<summary>We discussed the retry budget (3 attempts).</summary>")
    if "retry budget" in prompt:
        return Reply.text(f"Agreed. Decision: {DECISION}.")
    return Reply.text("Done: the second turn changed nothing else.")


def test_turns_then_stop_write_an_anchored_entry(make_world) -> None:
    world = make_world(main_agent).with_memdown_on_path().init_memory()
    first = world.claude("What retry budget should the upload client use? Decide and record it.")
    assert first.proc.returncode == 0, first.proc.stderr
    assert DECISION in first.out
    second = world.claude("Anything else to change in the uploader?", resume=first.session_id)
    assert second.proc.returncode == 0, second.proc.stderr

    # Every memdown hook the client ran finished with status 0.
    for run in (first, second):
        events = {h.event for h in run.hooks()}
        assert {"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"} <= events, run.debug_log[-3000:]
        assert all(h.status == 0 for h in run.hooks())
    assert [h.matcher for h in first.hooks("SessionStart")] == ["startup"]
    assert [h.matcher for h in second.hooks("SessionStart")] == ["resume"]
    # A forked session (SessionStart source "fork") gets memdown's SessionStart too.
    fork = world.claude("Branch off: what about the download client?", resume=first.session_id,
                        args=("--fork-session",))
    assert fork.proc.returncode == 0, fork.proc.stderr
    print("\n[e2e] fork run SessionStart matchers:", [h.matcher for h in fork.hooks("SessionStart")])
    assert [h.matcher for h in fork.hooks("SessionStart")] == ["fork"], fork.debug_log[-3000:]
    assert all(h.status == 0 for h in fork.hooks())

    # The Stop hook's detached worker summarized each turn with `claude -p --model haiku`
    # through the same fake server, and the entry landed with its anchor.
    wait_for_workers(world)
    text = wait_until(lambda: world.daily_text().count(f"session:{first.session_id}") >= 2
                      and f"session:{fork.session_id}" in world.daily_text() and world.daily_text(),
                      60, "both turns and the fork's turn in the daily file")
    haiku = world.api.message_requests("claude-haiku")
    assert haiku, "the summarizer never reached the fake server"
    assert "retry budget" in haiku[0].all_text()
    assert "Decided to keep the retry budget at 3 attempts" in text
    anchors = re.findall(r"<!-- session:(\S+) turn:(\S+) transcript:(\S+) -->", text)
    assert {a[0] for a in anchors} == {first.session_id, fork.session_id}, text
    assert len([a for a in anchors if a[0] == first.session_id]) == 2
    transcript = world.transcript(first.session_id)
    assert transcript.exists()
    assert all(a[2].endswith(f"{a[0]}.jsonl") for a in anchors), anchors
    print(f"\n[e2e] entries: {len(anchors)}; haiku summary calls: {len(haiku)}")


def test_a_forked_session_does_not_record_the_parents_turns_again(make_world) -> None:
    world = make_world(main_agent).with_memdown_on_path().init_memory()
    first = world.claude("What retry budget should the upload client use? Decide and record it.")
    wait_for_workers(world)
    wait_until(lambda: f"session:{first.session_id}" in world.daily_text(), 60, "the first entry")
    fork = world.claude("Branch off: what about the download client?", resume=first.session_id,
                        args=("--fork-session",))
    wait_for_workers(world)
    wait_until(lambda: f"session:{fork.session_id}" in world.daily_text(), 60, "the fork's entry")
    assert world.daily_text().count("<!-- session:") == 2, world.daily_text()


def test_a_resumed_session_records_only_its_new_turn(make_world) -> None:
    world = make_world(main_agent).with_memdown_on_path().init_memory()
    first = world.claude("What retry budget should the upload client use? Decide and record it.")
    wait_for_workers(world)
    wait_until(lambda: f"session:{first.session_id}" in world.daily_text(), 60, "the first entry")
    resumed = world.claude("Anything else to change in the uploader?", resume=first.session_id)
    assert resumed.proc.returncode == 0, resumed.proc.stderr
    wait_for_workers(world)
    wait_until(lambda: world.daily_text().count("<!-- session:") >= 2, 60, "the resumed turn's entry")
    turns = re.findall(r"<!-- session:\S+ turn:(\S+)", world.daily_text())
    assert len(turns) == len(set(turns)) == 2, world.daily_text()
