"""Signal precision/recall on the hand-labelled REAL user prompts of ../shared/transcripts.

    python bench/signals/real_messages.py                 # dev and test halves, rule detectors (phrase tables)
    python bench/signals/real_messages.py --errors test   # quote every false positive and miss of one half
    python bench/signals/real_messages.py --json

``real_messages.json`` labels every prompt turn the one transcript parser yields (text never copied here:
it is read in place and the script exits 0 with a notice when ../shared is absent). A message counts as
*predicted* when the detector proposes a rule candidate for it: a ``correction``, ``convention``,
``memory_request`` or ``revert`` signal. It is *expected* when labelled ``correction`` or ``convention``.
The split is fixed before tuning: ``test`` when ``int(sha1(uuid), 16) % 2 == 1``, else ``dev``. Tune on
dev only; report test.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

RULE_TYPES = frozenset({"correction", "convention", "memory_request", "revert"})
LABELS = HERE / "real_messages.json"


def half(uuid: str) -> str:
    return "test" if int(hashlib.sha1(uuid.encode()).hexdigest(), 16) % 2 == 1 else "dev"


def _lang(text: str) -> str:
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return "zh" if cjk >= 2 else "en"


def load_items(shared: Path, detector=None) -> list[dict]:
    """One row per labelled prompt: label, rule flag, half, language and the detected types."""
    from memdown.signals.detect import detect_turns
    from memdown.transcript.parser import parse_transcript

    detector = detector or detect_turns
    labels = json.loads(LABELS.read_text(encoding="utf-8"))["labels"]
    items = []
    for rel, by_uuid in sorted(labels.items()):
        path = shared / rel
        if not path.exists():
            continue
        turns = parse_transcript(path, include_subagents=False).turns
        got: dict[str, set[str]] = {}
        for sig in detector(turns):
            got.setdefault(sig.turn, set()).add(sig.type)
        for turn in turns:
            if turn.kind != "prompt" or turn.uuid not in by_uuid:
                continue
            label = by_uuid[turn.uuid]
            items.append({"file": rel, "uuid": turn.uuid, "half": half(turn.uuid), "label": label[0],
                          "rule": len(label) > 1 and bool(label[1]), "lang": _lang(turn.prompt),
                          "got": sorted(got.get(turn.uuid, set())), "text": turn.prompt})
    return items


def score(items: list[dict]) -> dict:
    tp = sum(1 for i in items if i["label"] != "none" and RULE_TYPES & set(i["got"]))
    fp = sum(1 for i in items if i["label"] == "none" and RULE_TYPES & set(i["got"]))
    fn = sum(1 for i in items if i["label"] != "none" and not RULE_TYPES & set(i["got"]))
    rules = [i for i in items if i["rule"]]
    rule_hits = sum(1 for i in rules if RULE_TYPES & set(i["got"]))
    return {"messages": len(items), "positives": tp + fn, "tp": tp, "fp": fp, "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else None,
            "rule_recall": rule_hits / len(rules) if rules else None, "rules": len(rules)}


def evaluate(shared: Path | None = None, detector=None) -> dict:
    shared = shared or REPO.parent / "shared" / "transcripts"
    items = load_items(shared, detector) if shared.is_dir() else []
    out: dict = {"items": items}
    for name in ("dev", "test"):
        part = [i for i in items if i["half"] == name]
        out[name] = score(part)
        out[name]["by_lang"] = {lang: score([i for i in part if i["lang"] == lang]) for lang in ("en", "zh")}
    return out


def _fmt(value) -> str:
    return "  -  " if value is None else f"{value:5.2f}"


def _errors(items: list[dict], name: str) -> None:
    for item in items:
        if item["half"] != name:
            continue
        predicted = bool(RULE_TYPES & set(item["got"]))
        expected = item["label"] != "none"
        if predicted == expected:
            continue
        kind = "FP" if predicted else "FN"
        text = " ".join(item["text"].split())[:160]
        print(f"  {kind} [{item['lang']}] {Path(item['file']).name[:8]}:{item['uuid'][:8]} "
              f"label={item['label']} got={item['got']}: {text!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--errors", choices=("dev", "test"))
    args = parser.parse_args()
    result = evaluate(args.shared)
    items = result.pop("items")
    if not items:
        print("no shared transcripts: nothing to score")
        return
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{'half':<6}{'lang':<5}{'msgs':>6}{'pos':>5}{'tp':>5}{'fp':>5}{'fn':>5}{'prec':>7}{'recall':>7}{'rules':>7}")
    for name in ("dev", "test"):
        for lang, row in [("all", result[name])] + list(result[name]["by_lang"].items()):
            print(f"{name:<6}{lang:<5}{row['messages']:>6}{row['positives']:>5}{row['tp']:>5}{row['fp']:>5}"
                  f"{row['fn']:>5}{_fmt(row['precision']):>7}{_fmt(row['recall']):>7}{_fmt(row['rule_recall']):>7}")
    if args.errors:
        _errors(items, args.errors)


if __name__ == "__main__":
    main()
