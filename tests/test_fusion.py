"""Hybrid fusion (services/fusion.py): each list's scores count relative to that list, so a list's clear
leader keeps its lead and a flat list moves little (issue #26: reciprocal rank let a middling vector list
pull units above full text's clear first hit)."""
from __future__ import annotations

from dataclasses import dataclass

from memdown.services.recall import fusion


@dataclass
class Unit:
    id: str
    text: str = ""
    score: float = 0.0


def _lists() -> list[list[Unit]]:
    # Full text: "answer" far ahead (a rare name matched), then near-equal scores.
    text = [Unit("answer", score=10.0), Unit("near", score=2.0)] + [Unit(f"t{i}", score=1.0) for i in range(8)]
    # Vectors: forty near-equal cosines; "answer" third, "near" first by a hair.
    vector = ([Unit("near", score=0.52), Unit("other", score=0.515), Unit("answer", score=0.51)]
              + [Unit(f"v{i}", score=0.50) for i in range(36)] + [Unit("last", score=0.40)])
    return [text, vector]


def test_a_clear_text_leader_is_not_passed_by_a_flat_vector_list() -> None:
    fused = fusion.fuse(_lists(), [1.0, 1.0], "why did the deploy fail")
    assert fused[0].id == "answer"  # reciprocal rank (K = 20) puts "near" first: 1/22 + 1/21 > 1/21 + 1/23


def test_reciprocal_rank_stays_as_the_ablation(monkeypatch) -> None:
    monkeypatch.setattr(fusion, "METHOD", "rrf")
    assert fusion.fuse(_lists(), [1.0, 1.0], "why did the deploy fail")[0].id == "near"


def test_a_unit_both_lists_place_first_wins_and_scores_are_in_list_terms() -> None:
    text = [Unit("both", score=5.0), Unit("a", score=4.0), Unit("b", score=1.0)]
    vector = [Unit("both", score=0.9), Unit("c", score=0.8), Unit("a", score=0.3)]
    fused = fusion.fuse([text, vector], [1.0, 1.0], "plain words")
    assert fused[0].id == "both"
    assert [h.id for h in fused][1:3] == ["c", "a"]  # c: 5/6 of vector's range; a: 3/4 of text's, vector's last
    assert fused[0].score == 2.0  # each list's best counts 1 (times its weight)


def test_a_weight_scales_a_list_and_empty_or_one_score_lists_are_fine() -> None:
    assert fusion.fuse([[], []], [1.0, 1.0], "q") == []
    one = fusion.fuse([[Unit("x", score=3.0)], []], [1.0, 0.3], "q")
    assert [(h.id, h.score) for h in one] == [("x", 1.0)]
    text = [Unit("t", score=2.0), Unit("u", score=1.0)]
    vector = [Unit("v", score=0.9), Unit("u", score=0.1)]
    assert fusion.fuse([text, vector], [1.0, 0.3], "q")[0].id == "t"  # the down-weighted list's leader counts 0.3


def test_the_english_model_s_list_counts_less_on_a_question_it_cannot_read() -> None:
    english = "why did the deploy fail after the version bump"
    assert fusion.vector_weight(english, True, known_share=0.9) == fusion.VECTOR_WEIGHT
    # French or Portuguese in Latin letters: few words the English model knows whole.
    french = "pourquoi le déploiement a planté après le bump de version"
    assert fusion.vector_weight(french, True, known_share=0.5) == fusion.NON_LATIN_VECTOR_WEIGHT
    assert fusion.vector_weight("почему упал деплой", True, known_share=1.0) == fusion.NON_LATIN_VECTOR_WEIGHT
    assert fusion.vector_weight(french, False, known_share=0.5) == fusion.VECTOR_WEIGHT  # a multilingual model


@dataclass
class EntryUnit:
    id: str
    source: str
    section_start: int
    text: str = ""
    score: float = 0.0


def test_an_entry_that_holds_more_of_the_question_passes_a_slightly_better_single_chunk(monkeypatch) -> None:
    """BM25 over a whole entry counts every question word it holds; memdown scores chunks. A share of a unit's
    text evidence is its entry's (its chunks in the text list, best first, each next one halved), so an entry
    whose three chunks all match passes a one-chunk entry whose only chunk scores a hair higher. (Off by
    default: it did not hold on bench/retrieval's test half; the mechanism stays measurable.)"""
    monkeypatch.setattr(fusion, "ENTRY_TEXT_SHARE", 0.1)
    text = [EntryUnit("a1", "d.md", 1, score=10.0), EntryUnit("b1", "d.md", 9, score=9.9),
            EntryUnit("b2", "d.md", 9, score=9.0), EntryUnit("b3", "d.md", 9, score=8.0),
            EntryUnit("z", "d.md", 30, score=0.0)]
    scores = fusion.entry_text_scores(text)
    assert scores[("d.md", 9)] == 1.0 and scores[("d.md", 30)] == 0.0
    assert 0.6 < scores[("d.md", 1)] < 0.62  # 10 / (9.9 + 4.5 + 2.0)
    fused = fusion.fuse([text, []], [1.0, 1.0], "which sync names did we pick")  # (sets each unit's fused score)
    assert [u.id for u in fused][:2] == ["b1", "a1"]


def test_a_unit_only_the_vectors_found_carries_its_entry_s_text_evidence(monkeypatch) -> None:
    monkeypatch.setattr(fusion, "ENTRY_TEXT_SHARE", 0.1)
    text = [EntryUnit("a1", "d.md", 1, score=5.0), EntryUnit("z", "d.md", 30, score=0.0)]
    vector = [EntryUnit("a2", "d.md", 1, score=0.6), EntryUnit("y", "d.md", 40, score=0.59),
              EntryUnit("x", "d.md", 50, score=0.5)]
    fused = {u.id: u.score for u in fusion.fuse([text, vector], [1.0, 1.0], "q")}
    assert fused["a2"] > 1.0 > fused["y"]  # 1 (its vector evidence) + ENTRY_TEXT_SHARE × 1 (its entry's text)
