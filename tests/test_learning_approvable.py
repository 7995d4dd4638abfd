"""The review queue holds only rules a person could approve as written (issue 30 item 3): no fix that throws
something away, no question, no paragraph; a call the user interrupted is no failure to learn from."""
from __future__ import annotations

import pytest

from memdown.learning.approvable import discards, fix_discards, not_a_rule
from memdown.signals.tool_patterns import failed
from memdown.transcript.parser import ToolCall
from test_learning_candidates import add, texts


@pytest.mark.parametrize("command", ["rm .git/index.lock", "rm -f .claude/settings.local.json", "sudo rm x",
                                     "git checkout main", "git -C repo restore src/app.py", "git stash",
                                     "bash -c 'rm out.log'", "cd web && git reset HEAD~1", "gh pr close 108 --repo a/b",
                                     "pkill -f vite"])
def test_a_fix_that_throws_something_away(command):
    assert discards(command)


@pytest.mark.parametrize("command", ["pip install -e .", "pnpm install", "git fetch origin", "echo 'rm -rf x'",
                                     "docker compose up -d db", "gh pr view 108", "git commit -m 'rm old files'"])
def test_project_steps_are_not_discards(command):
    assert discards(command) == ""


def test_recipes_whose_fix_discards_are_held(memory_root):
    for session in ("s1", "s2"):
        add(memory_root, "failure", "fatal: Unable to create '.git/index.lock': File exists.", session, tool="Bash",
            input="Bash: git commit -m x", fix="Bash `rm .git/index.lock`")
        add(memory_root, "failure", "ModuleNotFoundError: No module named 'shop'", session, tool="Bash",
            input="Bash: python -m shop", fix="Bash `pip install -e .`")
    shown = texts(memory_root)
    assert not any("index.lock" in t for t in shown)
    assert any("pip install -e ." in t for t in shown)                  # a project step still is a candidate
    assert fix_discards("Bash `git status`, then Bash `git checkout main`")


@pytest.mark.parametrize("text, why", [
    ("注册吧，nvfp4的训练配置应该是和base一样吗？ 数据配置肯定是要一样.", "holds a question"),
    ("Always use pnpm? I think so.", "holds a question"),
    ("我就是想问nvfp4的权重是不是都可以在b200上获得推理加速，还是说只能和谁.", "holds a question"),
    ("I just wanted to ask whether staging uses the same keys.", "holds a question"),
    ("Tôi là Kacey, làm product manager " + "cho một số dự án " * 12, "longer than a rule"),
])
def test_questions_and_paragraphs_are_not_rules(text, why):
    assert not_a_rule(text) == why


def test_held_in_the_queue(memory_root):
    add(memory_root, "correction", "Should it be the local db? Don't use the staging db for tests.", "s1")
    add(memory_root, "convention", "Always run the linter before committing.", "s1")
    assert texts(memory_root) == ["Always run the linter before committing."]


def test_a_call_the_user_interrupted_is_no_failure():
    call = ToolCall(id="t", name="Bash", input={"command": "gh pr view 108"}, is_error=True,
                    result="Exit code 137\n[Request interrupted by user for tool use]")
    assert not failed(call)
    call.result = "Exit code 1\nerror: pathspec 'x' did not match"
    assert failed(call)
