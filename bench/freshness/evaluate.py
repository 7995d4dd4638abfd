"""The freshness benchmark (issue #28 item 4): does memdown tell which memories no longer hold?

For each labelled memory (bench/freshness/labels.jsonl, made by build.py from real release history and
labelled with Python's ``ast``), the repository is checked out at the release the memory was written
at and memdown records its citations the way capture does (``services.recall.staleness.record``, live: the
working tree holds the change); then the repository is checked out at a later release and memdown
judges the memory (``Judge.judge``: fresh / changed / moved / gone / unknown). Reported: precision and
recall of "no longer holds" (changed, moved or gone) and of each state, per split; and the cost of
judging ten hits, cold (empty cache) and warm (the cache a previous search left).

    python bench/freshness/build.py
    python bench/freshness/evaluate.py [--split test]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE))

from build import LABELS, REPOS, git  # noqa: E402

from memdown.services.recall.staleness import Judge, record  # noqa: E402

STALE = {"changed", "moved", "gone"}


def predict(rows: list[dict], memory_root: Path) -> list[dict]:
    by_package: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_package[row["package"]].append(row)
    for package, items in by_package.items():
        repo = REPOS / package
        for tag in sorted({r["written_at"] for r in items}):
            git(repo, "checkout", "-q", "-f", tag)
            for row in (r for r in items if r["written_at"] == tag):
                row["commit"], row["cites"] = record(repo, row["text"], [], datetime.now(), live=True)
        for tag in sorted({r["checked_at"] for r in items}):
            git(repo, "checkout", "-q", "-f", tag)
            judge = Judge(memory_root, repo)
            for row in (r for r in items if r["checked_at"] == tag):
                verdict = judge.judge(row["commit"], row["cites"], row["text"], "")
                row["predicted"] = verdict["state"]
                row["predicted_moved_to"] = next((c["moved_to"] for c in verdict["cited"] if c.get("moved_to")), "")
    return rows


def _pr(rows: list[dict], truth: set[str], predicted: set[str]) -> tuple[float, float, int, int]:
    tp = sum(1 for r in rows if r["truth"] in truth and r["predicted"] in predicted)
    flagged = sum(1 for r in rows if r["predicted"] in predicted)
    actual = sum(1 for r in rows if r["truth"] in truth)
    return (tp / flagged if flagged else float("nan")), (tp / actual if actual else float("nan")), flagged, actual


def cost(rows: list[dict], memory_root: Path, per_search: int = 10, searches: int = 20) -> tuple[float, float]:
    """Median ms to judge ``per_search`` memories: cold (no cache) and warm (cache from the same search)."""
    by_package: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_package[row["checked_at"] + "|" + row["package"]].append(row)
    cold, warm = [], []
    for key, items in list(by_package.items())[:searches]:
        tag, package = key.split("|")
        repo = REPOS / package
        git(repo, "checkout", "-q", "-f", tag)
        batch = items[:per_search]
        cache = Path(tempfile.mkdtemp(dir=memory_root))
        for runs in (cold, warm):
            started = time.perf_counter()
            judge = Judge(cache, repo)
            for row in batch:
                judge.judge(row["commit"], row["cites"], row["text"], "")
            judge.save()
            runs.append((time.perf_counter() - started) * 1000 * per_search / max(1, len(batch)))
    return statistics.median(cold), statistics.median(warm)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    args = parser.parse_args()
    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if args.split == "all" or r["split"] == args.split]
    with tempfile.TemporaryDirectory() as scratch:
        memory_root = Path(scratch)
        os.makedirs(memory_root / "state", exist_ok=True)
        predict(rows, memory_root)
        for split in sorted({r["split"] for r in rows}):
            part = [r for r in rows if r["split"] == split]
            p, r, flagged, actual = _pr(part, STALE, STALE)
            unknown = sum(1 for x in part if x["predicted"] == "unknown")
            print(f"{split}: {len(part)} memories, {actual} no longer hold; memdown flags {flagged}: "
                  f"precision {p:.3f}, recall {r:.3f} (unknown: {unknown})")
            for state in ("changed", "moved", "gone"):
                ps, rs, fs, acts = _pr(part, {state}, {state})
                print(f"  {state:8} precision {ps:.3f} recall {rs:.3f} (predicted {fs}, labelled {acts})")
            moved_right = sum(1 for x in part if x["truth"] == x["predicted"] == "moved" and x["predicted_moved_to"] == x["moved_to"])
            print(f"  moved_to right: {moved_right} of {sum(1 for x in part if x['truth'] == 'moved')}")
            wrong = [x for x in part if (x["truth"] in STALE) != (x["predicted"] in STALE)]
            for x in wrong[:6]:
                print(f"    miss: {x['package']} {x['path']} {x['symbol']} {x['written_at']}->{x['checked_at']}: "
                      f"truth {x['truth']}, memdown {x['predicted']}")
        cold, warm = cost(rows, memory_root)
        print(f"cost of judging 10 hits: cold {cold:.1f} ms, warm {warm:.1f} ms (median; load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
