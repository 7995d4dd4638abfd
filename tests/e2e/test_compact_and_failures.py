"""Compaction (PreCompact, SessionStart "compact") and a misbehaving model, in the real client."""
from __future__ import annotations

import pytest

from .conftest import Reply, Request, summary_reply, wait_for_workers, wait_until

pytestmark = pytest.mark.e2e


def _is_compaction(req: Request) -> bool:
    return "summary" in req.last_user_text().lower()


def _summarizer(req: Request) -> Reply:
    """Haiku summaries that say which turn they summarize."""
    text = req.all_text()
    if "eviction" in text:
        return Reply.text("- Chose LRU eviction for the cache\n- Capped it at 512 MB")
    if "local cache" in text:
        return Reply.text("- Chose SQLite for the local cache\n- WAL mode for readers")
    return Reply.text("- Ran /compact\n- Nothing else happened")


def _compact_world(make_world, seen: list[str]):
    def responder(req: Request) -> Reply:
        if "haiku" in req.model:
            return _summarizer(req)
        if _is_compaction(req):
            seen.append("compaction")
            return Reply.text("<summary>The user chose SQLite for the cache; nothing else is open.</summary>")
        seen.append("turn")
        if "eviction" in req.last_user_text():
            return Reply.text("LRU eviction, capped at 512 MB.")
        return Reply.text("Use SQLite for the local cache: one file, no server, WAL mode for readers.")

    return make_world(responder).with_memdown_on_path().init_memory()


def test_compact_runs_precompact_and_sessionstart_compact(make_world) -> None:
    seen: list[str] = []
    world = _compact_world(make_world, seen)
    first = world.claude("Which store should the local cache use?")
    assert first.proc.returncode == 0, first.proc.stderr
    compact = world.claude("/compact", resume=first.session_id)
    assert compact.proc.returncode == 0, compact.proc.stderr
    events = [(h.event, h.matcher) for h in compact.hooks()]
    assert ("PreCompact", "manual") in events, compact.debug_log[-3000:]
    assert ("SessionStart", "compact") in events, events
    assert all(h.status == 0 for h in compact.hooks())
    after = world.claude("And the eviction policy?", resume=first.session_id)
    assert after.proc.returncode == 0, after.proc.stderr
    wait_for_workers(world)
    text = wait_until(lambda: world.daily_text().count(f"session:{first.session_id}") >= 2 and world.daily_text(),
                      60, "entries from before and after the compaction")
    assert "Chose SQLite for the local cache" in text and "Chose LRU eviction" in text, text
    assert "compaction" in seen
    assert text.count("Chose SQLite for the local cache") == 1, "the turn was recorded twice (Stop + PreCompact)"


def test_local_slash_command_is_not_recorded(make_world) -> None:
    world = _compact_world(make_world, [])
    first = world.claude("Which store should the local cache use?")
    world.claude("/compact", resume=first.session_id)
    wait_for_workers(world)
    wait_until(lambda: "local cache" in world.daily_text(), 60, "the first entry")
    assert "Ran /compact" not in world.daily_text()


def test_model_failures_leave_memory_intact(make_world) -> None:
    mode = {"now": "good"}

    def responder(req: Request) -> Reply:
        if "haiku" in req.model:
            if mode["now"] == "good":
                return summary_reply(req)
            # The summarizer gets garbage or an error: memdown falls back, never loses the turn.
            return Reply.error(500) if mode["now"] == "error" else Reply.text("\x00\ufffd not bullets at all")
        if mode["now"] == "error":
            return Reply.error(400)
        if mode["now"] == "empty":
            return Reply.empty()
        return Reply.text("Pinned the Node version to 20 in .nvmrc.")

    world = make_world(responder).with_memdown_on_path().init_memory()
    good = world.claude("Pin the node version please.")
    assert good.proc.returncode == 0, good.proc.stderr
    wait_for_workers(world)
    before = wait_until(world.daily_text, 60, "the first entry")
    assert f"session:{good.session_id}" in before

    for now in ("error", "empty", "garbage"):
        mode["now"] = now
        run = world.claude(f"Another request while the model is {now}.", timeout=240, CLAUDE_CODE_MAX_RETRIES="0")
        assert all(h.status == 0 for h in run.hooks()), (now, run.debug_log[-2000:])
        assert "Traceback" not in run.proc.stdout + run.proc.stderr
    wait_for_workers(world)
    after = world.daily_text()
    assert after.startswith(before), "an earlier entry changed"
    failed = world.memory / "state" / "jobs" / "failed"
    assert not (failed.is_dir() and any(failed.iterdir())), world.worker_log()[-2000:]
    print(f"\n[e2e] daily file grew from {len(before)} to {len(after)} characters across 3 failing sessions")
