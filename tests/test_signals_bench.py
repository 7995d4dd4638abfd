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


def _bench_module(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCH.parent / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_second_labels_cover_the_blind_sample_and_hold_no_text():
    """second_labels.jsonl: exactly the keys second_label.py samples, path + uuid + label only."""
    import json

    sample, nones_total = _bench_module("second_label").sample_keys()
    rows = [json.loads(line) for line in (BENCH.parent / "second_labels.jsonl").read_text().splitlines()]
    assert all(set(row) == {"file", "uuid", "label"} for row in rows)
    assert {row["label"] for row in rows} <= {"correction", "convention", "preference", "remember", "none"}
    assert {(row["file"], row["uuid"]) for row in rows} == set(sample) and len(rows) == len(sample)
    assert nones_total > 450 and len(sample) == 450 + 1663 - nones_total


def test_kappa_matches_the_textbook_value_and_ignores_uniform_weights():
    agreement = _bench_module("agreement")
    pairs = [("correction", "correction")] * 20 + [("correction", "none")] * 5 \
        + [("none", "correction")] * 10 + [("none", "none")] * 15
    rows = [{"first": a, "second": b, "w": 1.0} for a, b in pairs]
    assert agreement.kappa(rows, binary=True) == 0.4  # p_o 0.7, p_e 0.5
    assert agreement.kappa([{**r, "w": 2.9} for r in rows], binary=True) == 0.4
    five = rows + [{"first": "remember", "second": "correction", "w": 1.0}]
    assert agreement.kappa(five, binary=True) > agreement.kappa(five, binary=False)


@pytest.mark.shared
def test_second_labeller_agreement(shared_transcripts):
    """The detector's figures against the first labels reproduce evaluate_v2 (the weighting is exact there)."""
    result = _bench_module("agreement").report(shared_transcripts)
    exact = _bench_module("evaluate_v2").evaluate(shared_transcripts, "phrases", "test")["all"]
    first = result["phrases_test_weighted"]["first"]
    assert (round(first["tp"]), round(first["fp"]), round(first["fn"])) == (exact["tp"], exact["fp"], exact["fn"])
    # measured 0.80 binary / 0.78 five-way (bench/signals/RESULTS.md): a floor, not a target
    assert result["all_weighted"]["kappa_binary"] >= 0.75 and result["all_weighted"]["kappa_5way"] >= 0.7


@pytest.mark.parametrize(("text", "repo_language", "expected"), [
    # Latin-script prompts in the collection's languages, in a repository whose main language is English
    ("Przepraszam, źle powiedziałem, po kliknięciu przycisku dodajemy nowy moduł do listy", "en", "pl"),
    ("tại sao tôi thấy nó được cập nhật nhiều thế, tôi không muốn như vậy", "en", "vi"),
    ("não quero mexer na arquitetura do site por agora, só corrige o formulário", "en", "pt"),
    ("la pipeline non passa perché stavi lavorando sul ramo principale", "en", "it"),
    ("je ne veux pas que tu modifies les fichiers de configuration sans me demander", "en", "fr"),
    ("bitte lösche die alten Dateien nicht, wir brauchen sie noch für den Test", "en", "de"),
    ("no quiero que cambies los archivos de configuración sin preguntarme antes", "en", "es"),
    ("please do not change the configuration files without asking me first", "pl", "en"),
    # scripts
    ("不要再改这个文件了", "en", "zh"), ("このファイルは変更しないでください", "en", "ja"),
    ("이 파일은 수정하지 마세요", "en", "ko"), ("не трогай этот файл больше", "en", "ru"),
    ("لا تغير هذا الملف مرة أخرى", "en", "ar"),
    # too short to tell: the repository's main language (English where that is another script)
    ("yes", "it", "it"), ("claude -c", "pt", "pt"), ("[image]", "ar", "en"), ("ok", "zh", "en"),
])
def test_language_of_reads_the_collections_languages(text, repo_language, expected):
    """evaluate_v3.language_of: Polish and Vietnamese prompts were read as English before session 9."""
    bench = _bench_module("evaluate_v3")
    assert bench.language_of(text, "some-repo", {"some-repo": repo_language}) == expected
