"""Every language and every identifier reaches full-text search; "right after X" finds what came next
(real LanceDB, FakeEmbedder: the text side and the order of entries, not the model)."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FakeEmbedder
from memdown import paths
from memdown.api import Memory
from memdown.index.embedder import known_word_share
from memdown.index.textprep import fts_config_id, fts_extra, fts_query
from memdown.services.recall import fusion
from memdown.services.recall.sequence import asks_what_came_next

DAY = """\
# 2026-03-14

### 09:40
<!-- session:sess-a turn:t-1 -->
- Asked: 华为手机外放一直没有声音
- Outcome: 扬声器排线损坏，属于硬件故障，建议送修。

### 10:10
<!-- session:sess-a turn:t-2 -->
- Asked: ダークモードの切り替えボタンが動かない
- Outcome: Tailwind v4 の dark バリアントを設定しました。

### 10:30
<!-- session:sess-b turn:t-3 -->
- Asked: fix the permission rule
- Outcome: the wildcard in `.claude/settings.local.json` was malformed; rewrote it.

### 10:45
<!-- session:sess-a turn:t-4 -->
- Asked: 관리자 페이지의 회색 배경을 다시 돌려줘
- Outcome: base.html 을 원래 상태로 되돌렸어요.

### 11:00
<!-- session:sess-b turn:t-5 -->
- Asked: write the README quick start
- Outcome: README created with the server and client commands.

### 11:20
<!-- session:sess-b turn:t-6 -->
- Asked: the hot swap of models takes fifty seconds, analyse it
- Outcome: three optimisations in the model manager.
"""

DISTRACTORS = "".join(
    f"\n### 12:{n:02d}\n<!-- session:sess-c turn:d-{n} -->\n- Asked: settings and json and local files, round {n}\n"
    for n in range(10, 30))


@pytest.fixture
def mem(memory_root: Path) -> Memory:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-03-14").write_text(DAY + DISTRACTORS)
    m.index()
    return m


def _turns(hits) -> list[str]:
    return [h.turn for h in hits]


@pytest.mark.parametrize("query, turn", [
    ("手机扬声器没声音是什么问题", "t-1"),  # Chinese, no spaces
    ("ダークモードの切り替え", "t-2"),  # Japanese
    ("관리자 페이지 배경", "t-4"),  # Korean, particles glued to words
])
def test_cjk_questions_find_cjk_entries_by_text(mem: Memory, query: str, turn: str) -> None:
    hits = mem.search(query, k=3, mode="text")
    assert hits and hits[0].turn == turn, _turns(hits)


def test_a_named_file_reaches_the_entry_that_holds_it(mem: Memory) -> None:
    # 20 distractors say "settings", "local" and "json" as words; one entry names the file.
    hits = mem.search("what was wrong in settings.local.json", k=3, mode="text")
    assert hits[0].turn == "t-3", _turns(hits)


def test_query_and_text_get_the_same_terms() -> None:
    assert fts_extra("华为手机") == ["华为", "为手", "手机"]
    assert "settingslocaljson" in fts_extra("see .claude/settings.local.json")
    assert {"srcconstantsctats", "ctats"} <= set(fts_extra("src/constants/cta.ts"))
    assert fts_query("plain words") == "plain words"
    assert "v3" in fts_config_id()  # a changed tokenization is a new index identity: old indexes rebuild


@pytest.mark.parametrize("query, english", [
    ("why did the container keep restarting after we changed the healthcheck?", True),
    ("where do we keep the notes about the release process", True),
    ("pourquoi le conteneur redémarrait sans cesse après le changement du healthcheck ?", False),
    ("onde guardamos as anotações sobre o processo de publicação?", False),
    ("¿por qué el contenedor se reiniciaba después de cambiar la comprobación?", False),
])
def test_the_packaged_model_knows_english_words_whole_and_not_romance_ones(query: str, english: bool) -> None:
    # Its own vocabulary, normalizer and word splitter: the accents it strips do not make French English.
    assert (known_word_share(query) >= fusion.KNOWN_WORDS_MIN) is english, known_word_share(query)


def test_hybrid_search_weighs_the_vector_list_by_what_the_model_can_read(mem: Memory, monkeypatch) -> None:
    seen: list[float] = []
    weigh = fusion.vector_weight
    monkeypatch.setattr(fusion, "vector_weight", lambda q, e=True, s=1.0: seen.append(s) or weigh(q, e, s))
    mem.search("pourquoi le déploiement a planté après la montée de version ?", k=3, mode="hybrid")
    mem.search("why did the deploy fail after the version bump?", k=3, mode="hybrid")
    assert seen[0] < fusion.KNOWN_WORDS_MIN <= seen[1], seen


@pytest.mark.parametrize("query", [
    "what did we do right after writing the README quick start?",
    "¿qué hicimos justo después de escribir el README?",
    "o que pedi logo depois de escrever o README?",
    "qu'est-ce qu'on a fait juste après le README ?",
    "что мы сделали сразу после README?",
    "写完 README 之后，接着做了什么？",
    "README を書いたあと、次に何をした？",
    "README 작성 직후에 뭘 했지?",
])
def test_right_after_questions_are_recognised(query: str) -> None:
    assert asks_what_came_next(query)


@pytest.mark.parametrize("query", ["why did migrations fail after the Postgres 15 upgrade", "what did we do next week",
                                   "¿por qué falló después de actualizar?"])
def test_a_plain_after_is_not_a_sequence_question(query: str) -> None:
    assert not asks_what_came_next(query)


def test_right_after_puts_the_next_entry_of_the_same_session_first(mem: Memory) -> None:
    hits = mem.search("what did we do right after writing the README quick start?", k=3, mode="text")
    assert _turns(hits)[:2] == ["t-6", "t-5"], _turns(hits)  # next in session sess-b, then X itself
    assert any("what came next" in note for note in hits[0].notes)


def test_the_next_entry_is_the_same_session_s_not_the_next_heading(mem: Memory) -> None:
    hits = mem.search("ダークモードの切り替えボタンを直したあと、次に何をした？", k=3, mode="text")
    assert _turns(hits)[:2] == ["t-4", "t-2"], _turns(hits)  # t-3, the next heading, is another session's


ACCENTS = """\
# 2026-03-04

### 03:42
<!-- session:sess-f turn:f-1 -->
- Asked: où en est la mise en production
- Outcome: On est à l'étape 11 — la prod est déployée.

### 04:10
<!-- session:sess-f turn:f-2 -->
- Asked: verifie la fonction de cache apres le deploiement
- Outcome: Le cache est vide, rien à faire.

### 04:30
<!-- session:sess-f turn:f-3 -->
- Asked: lance les tests
- Outcome: Tous les tests passent.
"""


@pytest.mark.parametrize("query, turn", [
    ("etape deployee", "f-1"),  # typed without accents, written with them
    ("ÉTAPE", "f-1"),
    ("vérifié après déploiement", "f-2"),  # typed with accents, written without
])
def test_accents_are_folded_on_both_sides(memory_root: Path, query: str, turn: str) -> None:
    # People often type French or Portuguese without accents; the assistant's replies carry them.
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-03-04").write_text(ACCENTS)
    m.index()
    hits = m.search(query, k=2, mode="text")
    assert hits and hits[0].turn == turn, _turns(hits)
