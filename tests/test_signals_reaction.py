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
