"""Precision/recall of a signal detector on the repository-held-out split of the real prompts.

    python bench/signals/evaluate_v2.py                      # the shipped detector, dev half
    python bench/signals/evaluate_v2.py --detector phrases   # the phrase tables alone (the old decision)
    python bench/signals/evaluate_v2.py --half test          # the test half: run ONCE, at the end
    python bench/signals/evaluate_v2.py --errors             # quote every false positive and miss
    python bench/signals/evaluate_v2.py --json

Labels: ``real_labels_v2.jsonl`` (path + uuid + label; guide in LABELLING.md), split by repository
in ``split_v2.json``; both were committed before any tuning. A prompt is *expected* when its label is
not ``none``; it is *predicted* when the detector proposes a rule candidate for it (a ``correction``,
``convention``, ``memory_request`` or ``revert`` signal). Figures by language (``corpus.language``)
and by label (recall only: a label has no false positives of its own). The text is read in place from
../shared and never copied; without ../shared the script prints a notice and exits 0.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

from prompt_corpus import SHARED, iter_prompts  # noqa: E402

RULE_TYPES = frozenset({"correction", "convention", "memory_request", "revert"})
LABELS_FILE = HERE / "real_labels_v2.jsonl"
SPLIT_FILE = HERE / "split_v2.json"
LANGS = ("en", "zh", "ko", "ja", "ru", "fr", "es")
KINDS = ("correction", "convention", "preference", "remember")


def load_labels() -> dict[tuple[str, str], str]:
    out = {}
    for line in LABELS_FILE.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        out[(row["file"], row["uuid"])] = row["label"]
    return out


def half_of(repo: str) -> str:
    return "test" if repo in set(json.loads(SPLIT_FILE.read_text(encoding="utf-8"))["test"]) else "dev"


def phrase_detector(files: dict[str, list]) -> dict[tuple[str, str], bool]:
    """The phrase tables as the decision (memdown.signals.detect.detect_turns without a classifier)."""
    from memdown.signals.detect import detect_turns

    out = {}
    for rel, turns in files.items():
        for sig in detect_turns(turns):
            if sig.type in RULE_TYPES:
                out[(rel, sig.turn)] = True
    return out


def model_detector(files: dict[str, list]) -> dict[tuple[str, str], bool]:
    """The shipped detector: detect_turns with the learned classifier deciding."""
    from memdown.signals.classifier import load_classifier
    from memdown.signals.detect import detect_turns
    from train_detector import CachedEmbed  # the packaged model's vectors, cached outside the repo

    classify = load_classifier(CachedEmbed())
    out = {}
    for rel, turns in files.items():
        for sig in detect_turns(turns, classify=classify):
            if sig.type in RULE_TYPES:
                out[(rel, sig.turn)] = True
    return out


DETECTORS = {"model": model_detector, "phrases": phrase_detector}


def load_items(shared: Path, detector: str) -> list[dict]:
    from memdown.transcript.parser import parse_transcript

    labels = load_labels()
    prompts = [p for p, _turn, _prev in iter_prompts(shared) if (p.file, p.uuid) in labels]
    files = {rel: parse_transcript(shared / rel, include_subagents=False).turns
             for rel in sorted({p.file for p in prompts})}
    got = DETECTORS[detector](files)
    return [{"file": p.file, "uuid": p.uuid, "repo": p.repo, "half": half_of(p.repo), "lang": p.lang,
             "label": labels[(p.file, p.uuid)], "predicted": got.get((p.file, p.uuid), False), "text": p.text}
            for p in prompts]


def score(items: list[dict]) -> dict:
    tp = sum(1 for i in items if i["label"] != "none" and i["predicted"])
    fp = sum(1 for i in items if i["label"] == "none" and i["predicted"])
    fn = sum(1 for i in items if i["label"] != "none" and not i["predicted"])
    return {"prompts": len(items), "positives": tp + fn, "tp": tp, "fp": fp, "fn": fn,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None}


def evaluate(shared: Path | None = None, detector: str = "model", half: str = "dev") -> dict:
    shared = shared or SHARED
    if not shared.is_dir():
        return {"items": []}
    items = [i for i in load_items(shared, detector) if i["half"] == half]
    by_lang = {lang: score([i for i in items if i["lang"] == lang]) for lang in LANGS}
    # a label has no false positives of its own: recall only
    by_label = {kind: {**score([i for i in items if i["label"] == kind]), "precision": None} for kind in KINDS}
    return {"items": items, "detector": detector, "half": half, "all": score(items),
            "by_lang": {k: v for k, v in by_lang.items() if v["prompts"]}, "by_label": by_label}


def _fmt(value) -> str:
    return "  -  " if value is None else f"{value:5.2f}"


def _print(result: dict) -> None:
    print(f"detector={result['detector']} half={result['half']}")
    print(f"{'slice':<12}{'prompts':>8}{'pos':>5}{'tp':>5}{'fp':>5}{'fn':>5}{'prec':>7}{'recall':>7}")
    rows = [("all", result["all"])] + [(f"lang={k}", v) for k, v in result["by_lang"].items()] \
        + [(f"label={k}", v) for k, v in result["by_label"].items()]
    for name, row in rows:
        print(f"{name:<12}{row['prompts']:>8}{row['positives']:>5}{row['tp']:>5}{row['fp']:>5}{row['fn']:>5}"
              f"{_fmt(row['precision']):>7}{_fmt(row['recall']):>7}")


def _errors(items: list[dict]) -> None:
    groups = defaultdict(list)
    for item in items:
        expected = item["label"] != "none"
        if item["predicted"] != expected:
            groups["FP" if item["predicted"] else "FN"].append(item)
    for kind in ("FP", "FN"):
        for item in groups[kind]:
            text = " ".join(item["text"].split())[:160]
            print(f"  {kind} [{item['lang']}] {item['repo'][:14]}:{item['uuid'][:8]} label={item['label']}: {text!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=None)
    parser.add_argument("--detector", choices=sorted(DETECTORS), default="model")
    parser.add_argument("--half", choices=("dev", "test"), default="dev")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--errors", action="store_true")
    args = parser.parse_args()
    result = evaluate(args.shared, args.detector, args.half)
    items = result.pop("items")
    if not items:
        print("no shared transcripts: nothing to score")
        return
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print(result)
    if args.errors:
        _errors(items)


if __name__ == "__main__":
    main()
