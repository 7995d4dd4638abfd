"""Calibrates and checks "no strong match" (services/recall/match.py) on unanswerable questions.

    python bench/eval_weak_match.py --split dev            # features and the threshold grid (tune here)
    python bench/eval_weak_match.py --split test           # the held-out half: report this

The unanswerable questions (bench/retrieval/unanswerable.jsonl, bench/conversations/unanswerable.jsonl)
were written and split before any calibration. Answerable questions are each set's own labelled queries
(same split). For each question the default search (hybrid, k=10) runs on the set's memory and its
``match`` record is read; a question is "flagged" when ``match.weak`` is true. Reports, per set and
overall: the share of unanswerable questions flagged (want high) and of answerable ones wrongly flagged
(want low). ``--grid`` prints both for a grid of thresholds instead of the shipped ones.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import eval_conversations  # noqa: E402  (sets MEMDOWN_HOME to bench/.work)
import eval_retrieval  # noqa: E402
from memdown.services import match as match_mod  # noqa: E402


def _rows(path: Path, split: str) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if split == "all" or r["split"] == split]


def questions(split: str, with_real: bool) -> dict[str, list[tuple[str, bool]]]:
    """set name -> [(question, answerable)]."""
    retrieval = [(q["query"], True) for q in eval_retrieval.load_queries(split)]
    retrieval += [(q["query"], False) for q in _rows(eval_retrieval.DATA / "unanswerable.jsonl", split)]
    conversations = [(q["question"], True) for q in eval_conversations.load_questions(split, with_real=with_real)]
    conversations += [(q["query"], False) for q in _rows(eval_conversations.DATA / "unanswerable.jsonl", split)]
    return {"retrieval": retrieval, "conversations": conversations}


def features(split: str, with_real: bool) -> dict[str, list[tuple[bool, float | None, float]]]:
    """set name -> [(answerable, cosine, term_share)] from the default search."""
    mems = {"retrieval": eval_retrieval.build_memory({}),
            "conversations": eval_conversations.build_memory(with_real, {})[0]}
    for mem in mems.values():
        _wait_for_vectors(mem.root)
    out: dict[str, list[tuple[bool, float | None, float]]] = {}
    for name, items in questions(split, with_real).items():
        mem = mems[name]
        out[name] = []
        for text, answerable in items:
            hits = mem.search(text, k=10, refresh=False)
            m = hits[0].match if hits else {"cosine": None, "term_share": 0.0}
            out[name].append((answerable, m["cosine"], m["term_share"]))
    return out


def _wait_for_vectors(root: Path) -> None:
    """A large memory is built text first (index.defer_vectors_above): the cosine needs every vector."""
    import time

    from memdown.services.upkeep.text_first import ensure_filler, pending_vectors

    while pending_vectors(root):
        ensure_filler(root)
        print(f"waiting for {pending_vectors(root)} vectors of {root.parent.name}", file=sys.stderr)
        time.sleep(15)


def rates(rows: list[tuple[bool, float | None, float]], cos_t: float, share_t: float) -> tuple[float, float, int, int]:
    saved = match_mod.WEAK_COSINE, match_mod.WEAK_TERM_SHARE
    match_mod.WEAK_COSINE, match_mod.WEAK_TERM_SHARE = cos_t, share_t
    try:
        unans = [match_mod.judge(c, s) for a, c, s in rows if not a]
        ans = [match_mod.judge(c, s) for a, c, s in rows if a]
    finally:
        match_mod.WEAK_COSINE, match_mod.WEAK_TERM_SHARE = saved
    return (sum(unans) / max(1, len(unans)), sum(ans) / max(1, len(ans)), len(unans), len(ans))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--no-real", action="store_true", help="leave out ../shared/transcripts")
    parser.add_argument("--grid", action="store_true", help="a grid of thresholds (dev only, please)")
    parser.add_argument("--dump", type=Path, help="write the per-question features as JSON here")
    args = parser.parse_args()
    feats = features(args.split, not args.no_real)
    if args.dump:
        args.dump.write_text(json.dumps(feats))
    every = [row for rows in feats.values() for row in rows]
    if args.grid:
        print("cosine  share   unanswerable flagged   answerable flagged")
        for cos_t in (0.35, 0.38, 0.40, 0.42, 0.45, 0.48, 0.50):
            for share_t in (0.34, 0.4, 0.5, 0.6, 0.67, 0.75, 1.01):
                u, a, _, _ = rates(every, cos_t, share_t)
                print(f"{cos_t:.2f}    {share_t:.2f}    {u:6.1%}                 {a:6.1%}")
        return
    print(f"split {args.split}; thresholds cosine < {match_mod.WEAK_COSINE}, term share < {match_mod.WEAK_TERM_SHARE}")
    for name, rows in [*feats.items(), ("all", every)]:
        u, a, nu, na = rates(rows, match_mod.WEAK_COSINE, match_mod.WEAK_TERM_SHARE)
        print(f"{name:<14} unanswerable flagged {u:6.1%} (of {nu})   answerable wrongly flagged {a:6.1%} (of {na})")


if __name__ == "__main__":
    main()
