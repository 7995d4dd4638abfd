"""Detection precision/recall on the labelled sets (bench/signals); figures: python bench/signals/evaluate.py."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "signals" / "evaluate.py"


def _evaluate():
    spec = importlib.util.spec_from_file_location("signals_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_labelled_sets_meet_the_floor():
    bench = _evaluate()
    tuned = bench.score(bench.synthetic_items() + bench.synthetic_items("heldout.jsonl", "heldout"))
    assert tuned["all"]["precision"] >= 0.95 and tuned["all"]["recall"] >= 0.95, tuned["all"]
    for kind in ("correction", "convention", "positive", "memory_request", "command", "revert"):
        assert tuned[kind]["support"] >= 5 and tuned[kind]["recall"] >= 0.9, (kind, tuned[kind])
    fresh = bench.score(bench.synthetic_items("heldout2.jsonl", "heldout2"))  # never tuned on
    assert fresh["all"]["precision"] >= 0.75 and fresh["all"]["recall"] >= 0.5, fresh["all"]


@pytest.mark.shared
def test_real_transcripts_labels(shared_transcripts):
    bench = _evaluate()
    real = bench.score(bench.real_items(shared_transcripts))
    assert real["all"]["support"] >= 20
    assert real["all"]["precision"] >= 0.9 and real["all"]["recall"] >= 0.75, real["all"]
    assert real["correction"]["recall"] >= 0.7 and real["memory_request"]["recall"] == 1.0


@pytest.mark.shared
def test_real_messages_labelled_before_tuning(shared_transcripts):
    """The hand-labelled real prompts (bench/signals/real_messages.py): dev tuned on, test never."""
    spec = importlib.util.spec_from_file_location("real_messages", BENCH.parent / "real_messages.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = bench.evaluate(shared_transcripts)
    assert result["dev"]["messages"] + result["test"]["messages"] >= 480
    assert result["dev"]["precision"] >= 0.8 and result["dev"]["recall"] >= 0.7, result["dev"]
    # regression floor for the held-out half (measured 0.74 / 0.56 when it was first scored)
    assert result["test"]["precision"] >= 0.7 and result["test"]["recall"] >= 0.5, result["test"]
