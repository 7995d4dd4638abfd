"""What gets written for a turn: readable entries, folded retries, no client-only
turns, recall turns as pointers that never outrank what they recalled."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from conftest import run_memdown
from transcript_factory import TranscriptBuilder

from memdown.config import Config
from memdown.services.capture.record import record_session
from memdown.services.recall.search import SearchOptions, build_where
from memdown.services.capture.summarize import claude_summary, conclusion, extractive_summary
from memdown.store.daily import read_entries
from memdown.store.kinds import kind_for
from memdown.transcript.parser import parse_transcript
from memdown.transcript.segments import is_retry_prompt, plan_entries, recall_of


def _config(use_claude: bool = False) -> Config:
    config = Config()
    config.values["summarizer"]["use_claude"] = use_claude
    config.values["archive"]["enabled"] = False
    return config


def _api_error(b: TranscriptBuilder, text: str = "API Error: 502 Bad Gateway") -> None:
    b._entry("assistant", {"id": "err", "role": "assistant", "model": "<synthetic>",
                           "content": [{"type": "text", "text": text}]}, isApiErrorMessage=True)


def _user_raw(b: TranscriptBuilder, text: str) -> None:
    b._entry("user", {"role": "user", "content": text})


def _all_entries(root: Path) -> dict[str, tuple[str, str]]:
    """turn uuid → (kind by file location, body) for every entry under memory/."""
    found = {}
    for path in sorted((root / "memory").rglob("*.md")):
        for entry in read_entries(path):
            if entry.anchor:
                found[entry.anchor.turn] = (kind_for(path.relative_to(root).as_posix()), entry.body)
    return found


def _build_fix(b: TranscriptBuilder) -> None:
    b.prompt("The build is broken again, fix it")
    b.reply("Let me try a more direct approach:")
    b.tool("Bash", {"command": "npm run build"},
           "Exit code 2\nsrc/config.ts(14,3): error TS2322: Type 'string' is not assignable to type 'number'.",
           is_error=True)
    b.tool("Edit", {"file_path": "/work/project/src/config.ts", "old_string": "a", "new_string": "b"}, "ok")
    b.tool("Bash", {"command": "npm run build"}, "built in 4.2s")
    b.reply("Fixed: `timeout` in src/config.ts was a string; it is now parsed with Number(). The build passes.")


def test_conclusion_comes_from_the_end_of_the_turn_not_its_preamble(tmp_path):
    b = TranscriptBuilder()
    _build_fix(b)
    turn = parse_transcript(b.write(tmp_path / "t.jsonl")).turns[0]
    bullets = extractive_summary(turn, cwd="/work/project")
    text = "\n".join(bullets)
    outcome = next(x for x in bullets if x.startswith("Outcome:"))
    assert "parsed with Number()" in outcome
    assert "direct approach" not in text
    assert "`src/config.ts`" in text  # relative to the session's cwd
    assert "TS2322" in text and "fixed by Edit `src/config.ts`" in text


def test_preamble_only_last_message_falls_back_to_the_last_report(tmp_path):
    b = TranscriptBuilder()
    b.prompt("why is CI red")
    b.reply("The lint step fails because biome formats the generated Prisma client.")
    b.reply("Let me fix both files:")
    turn = parse_transcript(b.write(tmp_path / "t.jsonl")).turns[0]
    assert conclusion(turn).startswith("The lint step fails because biome")


def test_api_error_turn_and_its_retry_become_one_entry_with_the_original_ask(tmp_path, memory_root):
    b = TranscriptBuilder()
    b.prompt("Add cursor pagination to the /api/users endpoint")
    _api_error(b)
    retry = b.prompt("retry")
    b.tool("Edit", {"file_path": "/work/project/api/users.py", "old_string": "a", "new_string": "b"}, "ok")
    b.reply("Added cursor pagination to list_users.")
    path = b.write(tmp_path / f"{b.session_id}.jsonl")
    report = record_session(memory_root, path, b.session_id, config=_config())
    entries = _all_entries(memory_root)
    assert report.written == 1 and list(entries) == [retry]
    body = entries[retry][1]
    assert "Add cursor pagination" in body and "retried after an API error" in body
    assert "API Error" not in body.split("Outcome:")[-1]


def test_an_empty_last_turn_waits_and_folds_into_the_next_capture(tmp_path, memory_root):
    b = TranscriptBuilder()
    b.prompt("I like the two-function approach; keep get_budget_data as is for now")
    _api_error(b, "API Error: Connection error.")
    path = b.write(tmp_path / f"{b.session_id}.jsonl")
    first = record_session(memory_root, path, b.session_id, config=_config())
    assert first.written == 0 and first.waiting == 1
    nxt = b.prompt("How does the app signal which sync type it wants?")
    b.reply("Add a sync_type parameter: bootstrap, backfill or delta.")
    b.write(path)
    second = record_session(memory_root, path, b.session_id, config=_config())
    entries = _all_entries(memory_root)
    assert second.written == 1 and list(entries) == [nxt]
    assert "keep get_budget_data as is" in entries[nxt][1]  # the user's decision is not lost


def test_an_empty_last_turn_is_written_when_the_session_ends(tmp_path, memory_root):
    """No next turn will carry its ask: at SessionEnd (``final``) the waiting turn becomes an entry."""
    b = TranscriptBuilder()
    b.prompt("Keep the retry budget at three attempts for the upload client")
    _api_error(b, "API Error: Connection error.")
    path = b.write(tmp_path / f"{b.session_id}.jsonl")
    waiting = record_session(memory_root, path, b.session_id, config=_config())
    assert waiting.written == 0 and waiting.waiting == 1
    ended = record_session(memory_root, path, b.session_id, config=_config(), final=True)
    entries = _all_entries(memory_root)
    assert ended.written == 1 and ended.waiting == 0 and len(entries) == 1
    assert "retry budget at three attempts" in next(iter(entries.values()))[1]
    again = record_session(memory_root, path, b.session_id, config=_config(), final=True)
    assert again.written == 0 and len(_all_entries(memory_root)) == 1  # recorded once


def test_shell_mode_and_local_commands_are_not_memories(tmp_path, memory_root):
    b = TranscriptBuilder()
    b.prompt("<bash-input>sudo ip link add br0 type bridge</bash-input>")
    _user_raw(b, "<bash-stdout></bash-stdout><bash-stderr></bash-stderr>")
    b.prompt("<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>")
    _user_raw(b, "<local-command-stdout>Set model to opus</local-command-stdout>")
    review = b.prompt("<command-name>/review</command-name>\n<command-args>auth/session.py</command-args>")
    b.tool("Read", {"file_path": "/work/project/auth/session.py"}, "def refresh(): ...")
    b.reply("The token refresh races when two requests expire together; guard refresh() with a lock.")
    path = b.write(tmp_path / f"{b.session_id}.jsonl")
    report = record_session(memory_root, path, b.session_id, config=_config())
    entries = _all_entries(memory_root)
    assert list(entries) == [review]  # a slash command the model worked on is a real ask
    assert report.client_only == 2
    text = "".join(p.read_text() for p in (memory_root / "memory").rglob("*.md"))
    assert "ip link" not in text and "/model" not in text
    assert record_session(memory_root, path, b.session_id, config=_config()).written == 0


def test_real_shell_mode_turn_is_not_recorded(tmp_path, memory_root, shared_transcripts):
    path = shared_transcripts / "real/austinweitao-claude-backup/-home-cwtrocks-OpenCoreAnalysisKit/5ea5e99e-9793-4288-9c85-c9838be1630c.jsonl"
    bash_turn = "a13fbfe5-cec2-4d70-b3fa-4a47d8be4d36"
    turns = parse_transcript(path, include_subagents=False).turns
    plan = plan_entries(turns)
    assert bash_turn in {t.uuid for t in plan.skipped}
    assert bash_turn not in {u.turn.uuid for u in plan.units}


def test_retry_words():
    assert is_retry_prompt("retry") and is_retry_prompt("Continue.") and is_retry_prompt("继续")
    assert not is_retry_prompt("continue with the login page") and not is_retry_prompt("lets continue to use local")


@pytest.fixture
def one_bullet_claude(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "claude"
    script.write_text("#!/bin/sh\ncat > /dev/null\necho '- Decided: keep the queue in SQLite (one host).'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def test_a_one_bullet_model_answer_is_kept(tmp_path, one_bullet_claude):
    b = TranscriptBuilder()
    b.prompt("Should the job queue use SQLite or Postgres?")
    b.reply("SQLite: one host, no extra service.")
    turn = parse_transcript(b.write(tmp_path / "t.jsonl")).turns[0]
    assert claude_summary(turn, model="haiku", timeout=30) == ["Decided: keep the queue in SQLite (one host)."]


def _recall_turn(b: TranscriptBuilder, question: str, answer: str, cited: str) -> str:
    turn = b.prompt(question)
    b.tool("Skill", {"skill": "memdown:memory-recall", "args": question},
           f"Skill memdown:memory-recall completed (forked execution). Result: {answer} (source: .memdown/{cited})")
    b.reply(f"{answer} ({cited})")
    return turn


def test_recall_turn_is_a_pointer_in_recalls_not_a_new_fact(tmp_path, memory_root):
    b = TranscriptBuilder()
    turn = _recall_turn(b, "what did we decide about cache eviction?",
                        "LRU eviction with a 512 MB cap", "memory/2026-11-18.md:12-16")
    path = b.write(tmp_path / f"{b.session_id}.jsonl")
    report = record_session(memory_root, path, b.session_id, config=_config())
    assert report.methods == {"recall": 1}
    kind, body = _all_entries(memory_root)[turn]
    assert kind == "recall"
    assert "`memory/2026-11-18.md:12-16`" in body and "512 MB" not in body
    assert not list((memory_root / "memory").glob("*.md"))  # nothing in the day's log


def test_recall_plus_real_work_is_a_normal_entry_that_names_what_it_recalled(tmp_path):
    b = TranscriptBuilder()
    b.prompt("apply what we decided about retries to the uploader")
    b.tool("Bash", {"command": 'memdown search "uploader retries" --json'},
           json.dumps([{"id": "a1b2c3d4e5f6a7b8c9d0", "source": "memory/2026-11-19.md"}]))
    b.tool("Edit", {"file_path": "/work/project/uploader.py", "old_string": "a", "new_string": "b"}, "ok")
    b.reply("Uploader now retries with backoff.")
    turn = parse_transcript(b.write(tmp_path / "t.jsonl")).turns[0]
    recall = recall_of(turn)
    assert recall is not None and not recall.only and recall.cited == ["memory/2026-11-19.md"]


def test_recall_kind_is_left_out_of_search_unless_asked_for():
    assert kind_for("memory/recalls/2026-11-20.md") == "recall"
    assert kind_for("memory/2026-11-20.md") == "summary"

    class _Table:
        files: list[str] = []

    where = build_where(_Table(), SearchOptions()) or ""
    assert "NOT IN (" in where and "'recall'" in where
    assert build_where(_Table(), SearchOptions(kind="recall")) == "kind = 'recall'"


def _redate(b: TranscriptBuilder, day: str) -> None:
    for line in b.lines:
        line["timestamp"] = day + line["timestamp"][10:]


@pytest.mark.integration
def test_recall_never_outranks_the_decision_it_recalled(tmp_path, memory_root):
    """Real index (LanceDB + packaged model): one session stores a decision, a
    later one recalls it; search ranks the original first and the recall
    writes no fact under its own date."""
    first = TranscriptBuilder()
    first.prompt("Which cache eviction policy should the API gateway use?")
    first.tool("Read", {"file_path": "/work/project/gateway/cache.py"}, "class Cache: ...")
    first.reply("Decision: LRU eviction with a 512 MB cap per node for the API gateway cache. "
                "LFU was rejected because the hot set shifts every hour.")
    _redate(first, "2026-11-18")
    p1 = first.write(tmp_path / f"{first.session_id}.jsonl")
    second = TranscriptBuilder()
    recall = _recall_turn(second, "what did we decide about the cache eviction policy?",
                          "The API gateway cache uses LRU eviction with a 512 MB cap per node; LFU was rejected",
                          "memory/2026-11-18.md:5-8")
    _redate(second, "2026-11-21")
    p2 = second.write(tmp_path / f"{second.session_id}.jsonl")
    env = {"MEMDOWN_SUMMARIZER_USE_CLAUDE": "0", "MEMDOWN_ARCHIVE_ENABLED": "0"}
    for path, session in ((p1, first.session_id), (p2, second.session_id)):
        proc = run_memdown("hook", "Stop", env={**env, "MEMDOWN_HOOK_SYNC": "1"}, input=json.dumps({
            "session_id": session, "transcript_path": str(path), "cwd": str(memory_root.parent),
            "hook_event_name": "Stop"}))
        assert proc.returncode == 0, proc.stderr
    day_logs = sorted(p.name for p in (memory_root / "memory").glob("*.md"))
    assert day_logs == ["2026-11-18.md"]  # nothing recalled came back under 2026-11-21
    assert "512 MB" not in (memory_root / "memory" / "recalls" / "2026-11-21.md").read_text()
    assert run_memdown("index", env=env).returncode == 0
    for query in ("cache eviction policy", "what did we decide about the cache eviction policy?"):
        hits = json.loads(run_memdown("search", query, "--json", "-k", "5", env=env).stdout)
        assert hits and hits[0]["source"] == "memory/2026-11-18.md", hits
        assert all(h["kind"] != "recall" for h in hits)
    asked = json.loads(run_memdown("search", "cache eviction", "--kind", "recall", "--json", env=env).stdout)
    assert [h["turn"] for h in asked] == [recall]


def test_api_errors_are_kept_apart_from_the_models_words(tmp_path):
    b = TranscriptBuilder()
    b.prompt("run the app")
    _api_error(b, "API Error: 401 OAuth token has expired · Please run /login")
    turn = parse_transcript(b.write(tmp_path / "t.jsonl")).turns[0]
    assert turn.assistant_texts == [] and turn.api_errors == ["API Error: 401 OAuth token has expired · Please run /login"]
    assert turn.steps == turn.api_errors  # drill-down still shows what happened


def test_the_model_sees_the_folded_ask_and_the_final_message(tmp_path):
    from memdown.services.capture.summarize import SUMMARY_INSTRUCTIONS, render_unit_for_model

    b = TranscriptBuilder()
    b.prompt("keep get_budget_data as is for now")
    _api_error(b, "API Error: Connection error.")
    b.prompt("How does the app pick a sync type?")
    b.reply("Let me look.")
    b.reply("Add a sync_type parameter: bootstrap, backfill or delta.")
    turns = parse_transcript(b.write(tmp_path / "t.jsonl")).turns
    unit = plan_entries(turns).units[0]
    rendered = render_unit_for_model(unit)
    assert rendered.startswith("USER: How does the app pick a sync type?")
    assert "EARLIER USER ASK (no reply): keep get_budget_data as is" in rendered
    assert rendered.rstrip().endswith("FINAL ASSISTANT MESSAGE: Add a sync_type parameter: bootstrap, backfill or delta.")
    assert "END of the turn" in SUMMARY_INSTRUCTIONS and "1 to 6" in SUMMARY_INSTRUCTIONS


def test_secrets_in_a_recall_question_or_a_folded_ask_never_reach_the_files(tmp_path, memory_root):
    token = "gh" + "p_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY1234"
    b = TranscriptBuilder()
    _recall_turn(b, f"did we rotate the token {token} last week?", "rotated on 2026-11-18", "memory/2026-11-18.md:3-4")
    b.prompt(f"use {token} for the deploy")
    _api_error(b)
    b.prompt("retry")
    b.reply("Deploy configured.")
    path = b.write(tmp_path / f"{b.session_id}.jsonl")
    assert record_session(memory_root, path, b.session_id, config=_config()).written == 2
    text = "".join(p.read_text() for p in (memory_root / "memory").rglob("*.md"))
    assert "use " in text and "Recall:" in text
    assert token not in text


def test_a_recall_typed_as_a_slash_command_is_a_recall(tmp_path):
    b = TranscriptBuilder()
    b.prompt("<command-name>/memdown:memory-recall</command-name>\n<command-args>uploader retries</command-args>")
    b.reply("The uploader retries with exponential backoff (memory/2026-11-19.md:8-12).")
    turn = parse_transcript(b.write(tmp_path / "t.jsonl")).turns[0]
    recall = recall_of(turn)
    assert recall is not None and recall.only and recall.cited == ["memory/2026-11-19.md:8-12"]


def test_an_ask_folded_into_a_recall_turn_is_kept(tmp_path, memory_root):
    b = TranscriptBuilder()
    b.prompt("switch the uploader to multipart uploads")
    _api_error(b)
    turn = _recall_turn(b, "what did we decide about uploads?", "multipart above 8 MB", "memory/2026-11-19.md:2-3")
    path = b.write(tmp_path / f"{b.session_id}.jsonl")
    record_session(memory_root, path, b.session_id, config=_config())
    kind, body = _all_entries(memory_root)[turn]
    assert kind == "recall" and "switch the uploader to multipart uploads" in body and "8 MB" not in body
