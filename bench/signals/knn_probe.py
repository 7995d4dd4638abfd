"""Would a nearest-neighbour classifier over the packaged embedding model help? (dev half only)

    python bench/signals/knn_probe.py

Embeds every labelled real prompt (``real_messages.json``, cleaned like the phrase detector sees it,
Traditional Chinese folded to Simplified) with the packaged MiniLM model, then scores a k-NN vote over
the DEV half by leave-one-out, alone and combined with the phrase detector (OR / AND). Prints the time
the embedding took. The test half is never used here. Needs numpy (a fastembed dependency).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE))


def _pr(pred, truth) -> tuple[float, float]:
    tp = int((pred & truth).sum())
    fp = int((pred & ~truth).sum())
    fn = int((~pred & truth).sum())
    return round(tp / max(1, tp + fp), 2), round(tp / max(1, tp + fn), 2)


def main() -> None:
    import numpy as np

    import real_messages as R
    from memdown.index.embedder import FastEmbedder
    from memdown.signals.clean import clean_prompt, looks_relayed
    from memdown.signals.text import to_simplified

    items = [i for i in R.load_items(R.REPO.parent / "shared" / "transcripts") if i["half"] == "dev"]
    if not items:
        print("no shared transcripts: nothing to probe")
        return
    started = time.perf_counter()
    vectors = np.array(FastEmbedder(threads=1).embed(
        [to_simplified(clean_prompt(i["text"]))[:500] or "." for i in items]))
    print(f"embedded {len(items)} dev prompts in {time.perf_counter() - started:.1f} s (1 thread)")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    truth = np.array([i["label"] != "none" for i in items])
    patterns = np.array([bool(R.RULE_TYPES & set(i["got"])) for i in items])
    relayed = np.array([looks_relayed(i["text"]) for i in items])
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -1.0)  # leave one out
    print(f"phrase detector alone: P/R {_pr(patterns, truth)}")
    for k in (3, 5, 7, 11):
        order = np.argsort(-sims, axis=1)[:, :k]
        weights = np.clip(np.take_along_axis(sims, order, axis=1), 0, None) + 1e-6
        score = (weights * truth[order]).sum(axis=1) / weights.sum(axis=1)
        for threshold in (0.4, 0.5, 0.6):
            knn = (score >= threshold) & ~relayed
            print(f"k={k:<3}t={threshold}: knn {_pr(knn, truth)}  knn|phrases {_pr(knn | patterns, truth)}"
                  f"  knn&phrases {_pr(knn & patterns, truth)}")


if __name__ == "__main__":
    main()
