"""Fit the learned signal detector (memdown/signals/detector_model.npz) on the DEV half only.

    python bench/signals/train_detector.py --search        # compare feature blocks / C on dev (grouped CV)
    python bench/signals/train_detector.py --fit           # fit the chosen setting on all dev, write the npz

Protocol (session 5; RESULTS.md beside this file):
- model selection never sees the test half: cross-validation is leave-one-REPOSITORY-out inside dev
  (``LeaveOneGroupOut``, 11 folds), so every score is on an author the fold did not train on;
- no author defines "correction": a repository's examples weigh at most ``--cap`` examples in all
  (sample weights; one author holds 130 of the 198 dev positives), on top of class balancing;
- the operating point is precision-first: the lowest threshold whose pooled out-of-fold precision on
  dev is >= --precision (review time is the cost of a false positive);
- binary: rule candidate (any label but ``none``) or not.
Features come from memdown.signals.classifier.design_matrix, the same function the shipped detector
uses. Embeddings of ../shared text are cached under /tmp (never in the repository).
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
import evaluate_v2  # noqa: E402
import evaluate_v3  # noqa: E402

from memdown.signals import classifier as C  # noqa: E402

CLASS_OF = {"none": 0, "correction": 1, "convention": 1, "preference": 1, "remember": 1}
CACHE = Path("/tmp/memdown-detector-embed-cache.npz")
USE_CACHE = Path("/tmp/memdown-detector-use-cache.npz")
CHOSEN = {"embed": 0.0, "said": 0.0, "ngrams": 0.0, "dense": 3.0, "cues": 1.0, "C": 0.1, "cap": 80}


class CachedEmbed:
    """The packaged embedder (or another: ``load``) with an on-disk cache keyed by the text's sha1 (outside the repo)."""

    def __init__(self, cache: Path = CACHE, load=None) -> None:
        self.inner = None
        self.path, self.load = cache, load or C.packaged_embed
        self.cache: dict[str, np.ndarray] = {}
        if cache.exists():
            with np.load(cache) as data:
                self.cache = {k: data[k] for k in data.files}

    def __call__(self, texts):
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = [t for k, t in zip(keys, texts) if k not in self.cache]
        for start in range(0, len(missing), 64):  # saved as it goes: the shared machine is slow
            part = missing[start:start + 64]
            self.inner = self.inner or self.load()
            for k, vec in zip([hashlib.sha1(t.encode()).hexdigest() for t in part], self.inner(part)):
                self.cache[k] = vec
            np.savez(self.path, **self.cache)
            print(f"embedded {min(start + 64, len(missing))}/{len(missing)}", file=sys.stderr, flush=True)
        return np.stack([self.cache[k] for k in keys])


def dataset(shared: Path):
    """(example, class, repository, half, the shipped phrase+reaction detector flagged it) per labelled prompt.
    Dev is all of v2 and the v3 dev half (session 7's protocol); the v3 test half is never read here
    except as rows marked ``test``, which no search or fit touches."""
    labels = {**evaluate_v2.load_labels(), **evaluate_v3.load_labels()}
    v3_test = set(evaluate_v3.split()["test"])
    shipped = _shipped_flags(shared, {file for file, _ in labels})
    rows = []
    for prompt, turn, prev in iter_prompts(shared):
        label = labels.get((prompt.file, prompt.uuid))
        if label is not None:
            half = "test" if prompt.repo in v3_test else "dev"
            rows.append((C.example_of(turn.prompt, prev), CLASS_OF[label], prompt.repo, half,
                         shipped.get((prompt.file, prompt.uuid), False)))
    return rows


def _shipped_flags(shared: Path, files: set[str]) -> dict:
    from memdown.transcript.parser import parse_transcript

    turns = {rel: parse_transcript(shared / rel, include_subagents=False).turns for rel in sorted(files)}
    return evaluate_v2.phrase_detector(turns)


def repo_weights(groups, cap: int | None):
    """1 per example, scaled down so that no repository weighs more than ``cap`` examples."""
    w = np.ones(len(groups))
    if cap:
        for repo in set(groups):
            mask = groups == repo
            if mask.sum() > cap:
                w[mask] = cap / mask.sum()
    return w


def fit(X, y, setting, weights):
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=setting["C"], max_iter=3000, class_weight="balanced")
    return model.fit(X, y, sample_weight=weights)


def oof_scores(X, y, groups, setting):
    """Out-of-fold P(rule candidate), each repository scored by a model that never saw it."""
    from sklearn.model_selection import LeaveOneGroupOut

    out = np.zeros(len(y))
    weights = repo_weights(groups, setting.get("cap"))
    for train, held in LeaveOneGroupOut().split(X, y, groups):
        model = fit(X[train], y[train], setting, weights[train])
        out[held] = model.predict_proba(X[held])[:, 1]
    return out


def operating_point(scores, positive, min_precision):
    """(threshold, precision, recall): the lowest threshold whose precision is >= min_precision
    (with 5+ true positives); None when no threshold reaches it."""
    best = None
    for t in sorted(set(np.round(scores, 4)), reverse=True):
        flagged = scores >= t
        tp = int((flagged & positive).sum())
        precision, recall = pr(flagged, positive)
        if precision >= min_precision and tp >= 5:
            best = (float(t), precision, recall)
    return best


def pr(flagged, positive):
    tp = int((flagged & positive).sum())
    return tp / max(1, int(flagged.sum())), tp / max(1, int(positive.sum()))


def _spec(**kw):
    return {"embed": 0.0, "said": 0.0, "ngrams": 0.0, "dense": 0.0, "cues": 0.0, "shape": 0.0, "use": 0.0, **kw}


SEARCH = [
    _spec(dense=3.0, cues=1.0),                 # session 5's choice
    _spec(shape=1.0), _spec(shape=1.0, cues=1.0), _spec(shape=1.0, cues=1.0, dense=1.0),
    _spec(shape=1.0, cues=1.0, ngrams=1.0), _spec(use=1.0), _spec(shape=1.0, cues=1.0, use=1.0),
    _spec(shape=1.0, cues=1.0, dense=1.0, use=1.0), _spec(shape=1.0, cues=1.0, dense=1.0, ngrams=1.0, use=1.0),
]


def _dev(rows):
    dev = [r for r in rows if r[3] == "dev"]
    return [r[0] for r in dev], np.array([r[1] for r in dev]), np.array([r[2] for r in dev])


def _dev_shipped(rows):
    return np.array([r[4] for r in rows if r[3] == "dev"], dtype=bool)


def _summary(scores, positive, min_precision, shipped=None) -> dict:
    """AP, and recall/precision at each precision floor: the model alone and (``shipped``) the shipped
    phrase+reaction detector's flags joined with the model's (``union``)."""
    from sklearn.metrics import average_precision_score

    out = {"AP": round(float(average_precision_score(positive, scores)), 3)}
    for floor in (min_precision, 0.75):
        point = operating_point(scores, positive, floor)
        out[f"R@P>={floor}"] = [round(point[2], 3), round(point[1], 3)] if point else None
        if shipped is not None:
            point = operating_point(np.where(shipped, 2.0, scores), positive, floor)
            out[f"union R@P>={floor}"] = [round(point[2], 3), round(point[1], 3)] if point else None
    return out


def search(rows, embed, min_precision, specs=None, use=None):
    from scipy.sparse import csr_matrix

    examples, y, groups = _dev(rows)
    shipped = _dev_shipped(rows)
    print(json.dumps({"shipped (phrases+reactions)": [round(x, 3) for x in reversed(pr(shipped, y > 0))],
                      "dev prompts": len(y), "positives": int(y.sum()), "repositories": len(set(groups))}))
    for spec in [_spec(**s) for s in specs or SEARCH]:
        X = csr_matrix(C.design_matrix(examples, embed, spec, use))  # mostly empty n-gram buckets
        for c in (0.1, 0.3):
            setting = {**spec, "C": c, "cap": 80}
            scores = oof_scores(X, y, groups, setting)
            print(json.dumps({**setting, **_summary(scores, y > 0, min_precision, shipped)}), flush=True)


def combined(scores, shipped, veto: float, add: float):
    """The shipped detector's flags kept where the model scores >= ``veto``, plus the model's own >= ``add``."""
    return (shipped & (scores >= veto)) | (scores >= add)


def combine(rows, embed, setting, use=None) -> None:
    """Out-of-fold (dev, leave-one-repository-out): how the model best joins the shipped detector, as a veto
    on its flags and/or an addition of its own, per precision floor."""
    from scipy.sparse import csr_matrix

    examples, y, groups = _dev(rows)
    shipped, positive = _dev_shipped(rows), y > 0
    spec = {k: float(setting.get(k, 0.0)) for k in C.BLOCKS}
    scores = oof_scores(csr_matrix(C.design_matrix(examples, embed, spec, use)), y, groups, setting)
    grid = sorted(set(np.round(np.quantile(scores, np.linspace(0, 1, 41)), 4)) | {0.0, 1.01})
    best: dict[float, tuple] = {}
    for veto in grid:
        for add in grid:
            if add < veto:
                continue
            flagged = combined(scores, shipped, veto, add)
            p, r = pr(flagged, positive)
            for floor in (0.75, 0.8, 0.85):
                if p >= floor and r > best.get(floor, (0, 0, 0, 0))[1]:
                    best[floor] = (round(p, 3), round(r, 3), float(veto), float(add))
    print(json.dumps({"setting": setting, "shipped": [round(v, 3) for v in pr(shipped, positive)],
                      "best (P, R, veto, add) per floor": best}), flush=True)


def write_model(rows, embed, setting, min_precision, out: Path):
    from scipy.sparse import csr_matrix

    examples, y, groups = _dev(rows)
    spec = {k: float(setting.get(k, 0.0)) for k in C.BLOCKS}
    X = csr_matrix(C.design_matrix(examples, embed, spec))
    point = operating_point(oof_scores(X, y, groups, setting), y > 0, min_precision)
    if point is None:
        raise SystemExit(f"no threshold reaches out-of-fold precision {min_precision} on dev")
    threshold, p, r = point
    model = fit(X, y, setting, repo_weights(groups, setting.get("cap")))
    np.savez_compressed(out, coef=model.coef_.astype(np.float32), intercept=model.intercept_.astype(np.float32),
                        threshold=np.float32(threshold), feature_version=np.int32(C.FEATURE_VERSION),
                        **{f"scale_{k}": np.float32(v) for k, v in spec.items()})
    print(f"wrote {out} ({out.stat().st_size // 1024} KB): threshold {threshold:.3f}, dev leave-one-repository-out "
          f"P {p:.3f} R {r:.3f}, setting {json.dumps(setting)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--search", action="store_true")
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--combine", action="store_true", help="how the model best joins the shipped detector (dev)")
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
    use = CachedEmbed(USE_CACHE, C.multilingual_embed)
    if args.search:
        search(rows, embed, args.precision, args.specs, use)
    if args.combine:
        combine(rows, embed, args.setting, use)
    if args.fit:
        write_model(rows, embed, args.setting, args.precision, args.out)


if __name__ == "__main__":
    main()
