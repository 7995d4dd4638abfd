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
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import eval_conversations as ec  # noqa: E402  (memory, questions, scoring, shared)
import memsearch_side as vs  # noqa: E402  (HF cache, venv lookup, fair settings, shared)

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
    proc = subprocess.run([str(python), "-c", _SEARCH], input=payload, env=env, text=True, cwd=WORK,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise SystemExit(f"memsearch search failed:\n{proc.stderr[-2000:]}")
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--no-real", action="store_true", help="leave out ../shared/transcripts even when present")
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions (smoke runs)")
    parser.add_argument("--memsearch-venv", help="venv with memsearch[onnx] (default $MEMSEARCH_VENV, ../memsearch-venv)")
    parser.add_argument("--by-type", action="store_true")
    parser.add_argument("--memsearch-pooling", choices=["mean", "cls"], default="mean",
                        help="memsearch's pooling (default mean, as fastembed pools this model; cls = its own)")
    args = parser.parse_args()
    python = vs.find_memsearch(args.memsearch_venv)
    if python is None:
        print("skipped: memsearch is not installed (see bench/bench_vs_memsearch.py for its venv)")
        return 0
    with_real = not args.no_real and ec.SHARED.is_dir()
    load_before = vs.load()
    report = ec.run(args.split, modes=["hybrid"], with_real=with_real, limit=args.limit, bm25=False)
    questions = ec.load_questions(args.split, with_real=with_real)[: args.limit or None]
    mem, _ = ec.build_memory(with_real, {})
    memory = mem.root / "memory"
    settings = vs.Settings(512, args.memsearch_pooling)
    hits = run_memsearch(python, memory, questions, ec.FETCH, settings)
    files: dict[str, list[str]] = {}

    def lines_of(source: str) -> list[str]:
        if source not in files:
            files[source] = Path(source).read_text(encoding="utf-8").split("\n")
        return files[source]

    ranked, disagree, total = {}, 0, 0
    for q in questions:
        windows, bad = windows_from_hits(hits[q["id"]], lines_of)
        ranked[q["id"]] = (windows, [len(w.text) for w in windows])
        disagree += bad
        total += len(windows)
    report["results"] = {"memdown hybrid": report["results"]["hybrid"],
                         "memsearch": ec.evaluate_ranked(questions, ranked)}
    report["median_search_ms"] = {"memdown hybrid": report["median_search_ms"]["hybrid"]}
    ec.print_table(report, args.by_type)
    print(f"memsearch {vs.MEMSEARCH_VERSION}: {settings.describe()}")
    print(f"memsearch {vs.MEMSEARCH_VERSION}: top_k={ec.FETCH}, {total} hits; hits whose content anchors differ "
          f"from their line range's: {disagree}")
    print(f"load: before {load_before}, after {vs.load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
