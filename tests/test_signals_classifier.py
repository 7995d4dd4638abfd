"""The learned detector (memdown/signals/classifier.py): the shipped weights with the packaged model,
its decision inside detect_turns and mining, and the repository-held-out figures in the docs."""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from memdown.config import load_config
from memdown.signals import classifier as C
from memdown.signals import store
from memdown.signals.detect import detect_turns
from memdown.signals.mining import mine_session
from memdown.transcript.parser import parse_transcript
from transcript_factory import TranscriptBuilder

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench" / "signals"
DOCS = REPO / "docs" / "learning-loop.md"

# Written for this test (never in the labels or ../shared): the shapes real users' words take.
HELD_OUT_POSITIVE = [
    ("set up the build", "I ran `npm install` and the build passes.", "no, we use pnpm here, not npm"),
    ("clean up the config", "I removed the old migration files as part of the cleanup.",
     "why did you delete the migrations? put them back"),
]
HELD_OUT_NEGATIVE = [
    ("fix the header", "The header now wraps correctly on mobile.", "sweet, thanks!"),
    ("", "", "add a dark mode toggle to the settings page"),
]


class FlagEvery:
    """A stand-in classifier: flags prompts containing ``marker`` (the decision wiring, without weights)."""

    threshold = 0.5

    def __init__(self, marker: str) -> None:
        self.marker = marker
        self.seen: list[C.Example] = []

    def decide_turns(self, pairs):
        examples = [C.example_of(prompt, prev) for prompt, prev in pairs]
        self.seen.extend(examples)
        return [(self.marker in e.prompt, 0.9 if self.marker in e.prompt else 0.1, "correction") for e in examples]


def _transcript(tmp_path: Path, turns: list[tuple[str, str]]) -> Path:
    tb = TranscriptBuilder(session_id="sess-c")
    for prompt, reply in turns:
        tb.prompt(prompt)
        tb.tool("Bash", {"command": "ls"}, "ok")
        tb.tool("Bash", {"command": "ls -a"}, "ok")
        tb.reply(reply)
    return tb.write(tmp_path / "sess-c.jsonl")


def test_classifier_decides_and_phrase_tables_explain(tmp_path):
    path = _transcript(tmp_path, [("set up the project", "Done with npm."),
                                  ("no, use pnpm not npm", "Switching."),         # phrase hit, not flagged
                                  ("that staging box is off limits", "Noted."),   # flagged, no phrase hit
                                  ("perfect, that works", "Great.")])
    turns = parse_transcript(path).turns
    phrases_only = {s.turn: s.type for s in detect_turns(turns)}
    assert phrases_only.get(turns[1].uuid) == "correction" and turns[2].uuid not in phrases_only
    fake = FlagEvery("off limits")
    decided = detect_turns(turns, classify=fake)
    rule = [s for s in decided if s.type in {"correction", "convention", "memory_request", "revert"}]
    assert [(s.turn, s.pattern, s.extra.get("p")) for s in rule] == [(turns[2].uuid, "model", "0.90")]
    assert rule[0].text == "that staging box is off limits"
    assert any(s.type == "positive" for s in decided)  # praise is not the classifier's to drop
    assert fake.seen[1].prev_said == "Done with npm." and fake.seen[1].prev_tools == 2 and fake.seen[0].first


def test_mining_uses_the_learned_detector_from_the_service(memory_root, tmp_path, monkeypatch):
    from memdown.services.capture import signal_mining

    path = _transcript(tmp_path, [("set up the project", "Done with npm."), ("that staging box is off limits", "ok")])
    monkeypatch.setattr(signal_mining, "learned_detector", lambda config: FlagEvery("off limits"))
    mined = signal_mining.mine_session(memory_root, path, "sess-c", config=load_config(memory_root))
    assert [(s.type, s.pattern) for s in mined] == [("correction", "model")]
    assert [s.text for s in store.load(memory_root)] == ["that staging box is off limits"]


def test_mining_without_the_model_falls_back_to_phrase_tables(memory_root, tmp_path, monkeypatch):
    from memdown.services.capture.signal_mining import learned_detector

    monkeypatch.setattr(C, "MODEL_FILE", tmp_path / "missing.npz")
    monkeypatch.setattr(C, "load_classifier", lambda *a, **k: C.Classifier(C.load_weights(C.MODEL_FILE), None))
    monkeypatch.setenv("MEMDOWN_MINING_LEARNED", "true")
    assert learned_detector(load_config(memory_root)) is None  # weights missing: phrase tables decide
    monkeypatch.setenv("MEMDOWN_MINING_LEARNED", "false")
    assert learned_detector(load_config(memory_root)) is None
    path = _transcript(tmp_path, [("set up the project", "Done with npm."), ("no, use pnpm not npm", "ok")])
    assert [s.type for s in mine_session(memory_root, path, "sess-c", config=load_config(memory_root))] == ["correction"]


def test_mining_with_learned_on_runs_the_shipped_weights(memory_root, tmp_path, monkeypatch):
    """``mining.learned = true``: the service loads the shipped weights (no embedder) and they decide."""
    from memdown.services.capture import signal_mining

    monkeypatch.setenv("MEMDOWN_MINING_LEARNED", "true")
    path = _transcript(tmp_path, [("set up the build", "I ran npm install and the build passes."),
                                  ("no, we use pnpm here, not npm", "Switching."), ("sweet, thanks!", "ok")])
    mined = signal_mining.mine_session(memory_root, path, "sess-c", config=load_config(memory_root))
    rule = [s for s in mined if s.type in {"correction", "convention", "memory_request", "revert"}]
    assert [(s.text, s.pattern.split(",")[0]) for s in rule] == [("no, we use pnpm here, not npm", "model")]
    assert float(rule[0].extra["p"]) >= C.load_weights()["threshold"]


@pytest.fixture(scope="module")
def shipped():
    return C.load_classifier()


def test_shipped_model_loads_offline_and_is_deterministic(shipped, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert C.MODEL_FILE.stat().st_size < 600_000  # small: shipped inside the wheel
    examples = [C.Example(p, said, 2, not said) for _, said, p in HELD_OUT_POSITIVE + HELD_OUT_NEGATIVE]
    first = shipped.scores(examples)
    again = C.load_classifier().scores(examples)
    assert first == again
    assert 0.0 < shipped.threshold < 1.0


def test_shipped_model_classifies_held_out_phrasings(shipped):
    """Every correction scores above every non-correction; the plain one is flagged at the shipped
    (precision-first, so high) threshold, and neither non-correction is."""
    pos = shipped.decide([C.Example(p, said, 2) for _, said, p in HELD_OUT_POSITIVE])
    neg = shipped.decide([C.Example(p, said, 2, not said) for _, said, p in HELD_OUT_NEGATIVE])
    assert min(p for _, p, _ in pos) > max(p for _, p, _ in neg), (pos, neg)
    assert pos[0][0], pos
    assert [flag for flag, _, _ in neg] == [False] * len(HELD_OUT_NEGATIVE), neg
    assert all(kind in C.CLASS_TYPES[1:] for _, _, kind in pos)


def test_shipped_model_needs_no_embedder_when_its_blocks_do_not(monkeypatch):
    """The chosen blocks (phrase hits, cues, turn shape) are numpy-only: the MiniLM model is not loaded."""
    def refuse():
        raise AssertionError("the packaged embedder was loaded")

    weights = C.load_weights()
    spec = {k: float(weights[f"scale_{k}"]) for k in C.BLOCKS}
    monkeypatch.setattr(C, "packaged_embed", refuse)
    if C.uses_embedding(spec):
        with pytest.raises(AssertionError):
            C.load_classifier()
    else:
        assert C.load_classifier().embed is None


# Written from general language knowledge for this test (never from the labelled prompts).
CUE_CASES = [
    ("no, that is wrong", {"negation", "wrong"}),
    ("不对，应该用 pnpm", {"negation", "wrong", "should"}),
    ("為什麼刪掉了？", {"why"}),
    ("違う、そうじゃなくて", {"wrong", "contrast", "negation"}),
    ("그거 말고 pnpm 써야 해", {"contrast", "should"}),
    ("안 돼, 왜 지웠어?", {"negation", "why"}),
    ("non, plutôt avec pnpm", {"negation", "contrast"}),
    ("no, mejor en vez de npm usa pnpm", {"negation", "contrast"}),
    ("нет, почему ты удалил?", {"negation", "why"}),
    ("не, недей така, защо?", {"negation", "why"}),
    ("we already have a debugger agent", {"already", "we_i"}),
    ("remember: always run the linter", {"standing"}),
]


@pytest.mark.parametrize("text,groups", CUE_CASES)
def test_cue_groups_cover_the_corpus_languages(text, groups):
    from memdown.signals.cues import USER_CUES, user_cue_features

    features = user_cue_features(text)
    present = {name for k, name in enumerate(USER_CUES) if features[2 * k]}
    assert groups <= present, (text, present)


def test_praise_and_korean_greetings_are_not_negation():
    from memdown.signals.cues import USER_CUES

    for text in ("sweet, it worked!", "안녕하세요", "太好了，谢谢", "parfait, merci"):
        assert not USER_CUES["negation"].search(text), text
    assert USER_CUES["approve"].search("sweet, it worked!") and USER_CUES["approve"].search("parfait, merci")


def test_agent_turn_cues_read_what_the_agent_just_did():
    from memdown.signals.cues import agent_cue_features

    claimed = agent_cue_features("All tests passing. Done ✅", 4, False)
    offered = agent_cue_features("Want me to add a migration for it?", 0, False)
    start = agent_cue_features("", 0, True)
    assert claimed[4] == 1.0 and claimed[6] == 1.0 and claimed[1] == 0.0   # claim, 3+ tools, no question
    assert offered[3] == 1.0 and offered[1] == 1.0 and offered[5] == 1.0   # offer, question, no tools
    assert start[0] == 1.0 and sum(start[1:5]) == 0.0 and start[5] == 1.0  # at the start: nothing was done


def _bench(name: str):
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_labels_reference_transcripts_never_text():
    import json

    rows = [json.loads(line) for line in (BENCH / "real_labels_v2.jsonl").read_text().splitlines()]
    assert len(rows) >= 1600 and all(set(r) == {"file", "uuid", "label"} for r in rows)
    assert {r["label"] for r in rows} == {"none", "correction", "convention", "preference", "remember"}
    split = json.loads((BENCH / "split_v2.json").read_text())
    assert not set(split["dev"]) & set(split["test"])


def test_evaluation_script_skips_without_shared(tmp_path, capsys):
    bench = _bench("evaluate_v2")
    assert bench.evaluate(tmp_path / "absent")["items"] == []


def _docs_row(detector: str, half: str, slice_name: str) -> tuple[float, float]:
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(rf"<!-- {detector}:{half}:{re.escape(slice_name)} -->\s*P ([0-9.]+|-) · R ([0-9.]+)", text)
    assert match, f"docs/learning-loop.md has no figure for {detector}:{half}:{slice_name}"
    return (None if match.group(1) == "-" else float(match.group(1))), float(match.group(2))


@pytest.mark.shared
@pytest.mark.parametrize("detector", ["phrases", "model"])
def test_docs_figures_match_the_evaluation_script(shared_transcripts, detector):
    """The test-half figures in docs/learning-loop.md are what evaluate_v2.py prints."""
    bench = _bench("evaluate_v2")
    result = bench.evaluate(shared_transcripts, detector, "test")
    assert len(result["items"]) >= 900
    slices = {"all": result["all"], **{f"lang={k}": v for k, v in result["by_lang"].items()},
              **{f"label={k}": v for k, v in result["by_label"].items()}}
    for name in ("all", "lang=en", "lang=zh", "lang=ko", "lang=fr", "label=correction", "label=convention",
                 "label=preference", "label=remember"):
        row = slices[name]
        precision = None if row["precision"] is None else round(row["precision"], 2)
        assert _docs_row(detector, "test", name) == (precision, round(row["recall"], 2)), name
