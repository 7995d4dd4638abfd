"""Repetition is memory (issue 30 item 4): an instruction one user restates, found in any script."""
from __future__ import annotations

from memdown.signals.repetition import clauses, repeated_instructions

PORTUGUESE = [
    "ajuste o layout do cabeçalho, sem código ainda, só o plano",
    "agora veja o fluxo de login. Sem código ainda!",
    "revise os testes de integração; sem codigo ainda",
    "qual a melhor forma de organizar as rotas?",
]


def _ids(prompts):
    return list(enumerate(prompts))


def test_a_preference_restated_three_times_in_portuguese_is_found_with_count_and_quotes():
    found = repeated_instructions(_ids(PORTUGUESE))
    assert len(found) == 1
    top = found[0]
    assert top.count == 3 and top.prompts == (0, 1, 2)
    assert top.quote == "sem código ainda"                     # the user's own words, their language
    assert "sem codigo ainda" in top.quotes                    # each restatement as written


def test_restated_in_chinese_korean_and_russian_scripts():
    for prompts in (["先修复登录页面，改完之后先跑一遍测试", "把按钮颜色改成蓝色，改完之后先跑一遍测试", "接口加上分页。改完之后先跑一遍测试"],
                    ["로그인 페이지 고쳐줘. 커밋하기 전에 꼭 물어봐", "버튼 색 바꿔줘, 커밋하기 전에 꼭 물어봐", "테스트 추가. 커밋하기 전에 꼭 물어봐줘"],
                    ["почини логин. отвечай коротко и по делу", "добавь тесты, отвечай коротко и по делу", "обнови README. Отвечай коротко и по делу!"]):
        found = repeated_instructions(_ids(prompts))
        assert [r.count for r in found] == [3], prompts


def test_twice_is_not_enough_and_one_prompt_counts_once():
    assert repeated_instructions(_ids(PORTUGUESE[:2] + PORTUGUESE[3:])) == []
    same_prompt = ["sem código ainda. ok, sem código ainda, sem código ainda", "outra coisa qualquer aqui"]
    assert repeated_instructions(_ids(same_prompt)) == []


def test_a_prompt_sent_again_or_a_template_is_not_a_restatement():
    resent = ["Potrzebuję stworzyć agenta do UI, proszę przejrzyj widoki i stwórz prompt dla agenta"] * 4
    assert repeated_instructions(_ids(resent)) == []
    greetings = ["bom dia jake", "bom dia jake", "bom dia jake!"]
    assert repeated_instructions(_ids(greetings)) == []


def test_code_paths_and_single_words_are_not_instructions():
    assert clauses("run npm test in src/app.py") == []
    assert clauses("message") == []
    assert clauses("Already up to date with `origin/main`") == []
    assert clauses("fix the header, be concise please") == ["fix the header", "be concise please"]
