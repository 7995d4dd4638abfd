"""The transcript parser: real transcripts from ../shared and synthetic edge cases."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from memdown.errors import AmbiguousIdError, InputFileError, NotFoundError
from memdown.transcript import content as C
from memdown.transcript import parser as P
from memdown.transcript import reader as R
from memdown.transcript.parser import (
    find_turn,
    iter_entries,
    last_turn,
    locate_turn,
    parse_transcript,
)

SID = "11111111-2222-3333-4444-555555555555"


# --- synthetic transcript builders ------------------------------------------------

def _base(kind: str, uuid: str, parent: str | None, **extra) -> dict:
    entry = {
        "parentUuid": parent, "isSidechain": False, "type": kind, "uuid": uuid,
        "sessionId": SID, "cwd": "/repo", "version": "2.1.0",
        "timestamp": "2026-01-02T03:04:05.000Z",
    }
    entry.update(extra)
    return entry


def user(text, uuid: str, parent: str | None = None, **extra) -> dict:
    return _base("user", uuid, parent, message={"role": "user", "content": text}, **extra)


def assistant(blocks: list[dict], uuid: str, parent: str | None, msg_id: str, **extra) -> dict:
    return _base("assistant", uuid, parent,
                 message={"id": msg_id, "role": "assistant", "content": blocks}, **extra)


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def tool_use(tool_id: str, name: str, **inp) -> dict:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": inp}


def result(tool_id: str, uuid: str, parent: str, content, *, is_error: bool = False, **extra) -> dict:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": is_error}
    return user([block], uuid, parent, toolUseResult={"stdout": ""}, **extra)


def write_jsonl(path: Path, entries: list, *, tail: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(
        (e if isinstance(e, bytes) else json.dumps(e, ensure_ascii=False).encode()) + b"\n"
        for e in entries
    )
    path.write_bytes(data + tail)
    return path


def conversation() -> list[dict]:
    """Two turns exercising most quirks at once."""
    return [
        {"type": "summary", "summary": "a title", "leafUuid": "x"},
        {"type": "attachment", "uuid": "h1", "parentUuid": None,
         "attachment": {"type": "hook_additional_context", "content": ["HOOK SAYS REMEMBER X"]}},
        user("Fix the failing test\n<system-reminder>secret reminder</system-reminder>", "u1"),
        assistant([{"type": "thinking", "thinking": "hmm"}], "a1", "u1", "m1"),
        assistant([text("Looking.")], "a2", "a1", "m1"),
        assistant([text("Running tests.")], "a3", "a2", "m1"),
        assistant([tool_use("t1", "Bash", command="pytest -q")], "a4", "a3", "m1"),
        result("t1", "r1", "a4", "1 failed\n\x1b[31mFAILED\x1b[0m test_x", is_error=True),
        assistant([tool_use("t2", "Edit", file_path="src/app.py", old_string="a", new_string="b")],
                  "a5", "r1", "m2"),
        result("t2", "r2", "a5", [{"type": "text", "text": "ok"}, {"type": "image", "source": {}}]),
        assistant([tool_use("t3", "Read", file_path="src/app.py")], "a6", "r2", "m3"),
        result("t3", "r3", "a6", "contents"),
        user("Stop hook feedback: run the linter", "meta1", "r3", isMeta=True),
        user([text("[Request interrupted by user for tool use]")], "i1", "meta1"),
        {"type": "system", "subtype": "compact_boundary", "uuid": "cb1", "parentUuid": None},
        user("This session is being continued from a previous conversation. Summary…",
             "cs1", "cb1", isCompactSummary=True),
        user("<local-command-caveat>Caveat: …</local-command-caveat>", "cv1", "cs1", isMeta=True),
        user("<command-name>/review</command-name>\n<command-message>review</command-message>\n"
             "<command-args>the diff</command-args>", "c1", "cv1"),
        user("<local-command-stdout>Reviewed.</local-command-stdout>", "c2", "c1"),
        {"type": "progress", "uuid": "p1", "data": {"type": "bash_progress"}},
        {"type": "some-future-type", "whatever": [1, 2, 3]},
        assistant([text("Review done.")], "a7", "c2", "m4"),
    ]


# --- synthetic behaviour -------------------------------------------------------------

def test_synthetic_conversation(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"{SID}.jsonl", conversation())
    t = parse_transcript(path)
    assert t.session_id == SID and t.cwd == "/repo" and t.version == "2.1.0"
    assert [turn.prompt for turn in t.turns] == ["Fix the failing test", "/review the diff"]
    assert [turn.kind for turn in t.turns] == ["prompt", "command"]
    first, second = t.turns
    assert first.uuid == "u1" and first.index == 0 and second.index == 1
    # split lines sharing message.id: consecutive text pieces merge, thinking is dropped
    assert first.assistant_texts == ["Looking.\n\nRunning tests."]
    assert [c.summary() for c in first.tool_calls] == ["Bash: pytest -q", "Edit: src/app.py", "Read: src/app.py"]
    bash, edit, read = first.tool_calls
    assert bash.is_error and bash.result == "1 failed\nFAILED test_x"  # ANSI stripped
    assert edit.result == "ok\n[image]" and not edit.is_error
    assert first.files_touched() == ["src/app.py"]
    assert first.commands() == ["pytest -q"]
    assert first.errors() == ["Bash: pytest -q: 1 failed FAILED test_x"]
    assert first.interrupted
    assert first.assistant_text() == "Looking.\n\nRunning tests."
    assert second.assistant_texts == ["Review done."]
    assert t.compactions == 1  # boundary + summary are one compaction
    assert t.bad_lines == 0 and not t.truncated_tail
    assert t.end_offset == path.stat().st_size
    assert first.start_offset < first.end_offset <= second.start_offset < second.end_offset
    assert last_turn(t) is second
    everything = " ".join(turn.prompt for turn in t.turns)
    for leaked in ("HOOK SAYS", "secret reminder", "Stop hook", "continued", "Reviewed", "Caveat"):
        assert leaked not in everything


def test_offsets_point_at_prompt_lines(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", conversation())
    data = path.read_bytes()
    t = parse_transcript(path)
    for turn in t.turns:
        line = data[turn.start_offset:].split(b"\n", 1)[0]
        assert json.loads(line)["uuid"] == turn.uuid
        assert data[turn.end_offset - 1:turn.end_offset] == b"\n"
    offsets = [offset for offset, _entry in iter_entries(path)]
    assert offsets[0] == 0 and offsets == sorted(offsets) and len(offsets) == len(conversation())


def test_truncated_last_line_and_garbage(tmp_path: Path) -> None:
    entries = conversation()[:8]
    entries.insert(3, b"{this is not json")
    entries.insert(4, b"[1, 2, 3]")  # valid JSON, not an object
    path = write_jsonl(tmp_path / "s.jsonl", entries, tail=b'{"type": "assistant", "mess')
    t = parse_transcript(path)
    assert t.bad_lines == 2
    assert t.truncated_tail
    assert t.end_offset == path.stat().st_size - len(b'{"type": "assistant", "mess')
    assert [turn.prompt for turn in t.turns] == ["Fix the failing test"]
    assert len(list(iter_entries(path))) == len(entries) - 2


def test_complete_last_line_without_newline_is_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in conversation()[:3]))
    t = parse_transcript(path)
    assert len(t.turns) == 1 and not t.truncated_tail
    assert t.end_offset == path.stat().st_size


def test_invalid_utf8_is_replaced(tmp_path: Path) -> None:
    raw = json.dumps(user("caf\u00e9 PLACEHOLDER", "u1")).encode().replace(b"PLACEHOLDER", b"\xff\xfe")
    path = write_jsonl(tmp_path / "s.jsonl", [raw, assistant([text("ok")], "a1", "u1", "m1")])
    t = parse_transcript(path)
    assert len(t.turns) == 1
    assert t.turns[0].prompt.startswith("café ") and "\ufffd" in t.turns[0].prompt


def test_huge_line_is_skipped_as_bad(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(R, "MAX_LINE_BYTES", 256)
    big = json.dumps(user("x" * 2000, "big"))
    path = write_jsonl(tmp_path / "s.jsonl", [big.encode(), user("small one", "u2")])
    t = parse_transcript(path)
    assert t.bad_lines == 1
    assert [turn.prompt for turn in t.turns] == ["small one"]
    assert t.end_offset == path.stat().st_size


def test_incremental_parse_from_end_offset(tmp_path: Path) -> None:
    entries = conversation()
    path = write_jsonl(tmp_path / "s.jsonl", entries)
    first = parse_transcript(path)
    with open(path, "ab") as handle:
        for entry in (user("Now add docs", "u9", "a7"), assistant([text("Added.")], "a9", "u9", "m9"),
                      assistant([tool_use("t9", "Write", file_path="README.md")], "a10", "a9", "m9")):
            handle.write(json.dumps(entry).encode() + b"\n")
        handle.write(b'{"partial": ')
    again = parse_transcript(path, start_offset=first.end_offset)
    assert [turn.prompt for turn in again.turns] == ["Now add docs"]
    new = again.turns[0]
    assert new.start_offset == first.end_offset
    assert new.assistant_texts == ["Added."] and new.files_touched() == ["README.md"]
    assert again.truncated_tail and again.end_offset == path.stat().st_size - len(b'{"partial": ')
    # Nothing new after the partial tail: an empty, error-free parse.
    empty = parse_transcript(path, start_offset=again.end_offset)
    assert empty.turns == [] and empty.end_offset == again.end_offset
    # The full parse sees all three turns.
    assert len(parse_transcript(path).turns) == 3


def test_gzip_is_read_transparently(tmp_path: Path) -> None:
    plain = write_jsonl(tmp_path / f"{SID}.jsonl", conversation())
    packed = tmp_path / "archive" / f"{SID}.jsonl.gz"
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    a, b = parse_transcript(plain), parse_transcript(packed)
    assert b.session_id == SID
    assert [(t.uuid, t.prompt, t.start_offset, t.end_offset) for t in a.turns] == [
        (t.uuid, t.prompt, t.start_offset, t.end_offset) for t in b.turns
    ]
    assert b.end_offset == a.end_offset
    later = parse_transcript(packed, start_offset=a.turns[1].start_offset)
    assert [t.prompt for t in later.turns] == ["/review the diff"]


def test_inline_sidechains_become_subagents(tmp_path: Path) -> None:
    side = {"isSidechain": True}
    entries = [
        user("Investigate the bug", "u1"),
        assistant([tool_use("task1", "Task", description="find bug", prompt="...")], "a1", "u1", "m1"),
        user("Subagent prompt one", "s1", None, **side),
        assistant([tool_use("g1", "Grep", pattern="bug")], "s2", "s1", "sm1", **side),
        user("Subagent prompt two", "x1", None, **side),  # a second, interleaved sidechain
        result("g1", "s3", "s2", "found", **side),
        assistant([text("Found it")], "s4", "s3", "sm2", **side),
        assistant([text("Other agent done")], "x2", "x1", "xm1", **side),
        result("task1", "r1", "a1", [{"type": "text", "text": "Found it"}]),
        assistant([text("Fixed.")], "a2", "r1", "m2"),
    ]
    t = parse_transcript(write_jsonl(tmp_path / "s.jsonl", entries))
    assert [turn.prompt for turn in t.turns] == ["Investigate the bug"]
    main = t.turns[0]
    assert not main.is_sidechain
    assert [c.name for c in main.tool_calls] == ["Task"] and main.tool_calls[0].result == "Found it"
    assert main.assistant_texts == ["Fixed."]
    assert [(s.agent_id, [x.prompt for x in s.turns]) for s in t.subagents] == [
        ("s1", ["Subagent prompt one"]), ("x1", ["Subagent prompt two"]),
    ]
    sub = t.subagents[0].turns[0]
    assert sub.is_sidechain and sub.tool_calls[0].result == "found" and sub.assistant_texts == ["Found it"]
    assert find_turn(t, "x1").prompt == "Subagent prompt two"  # subagent turns are reachable


def test_subagent_files_are_found(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-repo"
    main = write_jsonl(folder / f"{SID}.jsonl", conversation())
    sub = dict(isSidechain=True)
    write_jsonl(folder / SID / "subagents" / "agent-aaa.jsonl",
                [user("native subagent", "n1", None, **sub), assistant([text("n")], "n2", "n1", "nm", **sub)])
    write_jsonl(folder / SID / "subagents" / "workflows" / "wf_1" / "agent-bbb.jsonl",
                [user("workflow subagent", "w1", None, **sub)])
    write_jsonl(folder / "agent-ccc.jsonl", [user("sibling subagent", "c1", None, **sub)])
    other = user("someone else's", "o1", None, **sub)
    other["sessionId"] = "99999999-0000-0000-0000-000000000000"
    write_jsonl(folder / "agent-ddd.jsonl", [other])
    (folder / SID / "subagents" / "agent-eee.jsonl").write_bytes(b"\x00\x01binary")
    t = parse_transcript(main)
    assert sorted(s.agent_id for s in t.subagents) == ["agent-aaa", "agent-bbb", "agent-ccc"]
    assert all(turn.is_sidechain for s in t.subagents for turn in s.turns)
    assert parse_transcript(main, include_subagents=False).subagents == []
    # A subagent file parsed on its own: its sidechain lines are its main turns.
    alone = parse_transcript(folder / SID / "subagents" / "agent-aaa.jsonl")
    assert [turn.prompt for turn in alone.turns] == ["native subagent"] and alone.agent_id == "agent-aaa"


def test_prompt_classification() -> None:
    def kind(content, **extra):
        return C.classify_user({"type": "user", "message": {"content": content}, **extra})

    assert kind("hello") == ("prompt", "hello")
    assert kind([text("<ide_selection>lines 1-2</ide_selection>"), text("why?")]) == ("prompt", "why?")
    assert kind([text("<ide_opened_file>f.py</ide_opened_file>")]) == ("noise", "")
    assert kind([text("look"), {"type": "image", "source": {}}]) == ("prompt", "look\n[image]")
    assert kind([{"type": "document", "source": {}}]) == ("prompt", "[document]")
    assert kind("[Request interrupted by user]") == ("interrupt", "")
    assert kind("<bash-input>ls -la</bash-input>") == ("bash", "!ls -la")
    assert kind("<bash-stdout>x</bash-stdout><bash-stderr></bash-stderr>") == ("noise", "")
    assert kind("<task-notification><task-id>1</task-id></task-notification>") == ("noise", "")
    assert kind("<command-message>foo is running…</command-message>\n<command-name>foo</command-name>") == (
        "command", "/foo")
    assert kind("anything", isMeta=True) == ("meta", "")
    assert kind("This session is being continued from a previous conversation that ran out") == ("compact", "")
    assert kind([{"type": "tool_result", "tool_use_id": "x", "content": "y"}]) == ("tool_result", "")
    assert kind(None) == ("noise", "") and kind(42) == ("noise", "")


def test_ide_split_prompt_entries_merge(tmp_path: Path) -> None:
    entries = [
        user([text("Use the <b> tag")], "u1"),
        user([text("and keep it short")], "u2", "u1"),  # chained, nothing in between
        assistant([text("ok")], "a1", "u2", "m1"),
        user([text("next question")], "u3", "a1"),
    ]
    t = parse_transcript(write_jsonl(tmp_path / "s.jsonl", entries))
    assert [turn.prompt for turn in t.turns] == ["Use the <b> tag\n\nand keep it short", "next question"]
    assert t.turns[0].uuid == "u1"


def test_resume_replay_turns_are_dropped(tmp_path: Path) -> None:
    turn = [user("do it", "u1"), assistant([text("done")], "a1", "u1", "m1")]
    replay = [user("do it", "u1b"), assistant([text("done")], "a1b", "u1b", "m1")]
    new = [user("again", "u2", "a1b"), assistant([text("again done")], "a2", "u2", "m2")]
    t = parse_transcript(write_jsonl(tmp_path / "s.jsonl", turn + replay + new))
    assert [x.uuid for x in t.turns] == ["u1", "u2"] and [x.index for x in t.turns] == [0, 1]
    assert t.replayed_turns == 1


def test_content_before_first_prompt_is_preamble(tmp_path: Path) -> None:
    entries = [
        assistant([tool_use("t0", "Bash", command="make")], "a0", "zz", "m0"),
        result("t0", "r0", "a0", "boom", is_error=True),
        user("thanks", "u1", "r0"),
    ]
    t = parse_transcript(write_jsonl(tmp_path / "s.jsonl", entries))
    assert [x.prompt for x in t.turns] == ["thanks"]
    assert t.preamble is not None and t.preamble.errors() == ["Bash: make: boom"]


def test_find_turn(tmp_path: Path) -> None:
    entries = [user("one", "abc12345-0000"), user("two", "abc12399-0000"), user("three", "def00000-0000")]
    t = parse_transcript(write_jsonl(tmp_path / "s.jsonl", entries))
    assert find_turn(t, "def").prompt == "three"
    assert find_turn(t, "ABC12345").prompt == "one"
    assert locate_turn(t, "def")[0] is t
    with pytest.raises(AmbiguousIdError):
        find_turn(t, "abc123")
    with pytest.raises(NotFoundError):
        find_turn(t, "fff")
    assert last_turn(t).prompt == "three"
    assert last_turn(parse_transcript(write_jsonl(tmp_path / "e.jsonl", []))) is None


@pytest.mark.parametrize(
    "make, error",
    [
        (lambda p: p.write_bytes(b"\x7fELF\x00\x00\x01binary junk\n"), InputFileError),
        (lambda p: p.write_text("# just markdown\n\nnot json at all\n"), InputFileError),
        (lambda p: p.write_text('{"pretty":\n  "printed json"\n}\n'), InputFileError),
        (lambda p: p.mkdir(), InputFileError),
        (lambda p: None, NotFoundError),
    ],
)
def test_invalid_inputs_raise_typed_errors(tmp_path: Path, make, error) -> None:
    path = tmp_path / "input.jsonl"
    make(path)
    with pytest.raises(error) as info:
        parse_transcript(path)
    assert "\n" not in info.value.one_line()


def test_empty_and_non_message_files_parse(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert parse_transcript(empty).turns == []
    journal = write_jsonl(tmp_path / "journal.jsonl", [{"type": "started", "agentId": "a"}])
    assert parse_transcript(journal).turns == []


def test_tool_summaries() -> None:
    def summary(name: str, **inp) -> str:
        return P.ToolCall(id="x", name=name, input=inp).summary()

    assert summary("Grep", pattern="TODO", path="src") == "Grep: TODO in src"
    assert summary("TodoWrite", todos=[{}, {}]) == "TodoWrite: 2 todos"
    assert summary("Task", description="Explore", prompt="long") == "Task: Explore"
    assert summary("mcp__x__y", query="ducks") == "mcp__x__y: ducks"
    assert summary("Bash", command="echo a\necho b") == "Bash: echo a echo b"
    assert summary("Weird") == "Weird"
    assert len(summary("Bash", command="x" * 1000)) < 200


# --- real transcripts from ../shared -------------------------------------------------

REAL = "real"
OPENCORE = "real/austinweitao-claude-backup/-home-cwtrocks-OpenCoreAnalysisKit/5ea5e99e-9793-4288-9c85-c9838be1630c.jsonl"
SIDECHAIN = "real/bradymholt-dotfiles/-Users-bholt-dev-evergreen/b6076239-b6a8-42a2-8a61-9d0390bdcf3b.jsonl"
RESUMED = "real/bradymholt-dotfiles/-Users-bholt-dev-evergreen/354b2588-2a5c-43d7-b678-e95a4a87bd2a.jsonl"
COMPACTED = "real/eduardodmb-ClaudeHome/X--03-ACG-Custom-Addons/a572bd87-2e28-4d70-9b73-cd08231cacb6.jsonl"
WORKFLOW = "real/austinweitao-claude-backup/-home-cwtrocks-android-avd/3e89eb15-32e7-43f8-8734-8d47310263ea.jsonl"
LARGE = "real/obra-episodic-memory/large-conversation.jsonl"
TINY = "semi-synthetic/obra-episodic-memory/tiny-conversation.jsonl"

_NEVER_IN_PROMPTS = (
    "<system-reminder>", "<local-command-stdout>", "<command-name>", "<task-notification>",
    "<bash-stdout>", "[Request interrupted", C.COMPACT_PREFIX, "Caveat: The messages below",
)


@pytest.mark.shared
def test_every_shared_transcript_parses(shared_transcripts: Path) -> None:
    files = sorted(shared_transcripts.rglob("*.jsonl"))
    assert len(files) >= 15  # includes subagent files and journal.jsonl
    for path in files:
        t = parse_transcript(path)
        assert t.end_offset == path.stat().st_size, path
        for sub in [t, *t.subagents]:
            assert [turn.index for turn in sub.turns] == list(range(len(sub.turns))), path
            for turn in sub.turns:
                assert turn.prompt.strip(), (path, turn.uuid)
                assert not any(marker in turn.prompt for marker in _NEVER_IN_PROMPTS), (path, turn.uuid)
                assert turn.start_offset < turn.end_offset <= t.end_offset
                assert turn.is_sidechain == (sub is not t or path.name.startswith("agent-"))
                for call in turn.tool_calls:
                    assert isinstance(call.summary(), str) and "\n" not in call.summary()


@pytest.mark.shared
def test_tiny_conversation(shared_transcripts: Path) -> None:
    t = parse_transcript(shared_transcripts / TINY)
    assert t.session_id == "67a8478e-78dc-44ab-82ea-f65c8ead85f6" and t.version == "1.0.119"
    assert len(t.turns) == 2
    assert t.turns[0].prompt.startswith("Lately, I've noticed you being very tentative.")
    assert t.turns[1].prompt == "What's the right way to fix the instructions?"  # nbsp stripped
    call = t.turns[1].tool_calls[0]
    assert call.name == "mcp__private-journal__process_thoughts"
    assert call.result == "Thoughts recorded successfully." and not call.is_error
    assert len(t.turns[1].assistant_texts) == 2


@pytest.mark.shared
def test_hook_attachments_are_never_prompts(shared_transcripts: Path) -> None:
    t = parse_transcript(shared_transcripts / OPENCORE)
    prompts = [turn.prompt for turn in t.turns]
    assert len(prompts) == 10
    assert prompts[0] == "art如何确定哪些对象放在moving space,哪些放在nonmoving space"
    assert prompts[1] == "deep-research skill来自哪里"
    assert "!pwd" in prompts and prompts[-1].startswith("cmd space是如何找到heap里面")
    for hook_text in ("EXTREMELY_IMPORTANT", "superpowers", "recent context", "deep-research\" workflow",
                      "Skills dialog", "/home/cwtrocks/OpenCoreAnalysisKit"):
        assert not any(hook_text in p for p in prompts), hook_text
    assert t.turns[0].interrupted  # "[Request interrupted by user for tool use]"


@pytest.mark.shared
def test_inline_sidechain_stays_out_of_main_turns(shared_transcripts: Path) -> None:
    t = parse_transcript(shared_transcripts / SIDECHAIN)
    assert [turn.uuid[:8] for turn in t.turns] == ["83004af1"]
    main = t.turns[0]
    assert main.prompt.startswith("In the Ember app (ynab_web/)")
    ids = {c.id for c in main.tool_calls}
    assert "toolu_01GSPJguPPqLcbn4K1eLYH4P" in ids        # the Task call itself
    assert "toolu_01C2tYrani7PvrodEdzVqzFF" not in ids    # a Grep inside the sidechain
    assert len(main.tool_calls) == 14
    assert len(t.subagents) == 1
    sub = t.subagents[0].turns
    assert len(sub) == 1 and sub[0].is_sidechain
    assert sub[0].prompt.startswith("Help find why clearing a target")
    assert len(sub[0].tool_calls) == 26 and all(c.result is not None for c in sub[0].tool_calls)


@pytest.mark.shared
def test_compaction_summaries_are_not_prompts(shared_transcripts: Path) -> None:
    compacted = parse_transcript(shared_transcripts / COMPACTED)
    assert compacted.compactions == 2 and len(compacted.turns) == 25
    assert sorted(s.agent_id for s in compacted.subagents) == [
        "agent-a0e47dc4eba51a7a9", "agent-a38ec468816fd17e1", "agent-a5aeeeb76a8225a77"]
    resumed = parse_transcript(shared_transcripts / RESUMED)
    assert resumed.compactions == 1
    for t in (compacted, resumed):
        assert not any(turn.prompt.startswith("This session is being continued") for turn in t.turns)


@pytest.mark.shared
def test_resume_replays_and_ide_context(shared_transcripts: Path) -> None:
    t = parse_transcript(shared_transcripts / RESUMED)
    prompts = [turn.prompt for turn in t.turns]
    assert len(prompts) == 29 and t.replayed_turns == 21
    assert sum(p.startswith("Actually, can't I just drop") for p in prompts) == 1
    assert not any("<ide_" in p for p in prompts)
    assert prompts[0].startswith("Help me think through something.")


@pytest.mark.shared
def test_workflow_session(shared_transcripts: Path) -> None:
    t = parse_transcript(shared_transcripts / WORKFLOW)
    assert [turn.kind for turn in t.turns] == ["prompt", "prompt", "prompt", "command"]
    assert t.turns[-1].prompt == "/exit"
    assert len(t.subagents) == 4 and all(len(s.turns) == 1 for s in t.subagents)


@pytest.mark.shared
def test_large_conversation_errors(shared_transcripts: Path) -> None:
    t = parse_transcript(shared_transcripts / LARGE)
    assert len(t.turns) == 22 and t.preamble is not None  # the file starts mid-turn
    assert sum(len(turn.errors()) for turn in t.turns) + len(t.preamble.errors()) == 22
    assert any(turn.kind == "command" and turn.prompt == "/context" for turn in t.turns)
    assert not any("\x1b[" in (c.result or "") for turn in t.turns for c in turn.tool_calls)
