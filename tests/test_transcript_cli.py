"""``memdown transcript`` and the render module behind it."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdown import paths
from memdown.cli import cli
from memdown.transcript.parser import parse_transcript
from memdown.transcript.render import (
    BLOCK_CHARS,
    TOTAL_CHARS,
    list_turns,
    render_turns,
    render_turns_json,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
SID = "feedface-1111-2222-3333-444455556666"


def _entries(n_turns: int = 3, *, long_prompt: bool = False, tools_per_turn: int = 1) -> list[dict]:
    out: list[dict] = []
    parent = None
    for i in range(n_turns):
        uid = f"{i:08x}-aaaa-bbbb-cccc-{i:012x}"
        prompt = f"Prompt number {i}\nsecond line"
        if long_prompt and i == 1:
            prompt = "L" * (BLOCK_CHARS * 3)
        out.append({"type": "user", "uuid": uid, "parentUuid": parent, "sessionId": SID,
                    "timestamp": f"2026-03-0{i % 9 + 1}T10:00:00Z", "cwd": "/repo", "version": "2.1.9",
                    "message": {"role": "user", "content": prompt}})
        blocks = [{"type": "text", "text": f"Answer {i}"}]
        for j in range(tools_per_turn):
            blocks.append({"type": "tool_use", "id": f"t{i}-{j}", "name": "Bash",
                           "input": {"command": f"make step{i}-{j}"}})
        out.append({"type": "assistant", "uuid": f"a{i}", "parentUuid": uid, "sessionId": SID,
                    "message": {"id": f"m{i}", "role": "assistant", "content": blocks}})
        for j in range(tools_per_turn):
            out.append({"type": "user", "uuid": f"r{i}-{j}", "parentUuid": f"a{i}", "sessionId": SID,
                        "toolUseResult": {}, "message": {"role": "user", "content": [
                            {"type": "tool_result", "tool_use_id": f"t{i}-{j}", "is_error": j == 0 and i == 2,
                             "content": "Exit code 2\nmake: *** No rule" if (j == 0 and i == 2) else "ok"}]}})
        parent = f"r{i}-0"
    return out


def _write_live(entries: list[dict]) -> Path:
    path = paths.claude_home() / "projects" / "-repo" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# --- render module ------------------------------------------------------------------

def test_list_turns_rows(tmp_path: Path) -> None:
    t = parse_transcript(_write_live(_entries(3, long_prompt=True)))
    rows = list_turns(t)
    assert [r["uuid"] for r in rows] == ["00000000", "00000001", "00000002"]
    assert rows[0]["prompt"] == "Prompt number 0"  # first line only
    assert len(rows[1]["prompt"]) <= 100 and rows[1]["prompt"].endswith("…")
    assert rows[0]["tool_calls"] == 1 and rows[0]["time"].startswith("2026-03-0")


def test_render_turns_context_and_errors() -> None:
    t = parse_transcript(_write_live(_entries(5)))
    out = render_turns(t, t.turns[2], context=1)
    assert "Prompt number 1" in out and "Prompt number 3" in out
    assert "Prompt number 0" not in out and "Prompt number 4" not in out
    assert "▶── turn 3/5" in out
    assert "• Bash: make step2-0" in out
    assert "✗ Exit code 2 make: *** No rule" in out


def test_render_is_bounded() -> None:
    t = parse_transcript(_write_live(_entries(3, long_prompt=True, tools_per_turn=400)))
    out = render_turns(t, t.turns[1], context=1)
    assert len(out) <= TOTAL_CHARS + 100
    assert "…[truncated" in out
    assert "▶── turn 2/3" in out  # the selected turn always survives the cut
    assert "L" * (BLOCK_CHARS + 1) not in out
    data = render_turns_json(t, t.turns[1], context=1)
    assert data["truncated"] is True
    assert len(json.dumps(data, ensure_ascii=False)) <= TOTAL_CHARS * 2
    selected = [turn for turn in data["turns"] if turn["selected"]]
    assert len(selected) == 1 and selected[0]["tool_calls_omitted"] > 0


# --- CLI (in process) ---------------------------------------------------------------

def test_cli_lists_turns_by_session_id() -> None:
    _write_live(_entries(3))
    result = _run("transcript", SID[:8])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(f"session {SID} · 3 turns · ~/.claude/projects/-repo/")
    assert any(line.startswith("00000001") and "Prompt number 1" in line for line in lines)
    assert str(Path.home()) not in result.output


def test_cli_renders_a_turn() -> None:
    _write_live(_entries(4))
    result = _run("transcript", SID, "--turn", "00000002", "--context", "1")
    assert result.exit_code == 0, result.output
    assert "Prompt number 1" in result.output and "Prompt number 3" in result.output
    assert "✗ Exit code 2" in result.output
    last = _run("transcript", SID, "--turn", "last")
    assert "▶── turn 4/4" in last.output


def test_cli_json_forms() -> None:
    path = _write_live(_entries(3))
    listing = json.loads(_run("transcript", str(path), "--json").output)
    assert listing["session_id"] == SID and listing["turn_count"] == 3
    assert listing["path"] == f"~/.claude/projects/-repo/{SID}.jsonl"
    assert [row["uuid"] for row in listing["turns"]] == ["00000000", "00000001", "00000002"]
    shown = json.loads(_run("transcript", SID, "--turn", "00000002", "--json").output)
    assert shown["selected"].startswith("00000002") and len(shown["turns"]) == 1
    turn = shown["turns"][0]
    assert turn["commands"] == ["make step2-0"]
    assert turn["errors"] and turn["tool_calls"][0]["is_error"] is True


@pytest.mark.parametrize(
    "args, code, needle",
    [
        (["transcript", "0badc0de-0000"], 6, "no transcript for session '0badc0de-0000'"),
        (["transcript", SID, "--turn", "ffff"], 6, "no turn 'ffff'"),
        (["transcript", "/no/such/file.jsonl"], 6, "no transcript file"),
    ],
)
def test_cli_errors_are_one_line(args: list[str], code: int, needle: str) -> None:
    _write_live(_entries(2))
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == code, result.output
    assert needle in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)  # no uncaught error


def test_cli_rejects_binary_file() -> None:
    junk = paths.claude_home() / "projects" / "-repo" / "junk.jsonl"
    junk.parent.mkdir(parents=True, exist_ok=True)
    junk.write_bytes(b"\x00\x01\x02 not text")
    result = CliRunner().invoke(cli, ["transcript", str(junk)])
    assert result.exit_code == 7 and "binary" in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.shared
def test_cli_on_real_sidechain_transcript(shared_transcripts: Path) -> None:
    source = shared_transcripts / "real/bradymholt-dotfiles/-Users-bholt-dev-evergreen"
    # memdown reads transcripts only where Claude Code keeps them: copy the session there (a temp home)
    path = paths.claude_home() / "projects" / source.name / "b6076239-b6a8-42a2-8a61-9d0390bdcf3b.jsonl"
    path.parent.mkdir(parents=True)
    shutil.copy(source / path.name, path)
    if (source / path.stem).is_dir():
        shutil.copytree(source / path.stem, path.parent / path.stem)
    listing = _run("transcript", str(path))
    assert "83004af1" in listing.output and "c0f6c542" not in listing.output.split("subagents:")[0]
    shown = _run("transcript", str(path), "--turn", "c0f6c542")  # a subagent turn
    assert shown.exit_code == 0 and "· subagent" in shown.output
    assert "Help find why clearing a target" in shown.output


# --- CLI (real subprocess) -------------------------------------------------------------

@pytest.mark.integration
def test_subprocess_list_and_unknown_session() -> None:
    from conftest import run_memdown

    _write_live(_entries(2))
    env = {"PYTHONPATH": str(REPO_ROOT)}
    ok = run_memdown("transcript", SID, env=env, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert "Prompt number 1" in ok.stdout
    bad = run_memdown("transcript", "0badc0de-1234", env=env, timeout=60)
    assert bad.returncode == 6
    assert bad.stdout == ""
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
    assert "no transcript for session '0badc0de-1234'" in bad.stderr
