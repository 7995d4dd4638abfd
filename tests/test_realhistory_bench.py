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


def test_labels_are_well_formed():
    bench = _evaluator()
    questions = bench.load_questions("all")
    split = dict(line.split("\t") for line in (BENCH / "realhistory" / "split.tsv").read_text().splitlines()
                 if line and not line.startswith("#"))
    assert len(questions) >= 100 and len({q["id"] for q in questions}) == len(questions)
    assert {q["kind"] for q in questions} == KINDS
    assert len({q["lang"] for q in questions if q["split"] == "test"}) >= 7
    for q in questions:
        assert split[q["repo"]] == q["split"], q["id"]  # split by repository, never by question
        assert q["gold"] and all(g["transcript"].startswith(f"real/{q['repo']}/") for g in q["gold"]), q["id"]
    assert min(Counter(q["split"] for q in questions).values()) >= 40


@pytest.mark.shared
def test_evidence_turns_exist():
    if not SHARED.is_dir():
        pytest.skip("../shared/transcripts is absent")
    turns: dict[str, dict[str, int]] = {}
    for q in _evaluator().load_questions("all"):
        for g in q["gold"]:
            if g["transcript"] not in turns:
                parsed = parse_transcript(SHARED / g["transcript"], include_subagents=False)
                turns[g["transcript"]] = {t.uuid: t.index for t in parsed.turns}
            assert turns[g["transcript"]].get(g["turn"]) == g["index"], (q["id"], g)


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
