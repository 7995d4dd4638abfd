"""The conversation benchmark's data is well-formed, and its evaluator runs end to end on a small slice.

Figures come from `python bench/eval_conversations.py --split test` (docs/retrieval.md), not from here.
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from memdown.transcript.parser import parse_transcript

from conftest import FakeEmbedder

BENCH = Path(__file__).resolve().parent.parent / "bench"
DATA = BENCH / "conversations"
SHARED = BENCH.parent.parent / "shared" / "transcripts"


def _questions() -> list[dict]:
    return [json.loads(line) for line in (DATA / "questions.jsonl").read_text().splitlines() if line.strip()]


def _turn_uuids(path: Path) -> set[str]:
    return {t.uuid for t in parse_transcript(path, include_subagents=False).turns if t.prompt.strip()}


def _load_evaluator():
    spec = importlib.util.spec_from_file_location("eval_conversations", BENCH / "eval_conversations.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_committed_files_match_their_sources():
    proc = subprocess.run([sys.executable, str(DATA / "build.py"), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_questions_are_unique_typed_split_and_disjoint():
    rows = _questions()
    ids = [q["id"] for q in rows]
    assert len(ids) == len(set(ids)) and len(rows) >= 150
    assert {q["split"] for q in rows} == {"dev", "test"}
    dev = {q["id"] for q in rows if q["split"] == "dev"}
    test = {q["id"] for q in rows if q["split"] == "test"}
    assert not dev & test
    per_type = Counter((q["type"], q["split"]) for q in rows)
    for qtype in {q["type"] for q in rows}:  # stratified: every type in both halves, within one question
        assert abs(per_type[(qtype, "dev")] - per_type[(qtype, "test")]) <= 1
    assert all(q["question"].strip() and q["gold"] for q in rows)


def test_synthetic_gold_turns_exist_as_turns_of_their_transcript():
    cache: dict[str, set[str]] = {}
    for q in _questions():
        for gold in q["gold"]:
            if q["source"] != "synthetic":
                continue
            name = gold["transcript"]
            if name not in cache:
                cache[name] = _turn_uuids(DATA / name)
            assert gold["turn"] in cache[name], (q["id"], gold)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/transcripts is absent")
def test_real_gold_turns_exist_in_the_shared_transcripts():
    for q in _questions():
        if q["source"] != "real":
            continue
        for gold in q["gold"]:
            assert gold["turn"] in _turn_uuids(SHARED / gold["transcript"]), (q["id"], gold)


def test_evaluator_runs_on_one_project(tmp_path):
    evaluator = _load_evaluator()
    report = evaluator.run("all", modes=["hybrid", "text"], with_real=False, work=tmp_path,
                           only="harbor", embedder=FakeEmbedder())
    assert report["memory"]["sessions"] == len(list((DATA / "synthetic").glob("harbor-*.jsonl")))
    assert report["questions"] == sum(1 for q in _questions() if q["id"].startswith("harbor-"))
    text = report["results"]["text"]
    # Full-text search over our own wording finds most gold turns; a capture or labelling bug finds none.
    assert text["recall@10"]["recall"] > 0.5
    budget = text["budget 4000 chars"]
    assert 0 < budget["chars"]
    assert text["recall@5"]["recall"] <= text["recall@10"]["recall"] <= text["budget 20 turns"]["recall"] + 1e-9
    assert "bm25 sections" in report["results"]


def test_budget_counts_a_section_once_and_stops_at_the_limit():
    evaluator = _load_evaluator()
    w = evaluator.Window
    windows = [w(("a", 1), "x" * 1500, {"t1"}), w(("a", 1), "x" * 1500, {"t1"}), w(("b", 1), "y" * 2000, {"t2"}),
               w(("c", 1), "z" * 1000, {"t3"})]
    kept = evaluator.within(windows, chars=4000)
    assert [k.key for k in kept] == [("a", 1), ("b", 1)]
    assert evaluator.score({"t1", "t3"}, kept) == (0.5, 3500, 2)
    assert [k.key for k in evaluator.within(windows, turns=2)] == [("a", 1), ("b", 1)]


def test_captured_memory_is_rebuilt_when_any_module_of_the_capture_path_changes(tmp_path, monkeypatch):
    _load_evaluator()
    import shutil
    memory = sys.modules["conversation_memory"]  # where the evaluator's captured memory is built
    shutil.copytree(memory.REPO / "memdown", tmp_path / "memdown")
    monkeypatch.setattr(memory, "REPO", tmp_path)
    stamps = [memory._stamp([])]
    for module in ("redact/__init__.py", "services/capture/outcome.py", "fence.py", "lazyre.py", "transcript/segments.py",
                   "store/daily.py"):
        with (tmp_path / "memdown" / module).open("a") as f:
            f.write("\n# changed\n")
        stamps.append(memory._stamp([]))
    assert len(set(stamps)) == len(stamps), stamps


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/transcripts is absent")
def test_a_past_shared_set_holds_every_real_question_and_only_its_files():
    evaluator = _load_evaluator()
    listed = {ln for ln in (DATA / "shared_2026-11-22.txt").read_text().splitlines() if ln and not ln.startswith("#")}
    assert all((SHARED / name).is_file() for name in listed)
    assert {g["transcript"] for q in _questions() if q["source"] == "real" for g in q["gold"]} <= listed
    names = [name for name, _ in evaluator.transcripts(True, shared=frozenset(listed))]
    assert {n for n in names if not n.startswith("synthetic/")} == listed
    assert len(names) > len(listed)  # the synthetic projects stay


def _memsearch_script(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MEMDOWN_HOME": str(tmp_path / "home")}
    return subprocess.run([sys.executable, str(BENCH / "eval_conversations_memsearch.py"), "--no-real", *args],
                          capture_output=True, text=True, env=env, timeout=120)


def test_memsearch_sides_run_apart_only_with_a_hits_file_that_answers_every_question(tmp_path):
    # memsearch's side (tens of minutes) writes its hits; memdown's side reads them: a file short of a
    # question must stop the run before memdown's side is built, not score the question as a miss.
    proc = _memsearch_script("--side", "memdown", tmp_path=tmp_path)
    assert proc.returncode == 2 and "needs --hits" in proc.stderr
    hits = tmp_path / "hits.json"
    hits.write_text(json.dumps({"hits": {"only-one": []}, "memory": "", "settings": "", "seconds": 0, "load": ""}))
    proc = _memsearch_script("--split", "test", "--side", "memdown", "--hits", str(hits), tmp_path=tmp_path)
    assert proc.returncode == 2 and "has no hits for" in proc.stderr, proc.stderr[-500:]
