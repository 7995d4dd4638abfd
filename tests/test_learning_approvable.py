"""The review queue holds only rules a person could approve as written (issue 30 item 3): no fix that throws
something away, no question, no paragraph; a call the user interrupted is no failure to learn from."""
from __future__ import annotations

import pytest

from memdown.config import load_config
from memdown.learning import review
from memdown.learning.approvable import discards, fix_discards, hold_reason, not_a_rule, order_for_now
from memdown.signals.tool_patterns import failed
from memdown.transcript.parser import ToolCall
from test_learning_candidates import NOW, add, texts


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


# Session 8: what was left on the real first screens (one-off orders, a decision written as a paragraph, a to-do
# read as a memory request, an edit streak), in shapes and languages written for this test.
@pytest.mark.parametrize("text", [
    "这个方案可以。最好不要改后端的配置。或者让前端来做部署。我们单设一个仓库.",
    "That setup is fine. Better not to touch the billing config, and keep the new backend services in their own private "
    "repository instead.",
])
def test_a_decision_written_as_a_paragraph_is_no_rule(text):
    assert not_a_rule(text) == "a paragraph, not one rule"


@pytest.mark.parametrize("text", ["No, use pnpm. Not npm.", "Use pnpm, not npm.", "不要用 npm。用 pnpm。"])
def test_a_short_rule_of_two_sentences_is_still_a_rule(text):
    assert not_a_rule(text) == ""


@pytest.mark.parametrize("text", ["DO NOT EXECUTE ANY TASKS. PLAN AND DEFINE ONLY.", "don't commit yet",
                                  "sem código por enquanto", "先别提交", "pas encore de tests, on discute d'abord",
                                  "とりあえず削除しないで", "然后也帮我看看那个autonomy，那个应该是没用的",
                                  "help me check why the login fails, it should be the cookie", "помоги найти этот баг"])
def test_an_order_for_the_task_at_hand(text):
    assert order_for_now(text)


@pytest.mark.parametrize("text", ["never commit yet-unreviewed migrations", "以后先跑测试再提交", "don't use npm",
                                  "Always plan only, never execute without asking", "以后都帮我用中文回答"])
def test_a_standing_rule_is_no_order_for_now(text):
    assert not order_for_now(text)


def test_what_the_queue_holds_has_a_reason(memory_root):
    """Each kind of evidence is held with its own reason; a restated order and a plain rule stay candidates."""
    add(memory_root, "correction", "DO NOT EXECUTE ANY TASKS. PLAN AND DEFINE ONLY.", "s1")
    add(memory_root, "memory_request", "But remember to add a fade from the video to the old hero section", "s1")
    add(memory_root, "correction", "Fine. Don't touch the billing config. Keep the new services in the api repo. "
                                   "Deploy from the infra repo.", "s1")
    add(memory_root, "correction", "don't use npm here, use pnpm", "s1")
    for session in ("s1", "s2"):  # said in two sessions: a standing preference, not a one-off order
        add(memory_root, "correction", "don't write code yet, plan the migration first", session)
    result = review.analyze(memory_root, persist=False, now=NOW, config=load_config(memory_root))
    shown = sorted(c.text for c in result.candidates)
    assert len(shown) == 2 and any("pnpm" in t for t in shown) and any("plan the migration" in t for t in shown), shown
    assert result.held_reasons == {"an order for the task at hand, said once": 1,
                                   "a to-do for the task at hand, not something to keep": 1,
                                   "a paragraph, not one rule": 1}, result.held_reasons
    assert hold_reason("rule", "correction", "Plan only.", ["plan only"], 1, 3) == ""  # restated 3 times: shown


def test_reflect_list_says_why_it_held_each_signal(memory_root):
    """Never silent: `reflect list` prints each reason with its count, and --json carries them."""
    from conftest import run_memdown

    add(memory_root, "correction", "DO NOT EXECUTE ANY TASKS. PLAN AND DEFINE ONLY.", "s1")
    add(memory_root, "memory_request", "But remember to add a fade from the video to the old hero section", "s1")
    listed = run_memdown("reflect", "list", "--dir", str(memory_root))
    assert "2 signal(s) held as evidence" in listed.stdout, listed.stdout + listed.stderr
    assert "  1 an order for the task at hand, said once" in listed.stdout
    assert "  1 a to-do for the task at hand, not something to keep" in listed.stdout
    import json

    data = json.loads(run_memdown("reflect", "list", "--json", "--dir", str(memory_root)).stdout)
    assert data["held_reasons"] == {"an order for the task at hand, said once": 1,
                                    "a to-do for the task at hand, not something to keep": 1}
    assert "held_groups" not in data   # the groups themselves with --all
    every = json.loads(run_memdown("reflect", "list", "--all", "--json", "--dir", str(memory_root)).stdout)
    assert sorted((g["type"], g["held"]) for g in every["held_groups"]) == [
        ("correction", "an order for the task at hand, said once"),
        ("memory_request", "a to-do for the task at hand, not something to keep")]
    text = run_memdown("reflect", "list", "--all", "--dir", str(memory_root)).stdout
    assert "held (an order for the task at hand, said once): SIG-" in text


@pytest.mark.parametrize("text, is_order", [
    ("这个先记下来，啃完骨头后再想办法优化。", True),   # 再 alone is "then": a to-do for later, said once
    ("现在先不管跑出来后的问题，等跑完了，再抓入选的队伍。", True),
    ("先不要再动配置文件", False),                     # 不要再: "don't … again" stands
])
def test_zai_alone_is_then_not_again(text, is_order):
    assert order_for_now(text) is is_order


def test_a_bare_command_and_a_long_recipe_are_held_with_their_reasons():
    """Session 9 dev screens: "`DISPLAY=:0 … xrandr --auto`" (a command shared, no word of when) and 300-character
    recipes of pasted errors were shown; neither is approvable as written."""
    assert hold_reason("rule", "command", "`DISPLAY=:0 xrandr --auto`", [], 1, 0) == \
        "a command with no word of when or why to run it"
    assert hold_reason("rule", "command", "Run `make deploy` only from the release branch.", [], 1, 0) == ""
    recipe = 'When Bash fails with "Exit code 1 ' + "x" * 180 + '", Bash `pip install -e .` works.'
    assert hold_reason("reflexion", "failure", recipe, [], 2, 0).startswith("a recipe longer than a rule")
    assert hold_reason("reflexion", "failure", 'When pytest fails with "No module named app", Bash `pip install -e .` works.',
                       [], 2, 0) == ""


def test_a_correction_the_user_repeated_is_proposed_however_it_is_worded(memory_root):
    """Session 9: "Nie wywołuj xcodebuild." and "Nie wywoluj xcodebuild." (two prompts, one accent apart) were
    two groups held as "a correction of one step, not worded as a rule"; said again, it is one candidate."""
    add(memory_root, "correction", "Xcodebuild tylko przez Makefile.", "s1")   # "only through the Makefile"
    add(memory_root, "correction", "Non funziona.", "s1")
    result = review.analyze(memory_root, persist=False, now=NOW, config=load_config(memory_root))
    assert result.candidates == [] and result.held_reasons == {"a correction of one step, not worded as a rule": 2}
    add(memory_root, "correction", "Xcodebuild tylko przez Makefile!", "s2")
    add(memory_root, "correction", "Non funziona.", "s2")       # a report said twice is still no rule
    result = review.analyze(memory_root, persist=False, now=NOW, config=load_config(memory_root))
    assert [(c.text, len(c.signal_ids)) for c in result.candidates] == [("Xcodebuild tylko przez Makefile.", 2)]


@pytest.mark.parametrize("rule", ["Nie wywołuj xcodebuild.", "Не трогай файл конфигурации.", "Não faça commit sem testes.",
                                  "Non usare npm in questo progetto.", "Ne touche pas au fichier de config.",
                                  "Đừng sửa file cấu hình.", "설정 파일은 수정하지 마.", "設定ファイルは変更しないでください。",
                                  "No uses npm en este proyecto.", "لا تستخدم npm في هذا المشروع."])
def test_a_correction_worded_as_a_prohibition_in_any_language_is_proposed(memory_root, rule):
    """Session 10: "don't…" was a rule only in English and Chinese (``candidates._DIRECTIVE``); the negative
    imperative of every language of the collection is one (``reaction.prohibition``), said once."""
    add(memory_root, "correction", rule, "s1")
    result = review.analyze(memory_root, persist=False, now=NOW, config=load_config(memory_root))
    assert [c.text for c in result.candidates] == [rule]


@pytest.mark.parametrize("report", ["Nie działa ten przycisk.", "Не работает кнопка сохранения.", "Não funciona o botão salvar.",
                                    "Non funziona il pulsante salva.", "No funciona el botón guardar."])
def test_a_report_that_opens_with_not_is_no_prohibition(memory_root, report):
    add(memory_root, "correction", report, "s1")
    result = review.analyze(memory_root, persist=False, now=NOW, config=load_config(memory_root))
    assert result.candidates == [] and result.held_reasons == {"a correction of one step, not worded as a rule": 1}


def test_one_changed_word_or_a_flipped_polarity_is_not_said_again():
    from memdown.learning.approvable import said_again

    assert said_again("Nie wywołuj xcodebuild.", "Nie wywoluj xcodebuild.")
    assert not said_again("use pnpm not npm", "use yarn not npm")
    assert not said_again("always run the tests first", "never run the tests first")
    assert not said_again("不要用npm", "要用npm")


@pytest.mark.parametrize("text", [
    "Do not add your signature on the commit messages.", "ok, only use the replica for writes", "Arg always update all the users.",
    "I want you to always run the tests first", "you should run the linter before pushing", "Use pnpm, not npm.",
    "再说，其实这些东西你搬来就应该主动提", "以后都用中文回答", "不要改这个文件"])
def test_a_directive_word_where_it_directs_is_a_rule(text):
    from memdown.learning.approvable import worded_as_rule

    assert worded_as_rule(text)


@pytest.mark.parametrize("text", [
    "I put a break point on line 645 and it's not being hit after backfill finishing",
    "Conditional in budget-table.hbs never updates and loading spinner keeps showing.",
    "On the expenses page it should be possible to classify an expense.", "This should run on the CI/CD (github actions)",
    "Continue with the test and then check the logs", "而skill的description是语义理解触发，我觉得应该是比向量检索更准确的",
    "應該依照 role.name 這樣為主不是把 role 變成 roleName", "但是我记得之前和你讨论的该对话已经记录了进度"])
def test_a_directive_word_in_a_statement_about_the_code_is_no_rule(text):
    """Session 10 (v2 dev first screens): "should", "never", "after", 应该 and 记得 anywhere made bug reports, feature
    requirements and opinions rule candidates; they direct only opening a clause or after the one addressed."""
    from memdown.learning.approvable import worded_as_rule

    assert not worded_as_rule(text)
