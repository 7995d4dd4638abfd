"""Recall output read by an agent is fenced and labelled as recorded data.

The memory-recall skill's agent runs ``memdown search``, ``expand`` and
``transcript`` through the Bash tool, where Claude Code sets ``CLAUDECODE=1``.
Each command runs through the real CLI (cold path, warm fast path against a
daemon socket, click path) on a memory a hostile commit wrote, and is checked
against the attack corpus: one well-formed fence per output with a fresh nonce,
no way to close it, instruction-like lines flagged, ids and drill-down lines
intact; ``--json`` keeps its shape and labels each record. People at a
terminal (no agent variable) see the plain view.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from attack_corpus import HOSTILE, MARKERS, assert_fenced, fake_daemon, write_poisoned_daily
from conftest import run_memdown
from memdown import config, fence, paths
from transcript_factory import TranscriptBuilder

AGENT = {"CLAUDECODE": "1"}  # what Claude Code 2.1.328 puts in its Bash tool's environment
OPEN = re.compile(r'^<memdown-recorded-notes nonce="([0-9a-f]{12})" source="memdown (\w+)">$', re.MULTILINE)


def _one_fence(out: str, command: str) -> str:
    """The nonce of the single fence that wraps the whole of ``out``."""
    opened = OPEN.findall(out)
    assert [c for _, c in opened] == [command], out[:500]
    lines = out.rstrip("\n").split("\n")
    nonce = opened[0][0]
    assert lines[0].startswith("<memdown-recorded-notes") and lines[-1] == f'</memdown-recorded-notes nonce="{nonce}">'
    assert lines[1] == fence.LABEL
    assert_fenced(out, limit=fence.BLOCK_CHARS)
    return nonce


def _ok(*args: str, env: dict | None = None):
    """Every run must succeed, and a failure says why: an unchecked one showed up here as "printed nothing"
    under load (#19). One way to get exactly that, exit 141 with no output at all, was a BrokenPipeError
    that was not stdout's taken for a reader that left (fixed: cli/failure.stdout_closed)."""
    result = run_memdown(*args, env=env)
    assert result.returncode == 0 and result.stdout, (args, result.returncode, result.stderr)
    return result


@pytest.mark.integration
def test_search_and_expand_are_fenced_for_an_agent_and_plain_for_people(memory_root: Path) -> None:
    _ok("init")
    write_poisoned_daily(memory_root)
    daily = memory_root / "memory" / "2026-11-21.md"
    daily.write_text(daily.read_text().replace("\x00", ""))  # a NUL byte makes the indexer skip the file as binary
    assert "0 file(s) indexed" not in _ok("index").stdout

    agent = _ok("search", "instructions deploy developer mode", "-k", "20", env=AGENT)
    nonce = _one_fence(agent.stdout, "search")
    again = _ok("search", "instructions deploy developer mode", "-k", "20", env=AGENT)
    assert _one_fence(again.stdout, "search") != nonce  # fresh per run: no closer can be written in advance
    for name in ("override", "fake_closer", "system_tag", "pipe_to_shell"):
        assert MARKERS[name] in agent.stdout, name  # shown as flagged data, not dropped
    assert "alembic upgrade head" in agent.stdout
    ids = re.findall(r"^\[\d+\] ([0-9a-f]{12}) ", agent.stdout, re.MULTILINE)
    assert len(ids) >= 2  # the agent can still expand what it found (windows join neighbouring turns)

    people = _ok("search", "instructions deploy developer mode", "-k", "20")
    assert not OPEN.search(people.stdout) and fence.LABEL not in people.stdout and "[flagged" not in people.stdout
    assert re.findall(r"^\[\d+\] ([0-9a-f]{12}) ", people.stdout, re.MULTILINE) == ids
    assert HOSTILE["fake_closer"] in people.stdout  # people see the file as it is
    assert _ok("search", "deploy", "--no-fence", env=AGENT).stdout.startswith("[1] ")
    assert _ok("search", "deploy", "--fence").stdout.startswith("<memdown-recorded-notes")
    assert not OPEN.search(_ok("search", "deploy", env={**AGENT, "MEMDOWN_FENCE": "0"}).stdout)

    for chunk_id in ids:
        shown = _ok("expand", chunk_id, env=AGENT)
        _one_fence(shown.stdout, "expand")
        assert len(shown.stdout) <= fence.BLOCK_CHARS  # the 300,000-character entry is cut, the fence still closes

    hits = json.loads(_ok("search", "instructions deploy developer mode", "-k", "20", "--json", env=AGENT).stdout)
    plain = json.loads(_ok("search", "instructions deploy developer mode", "-k", "20", "--json").stdout)
    assert [h["id"] for h in hits] == [h["id"] for h in plain] and "label" not in plain[0]
    assert all(h["label"] == fence.LABEL for h in hits)
    closer = next(h for h in hits if "developer mode" in h["text"])
    assert "fake-tag" in closer["flags"] and "</memdown-recorded-notes" not in json.dumps(hits)
    assert any("override" in h["flags"] for h in hits)
    assert [] in [h["flags"] for h in hits]  # the ordinary fix is not flagged
    section = json.loads(_ok("expand", ids[0], "--json", env=AGENT).stdout)
    assert section["label"] == fence.LABEL and isinstance(section["flags"], list)


def test_the_warm_fast_path_fences_the_same_way(memory_root: Path) -> None:
    """A daemon's answer (here a socket serving poisoned hits) is rendered by the same fence."""
    assert run_memdown("init").returncode == 0
    hits = [{"id": f"{n:012x}", "score": 0.5, "kind": "summary", "source": "memory/2026-11-21.md",
             "start_line": n, "end_line": n, "heading": "2026-11-21 > Session 10:00", "date": "2026-11-21",
             "session": "", "turn": "", "text": text, "notes": [], "window": None}
            for n, text in enumerate(HOSTILE.values())]
    sock_path = paths.socket_path(memory_root)
    sock_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    server = fake_daemon(sock_path, hits)
    try:
        agent = run_memdown("search", "deploy", env=AGENT)
        people = run_memdown("search", "deploy")
        as_json = run_memdown("search", "deploy", "--json", "--fence")
    finally:
        server.close()
    assert agent.returncode == 0, agent.stderr
    _one_fence(agent.stdout, "search")
    assert not OPEN.search(people.stdout) and "[1] 000000000000" in people.stdout
    assert all(h["label"] == fence.LABEL for h in json.loads(as_json.stdout))


def test_transcript_is_fenced_for_an_agent(memory_root: Path) -> None:
    assert run_memdown("init").returncode == 0
    b = TranscriptBuilder()
    b.prompt("Fix the deploy. " + HOSTILE["fake_closer"])
    b.tool("Bash", {"command": "alembic upgrade head"}, HOSTILE["system_tag"])
    b.reply("Done. " + HOSTILE["override"])
    path = b.write(paths.claude_home() / "projects" / "-work-project" / f"{b.session_id}.jsonl")

    listing = run_memdown("transcript", str(path), env=AGENT)
    assert listing.returncode == 0, listing.stderr
    _one_fence(listing.stdout, "transcript")
    turn = run_memdown("transcript", b.session_id, "--turn", "last", "--context", "1", env=AGENT)
    assert turn.returncode == 0, turn.stderr
    _one_fence(turn.stdout, "transcript")
    assert "developer mode" in turn.stdout and "alembic upgrade head" in turn.stdout
    people = run_memdown("transcript", b.session_id, "--turn", "last")
    assert not OPEN.search(people.stdout) and HOSTILE["fake_closer"] in people.stdout
    data = json.loads(run_memdown("transcript", b.session_id, "--turn", "last", "--json", env=AGENT).stdout)
    assert data["label"] == fence.LABEL and {"override", "fake-tag"} <= set(data["flags"])
    assert "developer mode" in json.dumps(data) and "</memdown-recorded-notes" not in json.dumps(data)  # defanged
    assert "label" not in json.loads(run_memdown("transcript", b.session_id, "--turn", "last", "--json").stdout)


def test_fence_lines_keeps_lines_ids_and_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ["[1] 0123456789ab  0.5000  memory/x.md:1-2", "    drill down: memdown transcript s1 --turn abcd1234",
             "    " + HOSTILE["override"], "    " + HOSTILE["fake_closer"], "x" * 50_000] + ["line"] * 10_000
    block = fence.fence_lines("title", lines, source="memdown search")
    assert len(block) <= fence.BLOCK_CHARS and "more lines left out" in block
    out = block.split("\n")
    assert out[3:5] == lines[:2]  # memdown's own lines pass unchanged
    assert out[5].startswith("    [flagged: override") and out[6].startswith("    [flagged: ")
    assert "</memdown-recorded-notes nonce=\"000000000000\"" not in block
    assert len(out[7]) <= fence.LINE_CHARS
    assert_fenced(block, limit=fence.BLOCK_CHARS)


@pytest.mark.parametrize("env, fenced", [
    ({}, False), ({"CLAUDECODE": "1"}, True), ({"AI_AGENT": "claude-code_2-1-328_agent"}, True),
    ({"CLAUDECODE": "0"}, False), ({"CLAUDECODE": "1", "MEMDOWN_FENCE": "no"}, False),
    ({"MEMDOWN_FENCE": "YES"}, True), ({"CURSOR_AGENT": "1"}, True),
])
def test_who_gets_the_fence(monkeypatch: pytest.MonkeyPatch, env: dict, fenced: bool) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert config.recall_fence() is fenced
