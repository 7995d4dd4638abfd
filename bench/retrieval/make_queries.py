#!/usr/bin/env python3
"""Write bench/retrieval/queries.jsonl from the hand-written query lists (labelled_semantic.py, labelled_exact.py).

Each query is (type, text, [(day, "HH:MM"), ...]) where each pair names a relevant
`### HH:MM` entry in corpus/<day>.md. Ids are assigned in list order (q001, ...).
The dev/test split is stratified by type: within each type the queries are shuffled
with a fixed seed and dealt alternately to dev/test; odd leftovers alternate between
dev and test across types so the totals stay balanced. Re-running is deterministic.

Relevance rule used when labelling: an entry is relevant if it (alone or together with
the other listed entries) contains the answer. Recap entries that merely name a topic
are not labelled unless they answer the question as asked; queries were phrased to keep
that unambiguous (e.g. asking "why"/"how" rather than a value a recap also lists).
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

from labelled_exact import EXACT
from labelled_semantic import SEMANTIC

HERE = Path(__file__).resolve().parent
SEED = 20260501

# The labelled queries, in id order (split by kind so each file stays readable).
Q = SEMANTIC + EXACT


def main() -> None:
    by_type: dict[str, list[int]] = defaultdict(list)
    for i, (qtype, _, _) in enumerate(Q):
        by_type[qtype].append(i)
    rng = random.Random(SEED)
    split = {}
    odd_to = "dev"
    for qtype in sorted(by_type):
        idx = by_type[qtype][:]
        rng.shuffle(idx)
        pairs = len(idx) // 2 * 2
        for k, i in enumerate(idx[:pairs]):
            split[i] = "dev" if k % 2 == 0 else "test"
        for i in idx[pairs:]:
            split[i] = odd_to
            odd_to = "test" if odd_to == "dev" else "dev"
    out = HERE / "queries.jsonl"
    with out.open("w", encoding="utf-8") as fh:
        for i, (qtype, text, rel) in enumerate(Q):
            rec = {
                "id": f"q{i + 1:03d}",
                "query": text,
                "relevant": [{"file": f"{d}.md", "heading": h} for d, h in rel],
                "type": qtype,
                "split": split[i],
            }
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"wrote {len(Q)} queries -> {out}")


if __name__ == "__main__":
    main()
