"""Blind sample for a second, independent labeller of ``real_labels_v2.jsonl`` (issue 20: "a single labeller").

    python bench/signals/second_label.py --out /work/scratch-labeller/sample.jsonl   # never inside the repo
    python bench/signals/second_label.py --out … --show 0:60                          # print a batch to read

The sample is every prompt the first labeller marked as a signal (not ``none``) plus a seeded random
sample of ``--nones`` (450) of the ``none`` prompts, shuffled together. Each row carries the path, uuid,
the prompt and the assistant's last words before it (truncated), but NOT the first label, so the second
reader labels blind. The second reader's labels go to ``second_labels.jsonl`` (path + uuid + label, no
text); ``agreement.py`` compares the two and weights the sampled ``none`` rows back to the full corpus.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

from prompt_corpus import SHARED, iter_prompts  # noqa: E402

LABELS_FILE = HERE / "real_labels_v2.jsonl"
SEED = 20  # issue 20
NONES = 450
PROMPT_CHARS = 600
PREV_CHARS = 600


def sample_keys(nones: int = NONES, seed: int = SEED) -> tuple[list[tuple[str, str]], int]:
    """(shuffled sample keys, how many ``none`` prompts the first labeller has): the only place labels are read."""
    positives, negatives = [], []
    for line in LABELS_FILE.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        (negatives if row["label"] == "none" else positives).append((row["file"], row["uuid"]))
    rng = random.Random(seed)
    chosen = positives + rng.sample(sorted(negatives), nones)
    rng.shuffle(chosen)
    return chosen, len(negatives)


def _cut(text: str, limit: int, tail: bool = False) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    return "…" + text[-limit:] if tail else text[:limit] + "…"


def build(shared: Path, out: Path, nones: int = NONES) -> int:
    keys, _total = sample_keys(nones)
    order = {key: n for n, key in enumerate(keys)}
    rows: list[dict | None] = [None] * len(keys)
    for prompt, _turn, _prev in iter_prompts(shared):
        n = order.get((prompt.file, prompt.uuid))
        if n is not None:
            # the agent's LAST words are what a correction answers: keep the tail of a long turn
            rows[n] = {"n": n, "file": prompt.file, "uuid": prompt.uuid, "lang": prompt.lang,
                       "prev": _cut(prompt.prev_said, PREV_CHARS, tail=True), "calls": prompt.prev_calls[:200],
                       "text": _cut(prompt.text, PROMPT_CHARS)}
    missing = sum(1 for r in rows if r is None)
    if missing:
        raise SystemExit(f"{missing} labelled prompts not found in {shared}")
    with out.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(rows)


def show(out: Path, span: str) -> None:
    start, stop = (int(x) for x in span.split(":"))
    for line in out.read_text(encoding="utf-8").splitlines()[start:stop]:
        row = json.loads(line)
        print(f"=== #{row['n']} [{row['lang']}]")
        if row["calls"]:
            print(f"  calls: {row['calls']}")
        print(f"  AGENT: {' '.join(row['prev'].split())}")
        print(f"  USER: {' '.join(row['text'].split())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--nones", type=int, default=NONES)
    parser.add_argument("--show", help="print rows START:STOP of an existing sample")
    args = parser.parse_args()
    if args.out.resolve().is_relative_to(HERE.parent.parent):
        raise SystemExit("the sample holds ../shared text: write it outside the repository")
    if args.show:
        show(args.out, args.show)
        return
    if not args.shared.is_dir():
        print("no shared transcripts: nothing to sample")
        return
    print(f"{build(args.shared, args.out, args.nones)} prompts -> {args.out}")


if __name__ == "__main__":
    main()
