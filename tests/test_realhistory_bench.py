"""The real-history benchmark's labels point at turns that exist, and its evaluator runs end to end on a slice.

Figures come from `python bench/eval_realhistory.py --split test` (docs/retrieval.md), not from here.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from collections import Counter
from pathlib import Path

import pytest

from memdown.transcript.parser import parse_transcript

from conftest import FakeEmbedder

BENCH = Path(__file__).resolve().parent.parent / "bench"
SHARED = Path(os.environ.get("MEMDOWN_SHARED_TRANSCRIPTS", BENCH.parent.parent / "shared" / "transcripts"))
KINDS = {"fix", "decision", "command", "location", "preference", "after"}


def _evaluator():
    spec = importlib.util.spec_from_file_location("eval_realhistory", BENCH / "eval_realhistory.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _split_of_repo() -> dict[str, str]:
    return dict(line.split("\t") for line in (BENCH / "realhistory" / "split.tsv").read_text().splitlines()
                if line and not line.startswith("#"))


def test_labels_are_well_formed():
    bench = _evaluator()
    questions = bench.load_questions("all")
    every = [q for name in bench.SPLITS for q in bench.load_questions(name)]
    split = _split_of_repo()
    assert len(questions) >= 100 and len({q["id"] for q in every}) == len(every)
    assert {q["kind"] for q in questions} == KINDS
    assert len({q["lang"] for q in questions if q["split"] == "test"}) >= 7
    for q in every:
        assert split[q["repo"]] == q["split"], q["id"]  # split by repository, never by question
        assert q["gold"] and all(g["transcript"].startswith(f"real/{q['repo']}/") for g in q["gold"]), q["id"]
    assert min(Counter(q["split"] for q in every).values()) >= 40


def test_fresh_half_is_held_out():
    """The fresh half (session 9) shares no repository or id prefix with dev/test, and `all` never includes it."""
    bench = _evaluator()
    fresh, tuned = bench.load_questions("fresh"), bench.load_questions("all")
    assert {q["split"] for q in tuned} == {"dev", "test"} and not any(q["split"] == "fresh" for q in tuned)
    assert 50 <= len(fresh) <= 70 and {q["kind"] for q in fresh} == KINDS
    assert len({q["lang"] for q in fresh} - {"en"}) >= 4
    fresh_repos = {repo for repo, name in _split_of_repo().items() if name == "fresh"}
    assert {q["repo"] for q in fresh} == fresh_repos and 8 <= len(fresh_repos) <= 10
    assert not fresh_repos & {q["repo"] for q in tuned}
    prefixes = {q["id"].split("-")[0] for q in fresh}
    assert not prefixes & {q["id"].split("-")[0] for q in tuned}
    assert len(prefixes) == len(fresh_repos)  # one id prefix per repository
    with pytest.raises(ValueError):
        bench.load_questions("held-out")


@pytest.mark.shared
def test_check_labels_reports_a_pointer_that_does_not_resolve(tmp_path, monkeypatch, shared_transcripts):
    bench = _evaluator()
    monkeypatch.setattr(bench, "SHARED", shared_transcripts)
    good = bench.load_questions("fresh")[0]
    g = good["gold"][0]
    rows = [f"ok-1\tfresh\t{good['repo']}\tfix\ten\tq\t{g['transcript']}#{g['turn']}@{g['index']}",
            f"bad-1\tfresh\t{good['repo']}\tfix\ten\tq\t{g['transcript']}#{g['turn']}@{g['index'] + 1}",
            f"bad-2\tfresh\t{good['repo']}\tfix\ten\tq\t{g['transcript']}#not-a-turn@{g['index']}",
            f"bad-3\tfresh\t{good['repo']}\tfix\ten\tq\treal/{good['repo']}/missing.jsonl#x@0"]
    (tmp_path / "questions.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    monkeypatch.setattr(bench, "LABELS", tmp_path)
    out = bench.check_labels("fresh", imported=False)
    assert out["pointers"] == 4 and [p.split()[0] for p in out["problems"]] == ["bad-1", "bad-2", "bad-3"]


@pytest.mark.shared
def test_evidence_turns_exist():
    if not SHARED.is_dir():
        pytest.skip("../shared/transcripts is absent")
    turns: dict[str, dict[str, int]] = {}
    bench = _evaluator()
    for q in (q for name in bench.SPLITS for q in bench.load_questions(name)):
        for g in q["gold"]:
            if g["transcript"] not in turns:
                parsed = parse_transcript(SHARED / g["transcript"], include_subagents=False)
                turns[g["transcript"]] = {t.uuid: t.index for t in parsed.turns}
            assert turns[g["transcript"]].get(g["turn"]) == g["index"], (q["id"], g)


@pytest.mark.shared
def test_every_fresh_pointer_resolves_through_the_import(tmp_path, monkeypatch, shared_transcripts):
    """Each fresh evidence turn is in its parsed transcript at its index AND the import writes its anchor
    (``check_labels`` imports without indexing or searching: no ranking is ever run on the fresh half here)."""
    bench = _evaluator()
    monkeypatch.setattr(bench, "SHARED", shared_transcripts)
    out = bench.check_labels("fresh", work=tmp_path)
    assert out["questions"] >= 50 and out["repos"] >= 8 and out["problems"] == [], out["problems"]


@pytest.mark.shared
def test_evaluator_runs_on_a_slice(tmp_path, monkeypatch):
    if not SHARED.is_dir():
        pytest.skip("../shared/transcripts is absent")
    bench = _evaluator()
    monkeypatch.setattr(bench, "SHARED", SHARED)
    out = bench.run("test", ["text"], {"web-barina-claudecode"}, embedder=FakeEmbedder(), work=tmp_path)
    assert out["questions"] == 8 and out["systems"] == ["text", "bm25"]
    assert out["imported"]["web-barina-claudecode"]["sessions"] >= 5
    table = out["table"]
    assert table["all"]["bm25"]["hit@10"] > 0 and table["all"]["text"]["hit@10"] > 0, table["all"]
    assert set(table) >= {"all", "non-English", "lang:ja", "kind:decision"}


def test_the_report_has_a_row_per_repository_when_asked():
    """`--by-repo`: a ranking change is judged by how many repositories it gains in, not by one."""
    bench = _evaluator()
    questions = [{"id": "a", "repo": "r1", "kind": "fix", "lang": "en"},
                 {"id": "b", "repo": "r2", "kind": "fix", "lang": "pt"}]
    ranks = {"a": {"hybrid": (1, 100)}, "b": {"hybrid": (2, 300)}}
    table = bench.report(questions, ranks, ["hybrid"], by_repo=True)
    assert table["repo:r1"]["hybrid"]["mrr"] == 1.0 and table["repo:r2"]["hybrid"]["mrr"] == 0.5
    assert table["all"]["hybrid"]["mrr"] == 0.75
    assert not any(group.startswith("repo:") for group in bench.report(questions, ranks, ["hybrid"]))
