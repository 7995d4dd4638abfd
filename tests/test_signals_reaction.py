"""Reactions to what the agent just did and explicit memory requests, in every language of the collection
(issue 30 item 2): the transcript's previous turn (its tool calls and words) decides whether a refusal is one."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from memdown.config import load_config
from memdown.services.capture.signal_mining import mine_session
from memdown.signals.detect import cross_language_hits
from transcript_factory import TranscriptBuilder

ACTED = SimpleNamespace(tool_calls=[object()], assistant_texts=["Done: I renamed the module."])
SILENT = SimpleNamespace(tool_calls=[], assistant_texts=[])


def kinds(prompt: str, prev=ACTED) -> list[tuple[str, str]]:
    return [(h.type, h.patterns[0]) for h in cross_language_hits(prompt, prev, [])]


@pytest.mark.parametrize("prompt", [
    "lembre-se que os testes rodam com pnpm", "запомни: деплой только по пятницам", "記住，發布前先跑測試",
    "これからはコミット前に確認して", "앞으로는 한국어로 답해줘", "hãy nhớ dùng pnpm", "zapamiętaj, że używamy vitest",
    "ricordati di aggiornare il changelog", "تذكر أن نستخدم pnpm", "<user-memory-input>always answer briefly</user-memory-input>",
])
def test_explicit_memory_requests_in_every_language(prompt):
    hits = cross_language_hits(prompt, SILENT, [])
    assert [(h.type, h.patterns[0]) for h in hits] == [("memory_request", "x.memory_request.explicit")]
    assert "user-memory-input" not in hits[0].quote


@pytest.mark.parametrize("prompt, kind", [
    ("non, garde ceux de la doc", "refusal"), ("нет, оставь как было", "refusal"), ("아니 그거 말고 다른 파일", "refusal"),
    ("why did you delete the tests?", "why"), ("为什么你把配置删了", "why"), ("pourquoi tu as changé le port ?", "why"),
    ("можешь изменения prettier откатить", "undo"), ("不要改这个文件", "undo"), ("元に戻して", "undo"),
    ("não mexa no instalador", "refusal"), ("pode desfazer a última mudança", "undo"), ("that's not what I asked", "not-asked"), ("我是说不要留到最后", "not-asked"),
])
def test_a_reaction_after_the_agent_acted_is_a_correction(prompt, kind):
    assert kinds(prompt) == [("correction", f"x.correction.{kind}")]


@pytest.mark.parametrize("prompt", ["no, still failing with the same error", "не тянется картинка",
                                    "why is this failing in CI?", "continue", "ok, agora o instalador"])
def test_bug_reports_and_new_requests_are_not_reactions(prompt):
    assert kinds(prompt) == []


def test_only_after_the_agent_acted_and_never_twice():
    assert kinds("non, garde ceux de la doc", None) == []            # the first prompt reacts to nothing
    assert kinds("non, garde ceux de la doc", SILENT) == []          # nor does one after an empty turn
    phrase = [SimpleNamespace(type="correction")]
    assert cross_language_hits("no, use pnpm", ACTED, phrase) == []  # the phrase tables already have it


def test_mining_reads_the_previous_turn_from_the_transcript(memory_root, tmp_path):
    memory_root.mkdir(parents=True)
    tb = TranscriptBuilder(session_id="fr")
    tb.prompt("non, garde ceux de la doc")                            # first prompt: nothing to react to
    tb.tool("Edit", {"file_path": "statusline.sh"}, "ok")
    tb.reply("J'ai supprimé les emojis.")
    tb.prompt("non, garde ceux de la doc")
    sigs = mine_session(memory_root, tb.write(tmp_path / "fr.jsonl"), "fr", config=load_config(memory_root))
    assert [(s.type, s.pattern, s.turn) for s in sigs] == [("correction", "x.correction.refusal", tb.turn_uuids[1])]


@pytest.mark.parametrize("prompt, clause", [
    ("我需要你在编程中面对任何询问选择时候，永远都选1", "我需要你在编程中面对任何询问选择时候，永远都选1"),
    ("ok thanks. Always run the linter before committing. Now fix the header", "Always run the linter before committing."),
    ("For the future, if something is possible but not set up, let me know and offer to set it up.",
     "For the future, if something is possible but not set up, let me know and offer to set it up."),
    ("Всегда старайся делать короткие ответы.", "Всегда старайся делать короткие ответы."),
    ("# Regras - NUNCA ler app.py inteiro de uma vez - usar Read", "NUNCA ler app.py inteiro de uma vez"),
    ("永远不要直接推送到main分支", "永远不要直接推送到main分支"), ("항상 한국어로 답해줘", "항상 한국어로 답해줘"),
    ("tu dois toujours lancer les tests avant de pousser", "tu dois toujours lancer les tests avant de pousser"),
])
def test_a_standing_instruction_is_a_convention_in_the_users_words(prompt, clause):
    """Session 9: a standing preference said once ("永远都选1", "Всегда…", "NUNCA…") in any language was never
    mined; the sentence holding it is the quote, so the queue can propose it as written."""
    hits = cross_language_hits(prompt, SILENT, [])
    assert [(h.type, h.patterns[0], h.quote) for h in hits] == [("convention", "x.convention.standing", clause)]


@pytest.mark.parametrize("prompt", [
    "I always get a 419 error on the login form", "Every time I run the tests it fails.", "先记起来，以后再说.",
    "在operate以后可能会由于异步服务还没提交导致状态错误，我们需要解决这个问题。",   # 以后 = "after"
    "嗯嗯，这里还要有另一个功能，就是handoff和checkpoint，每次更新两仪都能自动获取.",  # describes a feature
    "should we always run the linter before committing?", "cara toda vez que to tentando editar algo, voce buga",
])
def test_a_story_or_a_question_with_a_standing_word_is_no_instruction(prompt):
    assert kinds(prompt, SILENT) == []


def test_a_standing_instruction_said_once_reaches_the_queue_as_written(memory_root, tmp_path):
    from memdown.learning import review

    memory_root.mkdir(parents=True)
    tb = TranscriptBuilder(session_id="zh")
    tb.prompt("帮我把安装脚本整理一下")
    tb.tool("Edit", {"file_path": "install.sh"}, "ok")
    tb.reply("好了。要我继续吗？请选择 1 或 2。")
    tb.prompt("我需要你在编程中面对任何询问选择时候，永远都选1")
    mine_session(memory_root, tb.write(tmp_path / "zh.jsonl"), "zh", config=load_config(memory_root))
    found = review.analyze(memory_root, persist=False, config=load_config(memory_root))
    assert [(c.type, c.text) for c in found.candidates] == [("convention", "我需要你在编程中面对任何询问选择时候，永远都选1.")]


@pytest.mark.parametrize("prompt", [
    "não faça commit sem me perguntar", "ne touche pas au fichier de config", "не делай бэкап", "nie rób tego w ten sposób",
    "non fare il push su main", "đừng sửa file này", "그 파일은 수정하지 마", "そのファイルは変更しないでください",
    "no hagas commit todavía", "لا تستخدم npm", "Keine Emojis verwenden", "не надо трогать конфиг", "non toccarlo più",
])
def test_a_prohibition_after_the_agent_acted_is_a_correction_in_every_language(prompt):
    """Session 10: the negative imperative of each language of the collection, not only "don't" / 不要 (a prompt that
    opens with a refusal word, "não …", "non …", was one already, as a refusal)."""
    from memdown.signals.reaction import prohibition

    assert prohibition(prompt) == prompt
    assert kinds(prompt) in ([("correction", "x.correction.prohibition")], [("correction", "x.correction.refusal")],
                             [("correction", "x.correction.undo")])
    assert kinds(prompt, SILENT) == []


@pytest.mark.parametrize("prompt", [
    "Não funciona o botão", "não aparece nada", "Non funziona più", "Не работает сохранение", "Nie działa ten przycisk",
    "No funciona el botón", "не пришли данные", "分からないです", "i don't see the status line", "No changes to the API yet",
    "n'oublie pas d'ignorer les CRLF", "nie zapomnij o testach", "你主动问我要不要保存", "别的文件也要改一下",
    "不要，现在读全局定义的claude.md",   # a bare "No," before a new task
])
def test_a_report_or_a_reminder_is_no_prohibition(prompt):
    from memdown.signals.reaction import prohibition

    assert prohibition(prompt) == ""
