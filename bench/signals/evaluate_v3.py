"""Precision/recall of the signal detectors on the third collection (issue 30), split by repository.

    python bench/signals/evaluate_v3.py                        # every detector, dev half
    python bench/signals/evaluate_v3.py --half test            # the test half (authors and languages dev lacks)
    python bench/signals/evaluate_v3.py --half test --errors   # quote every false positive and miss

Labels: ``real_labels_v3.jsonl`` (path + uuid + label, LABELLING.md), split in ``split_v3.json``, both
committed before any tuning. Expected = label is not ``none``; predicted = the detector proposes a rule
candidate for the prompt. Detectors, all in the same run: ``phrases`` (the shipped tables, the baseline),
``model`` (the learned v2 classifier deciding), ``grep`` (a plain negation/"always"/"remember" word list,
the dumb baseline), ``repetition`` (memdown.signals.repetition over all the user's prompts) and
``phrases+repetition``, ``phrases+model`` (the shipped flags joined with the learned model's own, session 8).
Figures by language (``language_of``). Text is read in place from ../shared.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

from evaluate_v2 import model_detector, phrase_detector, score  # noqa: E402
from prompt_corpus import SHARED, iter_prompts, language  # noqa: E402

LABELS_FILE = HERE / "real_labels_v3.jsonl"
SPLIT_FILE = HERE / "split_v3.json"
KINDS = ("correction", "convention", "preference", "remember")
_SCRIPT_LANGS = {"zh", "ja", "ko", "ru"}
_ARABIC = re.compile(r"[\u0600-\u06ff]")
_GREP = re.compile(r"(?i)\b(?:no|not|don't|dont|never|always|wrong|remember|instead|why did you)\b|不要|不是|别|总是|记住|错")


def load_labels() -> dict[tuple[str, str], str]:
    rows = (json.loads(line) for line in LABELS_FILE.read_text(encoding="utf-8").splitlines())
    return {(r["file"], r["uuid"]): r["label"] for r in rows}


def split() -> dict:
    return json.loads(SPLIT_FILE.read_text(encoding="utf-8"))


def language_of(text: str, repo: str, main_language: dict[str, str]) -> str:
    """Script first (zh/ja/ko/ru/ar); in Latin script a maintained identifier (py3langid, its model bundled)
    chooses among the collection's Latin-script languages, and a prompt too short to tell (under four words:
    "yes", "claude -c", "[image]") takes the repository's main language, or English where that is another script.
    A strong reading beats the repository: a Portuguese prompt in an English repository is Portuguese."""
    if len(_ARABIC.findall(text)) >= 2:
        return "ar"
    tag = language(text)
    if tag in _SCRIPT_LANGS:
        return tag
    main = main_language.get(repo, "en")
    fallback = main if main in LATIN_LANGS else "en"
    if len(re.findall(r"[^\W\d_]{2,}", text)) < 4:
        return fallback
    ranked = dict(_identifier().rank(text))
    best = max(ranked, key=ranked.get)
    return best if best == fallback or ranked[best] > 0.9 else fallback


LATIN_LANGS = ("en", "pt", "fr", "vi", "pl", "it", "de", "es")  # the collection's Latin-script languages
_IDENTIFIER = None


def _identifier():
    """py3langid's bundled model with normalised probabilities, limited to LATIN_LANGS (loaded once)."""
    global _IDENTIFIER
    if _IDENTIFIER is None:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        _IDENTIFIER = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        _IDENTIFIER.set_languages(list(LATIN_LANGS))
    return _IDENTIFIER


def grep_detector(files: dict[str, list]) -> dict[tuple[str, str], bool]:
    return {(rel, t.uuid): True for rel, turns in files.items() for t in turns
            if t.kind == "prompt" and _GREP.search(t.prompt or "")}


def repetition_detector(files: dict[str, list]) -> dict[tuple[str, str], bool]:
    """A prompt holding an instruction the same user restated in other prompts (all the user's sessions)."""
    from memdown.signals.repetition import repeated_instructions

    by_repo: dict[str, list] = defaultdict(list)
    for rel, turns in files.items():
        by_repo[rel.split("/")[1]].extend((rel, t) for t in turns if t.kind == "prompt" and (t.prompt or "").strip())
    out = {}
    for pairs in by_repo.values():
        for group in repeated_instructions([(i, t.prompt) for i, (_rel, t) in enumerate(pairs)]):
            for index in group.prompts:
                rel, turn = pairs[index]
                out[(rel, turn.uuid)] = True
    return out


def _union(*detectors):
    def run(files):
        out = {}
        for detector in detectors:
            out.update(detector(files))
        return out
    return run


DETECTORS = {"phrases": phrase_detector, "model": model_detector, "grep": grep_detector,
             "repetition": repetition_detector, "phrases+repetition": _union(phrase_detector, repetition_detector),
             "phrases+model": _union(phrase_detector, model_detector)}


def load_items(shared: Path, detectors: list[str]) -> list[dict]:
    from memdown.transcript.parser import parse_transcript

    labels, sp = load_labels(), split()
    test = set(sp["test"])
    repos = {file.split("/")[1] for file, _ in labels}
    prompts = [p for p, _turn, _prev in iter_prompts(shared) if p.repo in repos]
    files = {rel: parse_transcript(shared / rel, include_subagents=False).turns for rel in sorted({p.file for p in prompts})}
    got = {name: DETECTORS[name](files) for name in detectors}
    return [{"file": p.file, "uuid": p.uuid, "repo": p.repo, "half": "test" if p.repo in test else "dev",
             "lang": language_of(p.text, p.repo, sp["main_language"]), "label": labels[(p.file, p.uuid)],
             "predicted": {name: got[name].get((p.file, p.uuid), False) for name in detectors}, "text": p.text}
            for p in prompts if (p.file, p.uuid) in labels]


def evaluate(shared: Path | None, detectors: list[str], half: str) -> dict:
    shared = shared or SHARED
    if not shared.is_dir():
        return {"items": []}
    items = [i for i in load_items(shared, detectors) if i["half"] == half]
    langs = sorted({i["lang"] for i in items})
    result = {"items": items, "half": half, "detectors": {}}
    for name in detectors:
        view = [{**i, "predicted": i["predicted"][name]} for i in items]
        result["detectors"][name] = {
            "all": score(view),
            "by_lang": {lang: score([i for i in view if i["lang"] == lang]) for lang in langs},
            "by_label": {k: {**score([i for i in view if i["label"] == k]), "precision": None} for k in KINDS}}
    return result


def _fmt(value) -> str:
    return "  -  " if value is None else f"{value:5.2f}"


def _print(result: dict) -> None:
    for name, res in result["detectors"].items():
        print(f"detector={name} half={result['half']}")
        print(f"  {'slice':<16}{'prompts':>8}{'pos':>5}{'tp':>5}{'fp':>5}{'fn':>5}{'prec':>7}{'recall':>7}")
        rows = [("all", res["all"])] + [(f"lang={k}", v) for k, v in res["by_lang"].items()] \
            + [(f"label={k}", v) for k, v in res["by_label"].items()]
        for label, row in rows:
            print(f"  {label:<16}{row['prompts']:>8}{row['positives']:>5}{row['tp']:>5}{row['fp']:>5}{row['fn']:>5}"
                  f"{_fmt(row['precision']):>7}{_fmt(row['recall']):>7}")


def _errors(items: list[dict], name: str) -> None:
    for item in items:
        expected, got = item["label"] != "none", item["predicted"][name]
        if got != expected:
            text = " ".join(item["text"].split())[:140]
            print(f"  {'FP' if got else 'FN'} [{item['lang']}] {item['repo'][:14]}:{item['uuid'][:8]} label={item['label']}: {text!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=None)
    parser.add_argument("--detector", action="append", choices=sorted(DETECTORS))
    parser.add_argument("--half", choices=("dev", "test"), default="dev")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--errors", action="store_true")
    args = parser.parse_args()
    detectors = args.detector or list(DETECTORS)
    result = evaluate(args.shared, detectors, args.half)
    items = result.pop("items")
    if not items:
        print("no shared transcripts: nothing to score")
        return
    print(json.dumps(result, indent=2) if args.json else "", end="")
    if not args.json:
        _print(result)
    if args.errors:
        for name in detectors:
            print(f"errors of {name}:")
            _errors(items, name)


if __name__ == "__main__":
    main()
