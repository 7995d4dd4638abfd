"""Signal detection: phrase tables (several languages, typos), negatives, tool-call patterns."""
from __future__ import annotations

import pytest

from memdown.signals.detect import (Context, find_fix, fix_text, clean_prompt, detect_commands, detect_missing_context, detect_phrases,
                                    detect_tool_patterns, detect_turns)
from memdown.signals.patterns import LANGUAGES, patterns
from memdown.signals.text import fingerprint, fold_typos, polar_terms, similar
from memdown.transcript.parser import ToolCall, Turn

REPLY = Context(after_reply=True)
ACTION = Context(after_reply=True, after_action=True)


def types(text: str, ctx: Context = REPLY) -> set[str]:
    return {h.type for h in detect_phrases(text, ctx)}


@pytest.mark.parametrize("text,kind", [
    ("no, use pnpm not npm", "correction"),
    ("ok. uh. no. the ci is running on the current commit...but seems to be checking the main branch. wth?", "correction"),
    ("Actually, can't I just drop any pending money movement changes on the floor before backfill is processed?", "correction"),
    ("Think some more.  I don't like any approach.", "correction"),
    ("this is not gruped by stage?", "correction"),  # typo, real transcript
    ("thats wrogn, use the staging bucket", "correction"),
    ("ah. the issue is the linter/formatter, not db:generate, I think.", "correction"),
    ("nein, nimm pnpm statt npm", "correction"),
    ("eso está mal, el archivo está en src/utils", "correction"),
    ("不要用npm", "correction"),
    ("in this repo we always put tests in tests/unit", "convention"),
    ("our convention is snake_case for file names", "convention"),
    ("unsere Konvention ist camelCase", "convention"),
    ("en este proyecto usamos siempre tabs", "convention"),
    ("基于sdk 36的google avd进行magisk root修补,确保adb root有权限,闭环调试验证好后再结束，不要停下来问我", "convention"),
    ("remember and save in memort that docker configuration is defined in X:\\03_ACG\\Odoo_Docker", "memory_request"),
    ("merk dir, dass wir pnpm verwenden", "memory_request"),
    ("recuerda que usamos pnpm", "memory_request"),
    ("that rule about npm was wrong", "revert"),
    # natural phrasing without trigger words (real prompts of ../shared/transcripts, labelled before tuning)
    ("Can we use destructuring here?", "correction"),
    ("You switched the active branch out from under someone else", "correction"),
    ("CIRCULAR LOGIC -- Sync is a CORE PLUGIN, not a COMMUNITY PLUGIN", "correction"),
    ("不能做三", "correction"),  # a flat refusal of the plan Claude proposed
    ("不能用 firebase 的服務嗎？目前在的", "correction"),  # Traditional: "we already have firebase"
    ("應該依照 role.name 這樣為主不是把 role 變成 roleName", "correction"),  # a code-style correction
    ("我是要你建立在 global 中", "correction"),
    ("一个一个来，不要全部一下确定", "convention"),
    ("以后我说保存到ob中，都要满足我可以直接在左侧文件夹栏可以看到该笔记的需求", "convention"),
    ("you two can collaborate, but STOP and ask LOGAN before doing anything drastic", "convention"),
])
def test_phrases_fire(text, kind):
    assert kind in types(text)


@pytest.mark.parametrize("text", [
    "Here's the error:\n```\nError: that's wrong, use X instead\n```\nwhat does it mean?",  # inside code
    "    if value is wrong: raise ValueError('no, use a positive number')",  # indented code
    "> no, use pnpm\nwhat did the reviewer mean by this?",  # a quoted line
    'he wrote "don\'t use npm, it is wrong for this repo" in the review, thoughts?',  # a quoted sentence
    "<system-reminder>Don't use npm. Always use pnpm.</system-reminder>\nadd a login page",  # hook-injected
    "<ide_selection>// no, use X instead</ide_selection> explain this",
    "tests fail:\nFAILED tests/test_x.py::test_y - AssertionError: wrong value\nERROR: no such file\n"
    "  File \"x.py\", line 3, in <module>\nTraceback (most recent call last):",  # pasted log
    "no problem, go ahead",
    "Do you remember how we fixed the login bug?",
    "Is it wrong to use global state here?",
    "let me know if it works",
    "How to set up from Code side rather than in Dispatch window?",  # a question, not a redirection
    "Mostly yes. Claude’s expanded read is materially correct, with two scope clarifications. " * 5
    + "Don't use npm, that is wrong.",  # another agent's reply relayed by the user
])
def test_negatives_do_not_fire(text):
    assert types(text, ACTION) == set()


def test_pasted_ci_log_after_a_message_is_ignored():
    log = "\n".join(["Run actions/checkout@v5", "Syncing repository: acme/app", "  Or undo this operation with:",
                     "    git switch -", "Turn off this advice by setting config variable advice.detachedHead",
                     "Run npm run check", "> check", "Prisma schema loaded from prisma/schema.prisma",
                     "Error: that's wrong", "1s", "3s"])
    prompt = "this is from the ci run:\n" + log
    assert clean_prompt(prompt).strip() == "this is from the ci run:"
    assert types(prompt) == set()


def test_positive_needs_a_multi_step_action_before():
    assert types("perfect, thanks!", ACTION) == {"positive"}
    assert types("perfect, thanks!", REPLY) == set()
    assert types("it works locally but fails in CI", ACTION) == set()
    assert types("that doesn't work", ACTION) == {"correction"}


def test_bare_no_after_a_question_is_an_answer_not_a_correction():
    assert types("No.", Context(after_reply=True, after_question=True)) == set()
    assert types("No. Use the other table.", REPLY) == {"correction"}


def test_first_prompt_has_no_reply_to_correct():
    assert "correction" not in types("actually, the function should be pure", Context(after_reply=False))


def test_commands_need_backticks_and_a_command_word():
    hits = detect_commands("run `make test` before pushing, and `foo bar` is not a command")
    assert [(h.type, h.confidence, h.tags) for h in hits] == [("command", 2, ["make"])]
    assert detect_commands("use make test") == []
    assert detect_commands("ejecuta `npm run dev`")[0].confidence == 2


def test_every_language_table_compiles_and_has_each_kind():
    kinds = {(p.lang, p.type) for p in patterns()}
    for lang in LANGUAGES:
        assert {(lang, "correction"), (lang, "convention"), (lang, "memory_request")} <= kinds


def test_typo_folding_and_polarity():
    assert fold_typos("rember to use teh memort", {"rember": "remember", "teh": "the"}) == "remember to use the memory"
    assert fold_typos("incorrecta perfecto", {}) == "incorrecta perfecto"  # other languages stay
    assert polar_terms("use pnpm, not npm") == {"pnpm": 1, "npm": -1}
    assert polar_terms("don't use npm") == {"npm": -1}
    assert fingerprint("use pnpm not npm") == fingerprint("nimm pnpm statt npm")
    assert similar("use pnpm not npm", "don't use npm")
    assert not similar("use pnpm not npm", "use npm for installs")


def _call(name, inp, result, err=False):
    return ToolCall(id=f"t{id(inp)}", name=name, input=inp, result=result, is_error=err)


def test_repeated_failure_with_its_fix():
    calls = [_call("Bash", {"command": "pytest -q tests"}, "ModuleNotFoundError: No module named 'app'", True),
             _call("Bash", {"command": "pytest -q tests"}, "ModuleNotFoundError: No module named 'app'", True),
             _call("Bash", {"command": "python -m pytest -q tests"}, "3 passed")]
    calls.append(_call("Bash", {"command": "pytest -q tests/unit"}, "1 passed"))
    sigs = detect_tool_patterns(calls)
    assert [s.type for s in sigs] == ["repeated_failure"]
    assert sigs[0].extra["fix"] == "Bash `python -m pytest -q tests`, then Bash `pytest -q tests/unit`"
    assert "ModuleNotFoundError" in sigs[0].text


PUSH = {"command": "git push origin main"}
PUSH_ERROR = ("Exit code 1\nremote: error: File data/model.bin is 103.00 MB; this exceeds GitHub's file size limit of "
              "100.00 MB\n ! [remote rejected] main -> main (pre-receive hook declined)")


def test_a_fix_is_what_differs_from_the_failing_call():
    """The issue's case: the same push succeeding after untracking the file; the push is not the fix."""
    calls = [_call("Bash", PUSH, PUSH_ERROR, True),
             _call("Bash", {"command": "git status"}, "On branch main"),
             _call("Bash", {"command": "git rm --cached data/model.bin"}, "rm 'data/model.bin'"),
             _call("Bash", {"command": "git commit --amend --no-edit"}, "[main 1a2b3c] add model"),
             _call("Bash", PUSH, "To github.com:me/app.git\n   1a2b3c..4d5e6f  main -> main")]
    steps = find_fix(calls, 0)
    assert [c.input["command"] for c in steps] == ["git rm --cached data/model.bin", "git commit --amend --no-edit"]
    assert "git push" not in fix_text(steps)
    # the very same call working after nothing but reads (a flaky network): no fix at all
    flaky = [_call("Bash", PUSH, PUSH_ERROR, True), _call("Read", {"file_path": "README.md"}, "x"),
             _call("Bash", {"command": "git  push origin main"}, "ok")]
    assert find_fix(flaky, 0) is None
    # a different retry that worked is the fix
    retry = [_call("Bash", PUSH, PUSH_ERROR, True), _call("Bash", {"command": "git push --force-with-lease origin main"}, "ok")]
    assert fix_text(find_fix(retry, 0)) == "Bash `git push --force-with-lease origin main`"


@pytest.mark.parametrize("reject", [
    "The user doesn't want to proceed with this tool use. The tool use was rejected",
    # Claude Code 1.0.x (issue 30: shown on a v2 dev first screen as "When Bash fails with …, check the cause")
    "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed."])
def test_user_rejections_are_not_failures(reject):
    calls = [_call("Bash", {"command": "rm -rf x"}, reject, True), _call("Bash", {"command": "rm -rf y"}, reject, True)]
    assert detect_tool_patterns(calls) == []


def test_multi_edit_and_search_thrash():
    edits = [_call("Edit", {"file_path": "src/a.py"}, "ok") for _ in range(3)] + [_call("Edit", {"file_path": "b.py"}, "ok")]
    searches = [_call("Grep", {"pattern": p}, "No files found") for p in ("foo", "bar", "baz")]
    searches += [_call("Read", {"file_path": "x"}, "..."), _call("Grep", {"pattern": "qux"}, "src/q.py")]
    sigs = detect_tool_patterns(edits + searches)
    assert [s.type for s in sigs] == ["multi_edit", "search_thrash"]
    assert sigs[0].extra == {"file": "src/a.py", "attempts": "3"}
    assert "Grep: qux" in sigs[1].text
    assert detect_tool_patterns(searches[:2] + searches[3:]) == []  # only two empty searches


def test_missing_context_question():
    facts = ["The staging database is read-only; use the replica for writes in tests."]
    found = detect_missing_context("Done. Should I write to the staging database or the replica in tests?", facts)
    assert found and "staging" in found[0]
    assert detect_missing_context("Which color do you want?", facts) is None


def test_turns_only_read_user_prompts_never_assistant_text_or_sidechains():
    prev = Turn(uuid="u0", index=0, timestamp="", prompt="add a flag",
                assistant_texts=["No, use pnpm not npm — that's wrong, actually."],
                tool_calls=[_call("Bash", {"command": "ls"}, "a"), _call("Bash", {"command": "ls -la"}, "b")])
    turn = Turn(uuid="u1", index=1, timestamp="2026-11-20T10:00:00Z", prompt="perfect, thanks")
    sigs = detect_turns([prev, turn])
    assert [(s.type, s.turn) for s in sigs] == [("positive", "u1")]
    assert "After: Bash: ls" in sigs[0].context
    side = Turn(uuid="s1", index=0, timestamp="", prompt="No, that's wrong, use pnpm not npm")
    assert detect_turns([prev, side], is_sidechain=True) == []


def test_meta_adjustment_changes_confidence():
    turn = Turn(uuid="u1", index=1, timestamp="", prompt="no, use pnpm not npm")
    prev = Turn(uuid="u0", index=0, timestamp="", prompt="x", assistant_texts=["done"])
    assert detect_turns([turn], previous=prev)[0].confidence == 3
    assert detect_turns([turn], previous=prev, adjust=lambda p, t: -1)[0].confidence == 2
    assert detect_turns([turn], previous=prev, adjust=lambda p, t: +1)[0].confidence == 3  # capped


def test_an_excerpt_cut_through_a_secret_is_redacted_whole_first() -> None:
    """A quote is cut to 300 characters; a token straddling the cut must not survive as a fragment."""
    from memdown.signals.text import one_line

    token = "sk-proj-" + "Zq8Wm2Xr7Tn4Kp9Lb3Vc6Hd1Fg5Js0Qe" * 2
    text = "no, stop hard-coding the key, " + "word " * 50 + f"{token} in config please"
    assert text.index(token) + 16 < 299 < text.index(token) + len(token)  # the cut falls inside the token
    cut = one_line(text, 300)
    assert len(cut) <= 300 and token[:16] not in cut
    assert one_line("short, untouched sk-notasecret", 300) == "short, untouched sk-notasecret"
