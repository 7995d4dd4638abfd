"""Retrieval quality on the labelled set in bench/retrieval/.

    python bench/eval_retrieval.py                       # dev split, current settings
    python bench/eval_retrieval.py --split test          # the held-out half (report this, never tune on it)
    python bench/eval_retrieval.py --set chunking.max_chars=400 --set search.candidate_depth=20

Prints recall@5, recall@10, MRR@10 and the characters returned in the top 10,
for hybrid, vector-only and text-only, overall and per query type. Uses the
public API (memdown.api.Memory) with the real packaged model; embeddings are
cached under bench/.work/ so re-runs with other search settings are fast.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
DATA = HERE / "retrieval"
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("MEMDOWN_HOME", str(WORK / "home"))
os.environ.setdefault("LANCEDB_LOG", "error")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from quality import apply_tunes, every_vector  # noqa: E402

from memdown.api import Memory  # noqa: E402
from memdown.config import coerce, load_config  # noqa: E402

MODES = ("hybrid", "vector", "text")


def load_queries(split: str) -> list[dict]:
    rows = [json.loads(line) for line in (DATA / "queries.jsonl").read_text().splitlines() if line.strip()]
    return [r for r in rows if split == "all" or r["split"] == split]


def build_memory(overrides: dict[str, str]) -> Memory:
    config = load_config(None)
    every_vector(config)
    for key, raw in overrides.items():
        section, name = key.split(".", 1)
        config.values[section][name] = coerce(key, raw)
    built = sorted((k, v) for k, v in overrides.items() if not k.startswith("search."))  # search.* share one index
    ident = hashlib.sha1(json.dumps(built).encode()).hexdigest()[:10]
    root = WORK / f"retrieval-{ident}" / ".memdown"
    corpus = DATA / "corpus"
    target = root / "memory"
    if not target.is_dir() or sorted(p.name for p in target.iterdir()) != sorted(p.name for p in corpus.iterdir()):
        shutil.rmtree(root, ignore_errors=True)
        target.mkdir(parents=True)
        for path in corpus.glob("*.md"):
            shutil.copy2(path, target / path.name)
    mem = Memory(root, config=config)
    report = mem.index()
    print(f"index: {report.chunks_total} chunks, {report.embedded} embedded, {report.seconds:.1f}s "
          f"({'rebuilt: ' + report.rebuild_reason if report.rebuilt else 'incremental'})", file=sys.stderr)
    return mem


def relevant_keys(query: dict) -> set[tuple[str, str]]:
    return {(r["file"], r["heading"]) for r in query["relevant"]}


def hit_key(hit) -> tuple[str, str]:
    return (hit.source.rsplit("/", 1)[-1], hit.heading.split(" > ")[-1].strip())


def hit_keys(hit) -> list[tuple[str, str]]:
    """Every entry a hit shows: its window's sections (their heading lines), or the unit's own."""
    if hit.window is None or hit.window.stale:
        return [hit_key(hit)]
    file = hit.source.rsplit("/", 1)[-1]
    heads = [line.lstrip("#").strip() for line in hit.window.text.splitlines() if line.startswith("#")]
    return [(file, h) for h in heads] or [hit_key(hit)]


def shown(hit) -> str:
    return hit.window.text if hit.window is not None else hit.text


def within_budget(hits, budget: int):
    """The leading hits whose text fits in ``budget`` characters (equal-context comparison)."""
    kept, used = [], 0
    for hit in hits:
        if used + len(shown(hit)) > budget and kept:
            break
        kept.append(hit)
        used += len(shown(hit))
    return kept


def evaluate(mem: Memory, queries: list[dict], mode: str, k: int = 10, budget: int = 0) -> dict:
    per_type: dict[str, list[dict]] = defaultdict(list)
    latencies = []
    for q in queries:
        gold = relevant_keys(q)
        started = time.perf_counter()
        hits = mem.search(q["query"], k=50 if budget else k, mode=mode, refresh=False)
        latencies.append(time.perf_counter() - started)
        if budget:
            hits = within_budget(hits, budget)
        keys = [hit_keys(h) for h in hits]  # per hit, every entry it shows
        top = len(keys) if budget else 10
        found5 = len(gold & {key for ks in keys[:5] for key in ks}) / len(gold)
        found10 = len(gold & {key for ks in keys[:top] for key in ks}) / len(gold)
        rr = next((1.0 / (i + 1) for i, ks in enumerate(keys[:top]) if gold & set(ks)), 0.0)
        chars = sum(len(shown(h)) for h in hits[:top])
        row = {"r5": found5, "r10": found10, "mrr": rr, "chars": chars}
        per_type[q["type"]].append(row)
        per_type["ALL"].append(row)
    summary = {}
    for qtype, rows in per_type.items():
        summary[qtype] = {
            "n": len(rows),
            "recall@5": statistics.fmean(r["r5"] for r in rows),
            "recall@10": statistics.fmean(r["r10"] for r in rows),
            "mrr@10": statistics.fmean(r["mrr"] for r in rows),
            "chars@10": statistics.fmean(r["chars"] for r in rows),
        }
    summary["ALL"]["median_ms"] = 1000 * statistics.median(latencies)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--tune", action="append", default=[], metavar="MODULE.NAME=VALUE",
                        help="a ranking constant of memdown.services.MODULE, e.g. fusion.FUSION_K=60 (dev only)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--by-type", action="store_true")
    parser.add_argument("--budget", type=int, default=0,
                        help="compare at equal context: keep hits until their text reaches N chars (recall@10 columns then mean recall within the budget)")
    args = parser.parse_args()
    apply_tunes(args.tune, parser.error)
    overrides = dict(item.split("=", 1) for item in args.set)
    mem = build_memory(overrides)
    queries = load_queries(args.split)
    results = {mode: evaluate(mem, queries, mode, budget=args.budget) for mode in args.modes.split(",")}
    if args.json:
        print(json.dumps({"split": args.split, "overrides": overrides, "results": results}, indent=1))
        return
    print(f"split={args.split} queries={len(queries)} overrides={overrides or 'defaults'}")
    print(f"{'mode':8} {'recall@5':>9} {'recall@10':>10} {'MRR@10':>8} {'chars@10':>9} {'ms':>6}")
    for mode, summary in results.items():
        s = summary["ALL"]
        print(f"{mode:8} {s['recall@5']:9.3f} {s['recall@10']:10.3f} {s['mrr@10']:8.3f} {s['chars@10']:9.0f} {s['median_ms']:6.1f}")
    if args.by_type:
        types = sorted(t for t in next(iter(results.values())) if t != "ALL")
        for qtype in types:
            cells = "  ".join(f"{mode}: r@10 {results[mode][qtype]['recall@10']:.2f} mrr {results[mode][qtype]['mrr@10']:.2f}"
                              for mode in results)
            print(f"  {qtype:12} n={results['hybrid'][qtype]['n'] if 'hybrid' in results else ''}  {cells}")


if __name__ == "__main__":
    main()
