"""Fit the learned signal detector (memdown/signals/detector_model.npz) on the DEV half only.

    python bench/signals/train_detector.py --search        # compare feature sets / C on dev (grouped CV)
    python bench/signals/train_detector.py --fit           # fit the chosen setting on all dev, write the npz

Model selection never sees the test half: cross-validation folds are dev repositories (GroupKFold),
so every score is on authors the fold did not train on. The operating point is precision-first: the
lowest threshold whose out-of-fold precision on dev is >= --precision (review time is the cost of a
false positive). Features come from memdown.signals.classifier.design_matrix, the same function the
shipped detector uses. Embeddings of ../shared text are cached under /tmp (never in the repository).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

from prompt_corpus import SHARED, iter_prompts  # noqa: E402
from evaluate_v2 import half_of, load_labels  # noqa: E402

from memdown.signals import classifier as C  # noqa: E402

CLASS_OF = {"none": 0, "correction": 1, "convention": 2, "preference": 2, "remember": 3}
CACHE = Path("/tmp/memdown-detector-embed-cache.npz")
CHOSEN = {"embed": 1.0, "said": 0.0, "ngrams": 1.0, "dense": 1.0, "C": 1.0, "balanced": True}


class CachedEmbed:
    """The packaged embedder with an on-disk cache keyed by the text's sha1 (outside the repo)."""

    def __init__(self) -> None:
        self.inner = None
        self.cache: dict[str, np.ndarray] = {}
        if CACHE.exists():
            with np.load(CACHE) as data:
                self.cache = {k: data[k] for k in data.files}

    def __call__(self, texts):
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = [t for k, t in zip(keys, texts) if k not in self.cache]
        for start in range(0, len(missing), 64):  # saved as it goes: the shared machine is slow
            part = missing[start:start + 64]
            self.inner = self.inner or C.packaged_embed()
            for k, vec in zip([hashlib.sha1(t.encode()).hexdigest() for t in part], self.inner(part)):
                self.cache[k] = vec
            np.savez(CACHE, **self.cache)
            print(f"embedded {min(start + 64, len(missing))}/{len(missing)}", file=sys.stderr, flush=True)
        return np.stack([self.cache[k] for k in keys])


def dataset(shared: Path):
    labels = load_labels()
    rows = []
    for prompt, turn, prev in iter_prompts(shared):
        label = labels.get((prompt.file, prompt.uuid))
        if label is not None:
            rows.append((C.example_of(turn.prompt, prev), CLASS_OF[label], prompt.repo, half_of(prompt.repo)))
    return rows


def fit(X, y, setting):
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=setting["C"], max_iter=3000,
                               class_weight="balanced" if setting["balanced"] else None)
    return model.fit(X, y)


def oof_scores(X, y, groups, setting, folds=5):
    from sklearn.model_selection import GroupKFold

    out = np.zeros(len(y))
    for train, held in GroupKFold(n_splits=folds).split(X, y, groups):
        model = fit(X[train], y[train], setting)
        out[held] = 1.0 - model.predict_proba(X[held])[:, list(model.classes_).index(0)]
    return out


def operating_point(scores, positive, min_precision):
    """(threshold, precision, recall): the lowest threshold reaching min_precision (else best F0.5)."""
    best = None
    for t in sorted(set(np.round(scores, 4)), reverse=True):
        flagged = scores >= t
        tp = int((flagged & positive).sum())
        precision = tp / max(1, int(flagged.sum()))
        recall = tp / max(1, int(positive.sum()))
        if precision >= min_precision and tp >= 5:
            best = (float(t), precision, recall)
    if best is None:
        f05 = [(1.25 * p * r / (0.25 * p + r) if p + r else 0, t, p, r) for t, p, r in
               ((t, *pr(scores >= t, positive)) for t in np.linspace(0.05, 0.95, 91))]
        _, t, p, r = max(f05)
        best = (float(t), p, r)
    return best


def pr(flagged, positive):
    tp = int((flagged & positive).sum())
    return tp / max(1, int(flagged.sum())), tp / max(1, int(positive.sum()))


SEARCH = [
    {"embed": 1.0, "said": 0.0, "ngrams": 0.0, "dense": 0.0},
    {"embed": 0.0, "said": 0.0, "ngrams": 1.0, "dense": 0.0},
    {"embed": 0.0, "said": 0.0, "ngrams": 0.0, "dense": 1.0},
    {"embed": 1.0, "said": 0.0, "ngrams": 1.0, "dense": 0.0},
    {"embed": 1.0, "said": 0.0, "ngrams": 1.0, "dense": 1.0},
    {"embed": 1.0, "said": 0.5, "ngrams": 1.0, "dense": 1.0},
    {"embed": 1.0, "said": 0.0, "ngrams": 0.5, "dense": 1.0},
    {"embed": 2.0, "said": 0.0, "ngrams": 1.0, "dense": 1.0},
]


def search(rows, embed, min_precision, specs=None):
    dev = [r for r in rows if r[3] == "dev"]
    examples = [r[0] for r in dev]
    y = np.array([r[1] for r in dev])
    groups = np.array([r[2] for r in dev])
    positive = y > 0
    from scipy.sparse import csr_matrix

    for spec in specs or SEARCH:
        X = csr_matrix(C.design_matrix(examples, embed, spec))  # mostly empty n-gram buckets
        for c in (0.3, 1.0, 3.0, 10.0):
            for balanced in (True,):  # class-balanced only: the shared 2-core machine limits the grid
                setting = {**spec, "C": c, "balanced": balanced}
                scores = oof_scores(X, y, groups, setting)
                t, p, r = operating_point(scores, positive, min_precision)
                from sklearn.metrics import average_precision_score
                ap = average_precision_score(positive, scores)
                print(json.dumps({**setting, "AP": round(ap, 3), "t": round(t, 3), "P": round(p, 3),
                                  "R": round(r, 3)}), flush=True)


def write_model(rows, embed, setting, min_precision, out: Path):
    dev = [r for r in rows if r[3] == "dev"]
    examples = [r[0] for r in dev]
    y = np.array([r[1] for r in dev])
    groups = np.array([r[2] for r in dev])
    spec = {k: setting[k] for k in ("embed", "said", "ngrams", "dense")}
    from scipy.sparse import csr_matrix

    X = csr_matrix(C.design_matrix(examples, embed, spec))
    threshold, p, r = operating_point(oof_scores(X, y, groups, setting), y > 0, min_precision)
    model = fit(X, y, setting)
    assert list(model.classes_) == [0, 1, 2, 3], model.classes_
    np.savez_compressed(out, coef=model.coef_.astype(np.float32), intercept=model.intercept_.astype(np.float32),
                        threshold=np.float32(threshold), feature_version=np.int32(C.FEATURE_VERSION),
                        **{f"scale_{k}": np.float32(v) for k, v in spec.items()})
    print(f"wrote {out} ({out.stat().st_size // 1024} KB): threshold {threshold:.3f}, dev out-of-fold "
          f"P {p:.3f} R {r:.3f}, setting {json.dumps(setting)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--search", action="store_true")
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--precision", type=float, default=0.85)
    parser.add_argument("--setting", type=json.loads, default=CHOSEN)
    parser.add_argument("--specs", type=json.loads, default=None, help="a JSON list of feature specs to search")
    parser.add_argument("--out", type=Path, default=C.MODEL_FILE)
    args = parser.parse_args()
    if not args.shared.is_dir():
        print("no shared transcripts: nothing to train on")
        return
    rows = dataset(args.shared)
    embed = CachedEmbed()
    if args.search:
        search(rows, embed, args.precision, args.specs)
    if args.fit:
        write_model(rows, embed, args.setting, args.precision, args.out)


if __name__ == "__main__":
    main()
