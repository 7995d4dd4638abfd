"""memsearch on memdown's conversation recall benchmark, counted exactly as memdown is.

    python bench/eval_conversations_memsearch.py --split dev
    python bench/eval_conversations_memsearch.py --split test     # report this, run once
    MEMSEARCH_VENV=/path/to/venv python bench/eval_conversations_memsearch.py --split test

The memory is the one ``bench/eval_conversations.py`` builds (its own ``build_memory``: every
transcript through memdown's capture path, extractive summarizer). memsearch 0.4.23 indexes that
``memory/`` folder with its defaults (hybrid dense + BM25 with RRF, heading chunking up to 1,500
characters, 2 lines of overlap, no reranker), run offline on memdown's packaged MiniLM through the
Hugging Face cache ``bench/memsearch_side.py`` lays out, with its truncation set to the model's 512
tokens and mean pooling (``--memsearch-pooling cls`` keeps its own CLS pooling; see memsearch_side.py). Each question goes
through ``MemSearch.search(question, top_k=60)`` in memsearch's own venv; hits are kept in rank order.

Mapping a hit to turns: memsearch returns each chunk's file (``source``) and line range
(``start_line``/``end_line``); the chunk covers the turns whose session anchors
(``<!-- session:… turn:… -->``) lie in those lines of the markdown file. (Its ``content`` holds the same
lines; the script reports how often the two ways disagree.) The characters read are the chunk's
``content``. Rows and budgets are eval_conversations' own ``evaluate_ranked``: recall@5/@10 over the first
5/10 chunks, and chunks in rank order, each counted once, until the next would pass 4,000 / 8,000
characters (or 10 / 20 turns). memdown's hybrid (its final ranking, windows) is run in the same process
on the same memory for the side-by-side table. Without memsearch the script prints one line and exits 0.

The two sides can run apart (memsearch's indexing of the whole set takes tens of minutes and ~5 GB):
``--side memsearch`` captures the memory (no memdown index), runs memsearch and writes its hits, the
settings, time and load to ``--hits FILE``; ``--side memdown`` then runs memdown on the same memory and
questions and reads memsearch's hits from that file for the table.

    python bench/eval_conversations_memsearch.py --split test --side memsearch --hits bench/.work/ms-test.json
    python bench/eval_conversations_memsearch.py --split test --side memdown --hits bench/.work/ms-test.json
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import eval_conversations as ec  # noqa: E402  (memory, questions, scoring, shared)
import memsearch_side as vs  # noqa: E402  (HF cache, venv lookup, fair settings, shared)
from quality import apply_tunes  # noqa: E402

WORK = ec.WORK / "memsearch-recall"

_SEARCH = vs.PRELUDE + """
import asyncio, json, sys
from memsearch.cli import cli
from memsearch.core import MemSearch
args = json.loads(sys.stdin.read())
common = ["--provider", "onnx", "--model", args["model"], "--milvus-uri", args["db"]]
cli(["index", args["memory"], *common, "--force"], standalone_mode=False)
m = MemSearch([args["memory"]], embedding_provider="onnx", embedding_model=args["model"], milvus_uri=args["db"])
async def go():
    out = {}
    for q in args["questions"]:
        hits = await m.search(q["question"], top_k=args["k"])
        out[q["id"]] = [{k: h.get(k) for k in ("source", "start_line", "end_line", "content", "score")} for h in hits]
    return out
print(json.dumps(asyncio.run(go())))
"""


def run_memsearch(python: Path, memory: Path, questions: list[dict], k: int,
                  settings: vs.Settings) -> dict[str, list[dict]]:
    WORK.mkdir(parents=True, exist_ok=True)
    db = WORK / "milvus.db"
    env = vs.memsearch_env(ec.WORK / "vs-memsearch", WORK / "home", settings)
    if db.exists():
        shutil.rmtree(db) if db.is_dir() else db.unlink()
    payload = json.dumps({"memory": str(memory), "model": vs.HF_MODEL, "db": str(db), "k": k,
                          "questions": [{"id": q["id"], "question": q["question"]} for q in questions]})
    # memsearch's own progress (stderr) goes where ours does: a long run can be followed in its log.
    proc = subprocess.run([str(python), "-c", _SEARCH], input=payload, env=env, text=True, cwd=WORK,
                          stdout=subprocess.PIPE)
    if proc.returncode != 0:
        raise SystemExit(f"memsearch search failed (exit {proc.returncode}; its stderr is above)")
    *said, last = proc.stdout.strip().splitlines()
    print("memsearch: " + " ".join(line.strip() for line in said if line.strip()), file=sys.stderr)
    return json.loads(last)


def windows_from_hits(hits: list[dict], lines_of) -> tuple[list[ec.Window], int]:
    """(windows in rank order, number of hits whose content anchors differ from their line range's)."""
    out, disagree = [], 0
    for h in hits:
        lines = lines_of(h["source"])
        by_lines = ec.covered_turns("\n".join(lines[h["start_line"] - 1 : h["end_line"]]))
        if by_lines != ec.covered_turns(h["content"] or ""):
            disagree += 1
        out.append(ec.Window((h["source"], h["start_line"]), h["content"] or "", by_lines))
    return out, disagree


def memsearch_side(args, python: Path, questions: list[dict], with_real: bool, shared) -> dict:
    """memsearch's hits for these questions on the captured memory, with how they were made."""
    root, _, _ = ec.capture_memory(with_real, {}, shared=shared)
    settings = vs.Settings(512, args.memsearch_pooling)
    load_before, started = vs.load(), time.perf_counter()
    hits = run_memsearch(python, root / "memory", questions, ec.FETCH, settings)
    return {"hits": hits, "settings": settings.describe(), "memory": str(root / "memory"),
            "seconds": time.perf_counter() - started, "load": f"before {load_before}, after {vs.load()}"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--no-real", action="store_true", help="leave out ../shared/transcripts even when present")
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions (smoke runs)")
    parser.add_argument("--shared-set", type=Path, metavar="FILE",
                        help="only the ../shared transcripts FILE names (bench/conversations/shared_2026-11-22.txt)")
    parser.add_argument("--memsearch-venv", help="venv with memsearch[onnx] (default $MEMSEARCH_VENV, ../memsearch-venv)")
    parser.add_argument("--by-type", action="store_true")
    parser.add_argument("--memsearch-pooling", choices=["mean", "cls"], default="mean",
                        help="memsearch's pooling (default mean, as fastembed pools this model; cls = its own)")
    parser.add_argument("--side", choices=["both", "memsearch", "memdown"], default="both",
                        help="memsearch: only its hits, written to --hits; memdown: memdown, memsearch's from --hits")
    parser.add_argument("--hits", type=Path, help="memsearch's hits (JSON), written by --side memsearch")
    parser.add_argument("--tune", action="append", default=[], metavar="MODULE.NAME=VALUE",
                        help="memdown's side: a ranking constant of memdown.services.recall (an ablation)")
    args = parser.parse_args()
    apply_tunes(args.tune, parser.error)
    if args.side != "both" and args.hits is None:
        parser.error(f"--side {args.side} needs --hits FILE")
    with_real = not args.no_real and ec.SHARED.is_dir()
    shared = ec.read_shared_set(args.shared_set, with_real, parser.error)
    questions = ec.load_questions(args.split, with_real=with_real)[: args.limit or None]
    if args.side == "memdown":
        try:
            side = json.loads(args.hits.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            parser.error(f"--hits: cannot read memsearch's hits: {exc}")
        if missing := [q["id"] for q in questions if q["id"] not in side["hits"]]:
            parser.error(f"--hits {args.hits} has no hits for {len(missing)} questions, e.g. {missing[0]}")
    else:
        python = vs.find_memsearch(args.memsearch_venv)
        if python is None:
            print("skipped: memsearch is not installed (see bench/bench_vs_memsearch.py for its venv)")
            return 0
        side = memsearch_side(args, python, questions, with_real, shared)
        if args.side == "memsearch":
            args.hits.write_text(json.dumps(side), encoding="utf-8")
            print(f"memsearch: {len(side['hits'])} questions answered in {side['seconds']:.0f}s, load "
                  f"{side['load']}; hits written to {args.hits}")
            return 0
    load_before = vs.load()
    report = ec.run(args.split, modes=["hybrid"], with_real=with_real, limit=args.limit, bm25=False, shared=shared)
    if (memory := str(ec.capture_memory(with_real, {}, shared=shared)[0] / "memory")) != side["memory"]:
        print(f"warning: memsearch indexed {side['memory']}, memdown {memory} (the captured memory changed)")
    files: dict[str, list[str]] = {}

    def lines_of(source: str) -> list[str]:
        if source not in files:
            files[source] = Path(source).read_text(encoding="utf-8").split("\n")
        return files[source]

    ranked, disagree, total = {}, 0, 0
    for q in questions:
        windows, bad = windows_from_hits(side["hits"][q["id"]], lines_of)
        ranked[q["id"]] = (windows, [len(w.text) for w in windows])
        disagree += bad
        total += len(windows)
    report["results"] = {"memdown hybrid": report["results"]["hybrid"],
                         "memsearch": ec.evaluate_ranked(questions, ranked)}
    report["median_search_ms"] = {"memdown hybrid": report["median_search_ms"]["hybrid"]}
    ec.print_table(report, args.by_type)
    print(f"memsearch {vs.MEMSEARCH_VERSION}: {side['settings']}")
    print(f"memsearch {vs.MEMSEARCH_VERSION}: top_k={ec.FETCH}, {total} hits; hits whose content anchors differ "
          f"from their line range's: {disagree}; its index + search {side['seconds']:.0f}s, load {side['load']}")
    print(f"memdown: load before {load_before}, after {vs.load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
