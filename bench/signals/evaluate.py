"""Signal detection precision/recall on the labelled sets.

    python bench/signals/evaluate.py            # table per type: synthetic, real transcripts, both
    python bench/signals/evaluate.py --json     # the same as JSON
    python bench/signals/evaluate.py --errors   # list every false positive / negative

``labelled.jsonl``: realistic prompts (English, German, Spanish, Chinese; typos; negatives such
as quoted corrections, code, pasted logs, hook-injected context) with the expected signal types
and the context they follow (``first``, ``reply``, ``question``, ``action`` = after 2+ tool calls).
``heldout.jsonl``: more such prompts written after a first tuning round (its first score, before one
more round of tuning on its misses, is in docs/learning-loop.md); ``heldout2.jsonl``: written after
that and never tuned on: the fair estimate for unseen phrasing.
``real_labels.json``: hand labels for the user prompts of ../shared/transcripts (read in place,
never copied); prompts not listed must not fire; ``"?"`` marks ambiguous ones left out.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

from memdown.signals.detect import Context, detect_commands, detect_phrases, detect_turns  # noqa: E402

TYPES = ("correction", "convention", "positive", "memory_request", "command", "revert")
CONTEXTS = {
    "first": Context(after_reply=False),
    "reply": Context(after_reply=True),
    "question": Context(after_reply=True, after_question=True),
    "action": Context(after_reply=True, after_action=True),
}


def synthetic_items(name: str = "labelled.jsonl", source: str = "synthetic") -> list[dict]:
    items = []
    for line in (HERE / name).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        ctx = CONTEXTS[row.get("ctx", "reply")]
        hits = detect_phrases(row["text"], ctx) + detect_commands(row["text"])
        items.append({"source": source, "id": row["text"][:60], "expect": set(row["expect"]),
                      "got": {h.type for h in hits}, "lang": row.get("lang", "en")})
    return items


def real_items(shared: Path) -> list[dict]:
    from memdown.transcript.parser import parse_transcript

    labels = json.loads((HERE / "real_labels.json").read_text(encoding="utf-8"))
    items = []
    for rel, turns in labels.items():
        if rel.startswith("_"):
            continue
        path = shared / rel
        if not path.exists():
            continue
        transcript = parse_transcript(path, include_subagents=False)
        got: dict[str, set[str]] = {}
        for sig in detect_turns(transcript.turns):
            if sig.type in TYPES:
                got.setdefault(sig.turn, set()).add(sig.type)
        for turn in transcript.turns:
            if turn.kind != "prompt":
                continue
            label = turns.get(turn.uuid, [])
            if label == "?":
                continue
            items.append({"source": "real", "id": f"{Path(rel).name[:12]}:{turn.uuid[:8]}", "expect": set(label),
                          "got": got.get(turn.uuid, set()), "lang": ""})
    return items


def score(items: list[dict]) -> dict:
    table = {}
    for kind in TYPES + ("all",):
        tp = fp = fn = 0
        for item in items:
            kinds = TYPES if kind == "all" else (kind,)
            for k in kinds:
                e, g = k in item["expect"], k in item["got"]
                tp += e and g
                fp += g and not e
                fn += e and not g
        precision = tp / (tp + fp) if tp + fp else None
        recall = tp / (tp + fn) if tp + fn else None
        table[kind] = {"tp": tp, "fp": fp, "fn": fn, "precision": precision, "recall": recall, "support": tp + fn}
    return table


def evaluate(shared: Path | None = None) -> dict:
    shared = shared or REPO.parent / "shared" / "transcripts"
    synthetic = synthetic_items()
    heldout = synthetic_items("heldout.jsonl", "heldout")
    heldout2 = synthetic_items("heldout2.jsonl", "heldout2")
    real = real_items(shared) if shared.is_dir() else []
    return {"synthetic": score(synthetic), "heldout": score(heldout), "heldout2": score(heldout2), "real": score(real),
            "combined": score(synthetic + heldout + heldout2 + real),
            "items": {"synthetic": len(synthetic), "heldout": len(heldout), "heldout2": len(heldout2), "real": len(real)},
            "_rows": synthetic + heldout + heldout2 + real}


def _fmt(value: float | None) -> str:
    return "   -" if value is None else f"{value:5.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=None, help="the shared transcripts folder")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--errors", action="store_true")
    args = parser.parse_args()
    result = evaluate(args.shared)
    rows = result.pop("_rows")
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for name in ("synthetic", "heldout", "heldout2", "real", "combined"):
        print(f"\n{name} ({result['items'].get(name, sum(result['items'].values()))} prompts)")
        print(f"{'type':<16}{'support':>8}{'tp':>5}{'fp':>5}{'fn':>5}{'prec':>7}{'recall':>7}")
        for kind, row in result[name].items():
            print(f"{kind:<16}{row['support']:>8}{row['tp']:>5}{row['fp']:>5}{row['fn']:>5}"
                  f"{_fmt(row['precision']):>7}{_fmt(row['recall']):>7}")
    if args.errors:
        print("\nerrors:")
        for item in rows:
            if item["expect"] != item["got"]:
                print(f"  [{item['source']}] {item['id']!r}: expected {sorted(item['expect'])} got {sorted(item['got'])}")


if __name__ == "__main__":
    main()
