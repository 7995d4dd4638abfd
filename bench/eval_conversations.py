"""Recall on conversations: transcripts → memdown's own capture path → index → search.

    python bench/eval_conversations.py --split dev     # tune here
    python bench/eval_conversations.py --split test    # report this, never tune on it
    python bench/eval_conversations.py --limit 5 --no-real --modes text   # a quick smoke run

Material (see bench/conversations/build.py):
- our own multi-session conversations, ``bench/conversations/synthetic/*.jsonl`` (committed);
- the real Claude Code transcripts in ``../shared/transcripts`` when present (skipped cleanly when
  absent; only their file names and turn uuids are committed, in questions_real.tsv).

Every transcript goes through ``memdown.services.capture.record.record_session`` with the extractive
summarizer (no ``claude``) into a scratch memory under ``bench/.work/``, then ``Memory.index()``
with the packaged model (embeddings cached under ``bench/.work/home`` so re-runs are fast).
Questions go through the public API only: ``Memory.search`` and ``Memory.expand``.

A question's gold evidence is a set of turns (transcript + turn uuid). A returned text covers a
turn when it holds that turn's anchor. Rows:
- ``recall@5`` / ``recall@10``: gold turns among the top 5 / 10 hits (one hit per section);
- ``units top10``: only the matched units of the top 10 (what the text view shows), with their size;
- ``sections top10``: the top 10 hits each widened to its section as ``expand`` shows it;
- ``budget N chars`` / ``budget N turns``: hits in rank order, each widened to its section, a section
  already read not counted twice, until the next one would pass N characters (or N turns) —
  what the agent reads at a fixed amount of context;
- ``bm25 sections``: plain BM25 (LanceDB full-text search, no vectors) over whole sections, same budgets.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work"
DATA = HERE / "conversations"
sys.path.insert(0, str(REPO))
os.environ.setdefault("MEMDOWN_HOME", str(WORK / "home"))
os.environ.setdefault("LANCEDB_LOG", "error")
sys.path.insert(0, str(HERE))
from conversation_memory import (  # noqa: E402,F401  (SHARED, build_memory, capture_memory, _capture_all: other benches take them from here)
    SHARED, _capture_all, build_memory, capture_memory, transcripts,
)

MODES = ("hybrid", "vector", "text")
CHAR_BUDGETS = (4000, 8000)
TURN_BUDGETS = (10, 20)
FETCH = 60  # hits fetched per question: enough to fill the largest budget
WINDOW_K = 20  # windows fetched per question (fetch depth stays windows.DEPTH, as for the skill's -k 10)
_ANCHOR_TURN = re.compile(r"<!--\s*session:\S+\s+turn:(\S+)")


def load_questions(split: str, *, with_real: bool) -> list[dict]:
    rows = [json.loads(line) for line in (DATA / "questions.jsonl").read_text().splitlines() if line.strip()]
    rows = [r for r in rows if split == "all" or r["split"] == split]
    return [r for r in rows if with_real or r["source"] != "real"]


def covered_turns(text: str) -> set[str]:
    return set(_ANCHOR_TURN.findall(text))


@dataclass
class Window:
    """One thing the agent reads: a section as `expand` shows it."""
    key: tuple[str, int]
    text: str
    turns: set[str] = field(default_factory=set)


def within(windows: list[Window], *, chars: int = 0, turns: int = 0) -> list[Window]:
    """Leading windows, each counted once, until the next would pass the budget (the first always fits)."""
    kept: list[Window] = []
    seen: set[tuple[str, int]] = set()
    used_chars = used_turns = 0
    for w in windows:
        if w.key in seen:
            continue
        n_turns = max(1, len(w.turns))
        if kept and ((chars and used_chars + len(w.text) > chars) or (turns and used_turns + n_turns > turns)):
            break
        kept.append(w)
        seen.add(w.key)
        used_chars += len(w.text)
        used_turns += n_turns
    return kept


class Expander:
    """`Memory.expand` for each hit, cached: the same section is read once per run."""

    def __init__(self, mem) -> None:
        self.mem = mem
        self.cache: dict[str, Window] = {}

    def window(self, hit) -> Window:
        if hit.window is not None:  # search ranked windows: read what it returns, not the section
            w = hit.window
            return Window((w.source, w.start_line), w.text, covered_turns(w.text) or {hit.turn})
        if hit.id not in self.cache:
            exp = self.mem.expand(hit.id)
            self.cache[hit.id] = Window((exp.source, exp.start_line), exp.text, covered_turns(exp.text) or {exp.turn})
        return self.cache[hit.id]


class SectionBM25:
    """Plain BM25 over whole `###` sections (LanceDB full-text search, no vectors, no memdown text prep)."""

    def __init__(self, root: Path, where: Path) -> None:
        import lancedb
        from lancedb.index import FTS

        from memdown.index.textprep import FTS_OPTIONS
        from memdown.store.chunker import chunk_markdown

        rows = []
        for path in sorted((root / "memory").glob("*.md")):
            text = path.read_text(encoding="utf-8")
            lines = text.split("\n")
            spans = {(c.section_start, c.section_end) for c in chunk_markdown(path.name, text)}
            for start, end in sorted(spans):
                body = "\n".join(lines[start - 1 : end])
                rows.append({"key": f"{path.name}:{start}", "text": body})
        shutil.rmtree(where, ignore_errors=True)
        self.table = lancedb.connect(str(where)).create_table("sections", data=rows)
        self.table.create_index("text", config=FTS(**FTS_OPTIONS))

    def windows(self, query: str, k: int) -> list[Window]:
        try:
            rows = self.table.search(query, query_type="fts").limit(k).to_list()
        except (ValueError, RuntimeError):
            return []  # a query with no searchable term
        out = []
        for r in rows:
            source, start = r["key"].rsplit(":", 1)
            out.append(Window((source, int(start)), r["text"], covered_turns(r["text"])))
        return out


def score(gold: set[str], windows: list[Window]) -> tuple[float, int, int]:
    got: set[str] = set()
    for w in windows:
        got |= w.turns
    return len(gold & got) / len(gold), sum(len(w.text) for w in windows), sum(max(1, len(w.turns)) for w in windows)


ROWS = (["recall@5", "recall@10", "units top10", "sections top10"]
        + [f"budget {c} chars" for c in CHAR_BUDGETS] + [f"budget {t} turns" for t in TURN_BUDGETS])


def evaluate_ranked(questions: list[dict], ranked: dict[str, tuple[list[Window], list[int]]]) -> dict[str, dict]:
    """Per row: mean recall, mean chars and turns read, and per-type recall."""
    out: dict[str, dict] = {}
    for row in ROWS:
        recalls, chars, turns_read, by_type, misses = [], [], [], {}, []
        for q in questions:
            gold = {g["turn"] for g in q["gold"]}
            windows, unit_chars = ranked[q["id"]]
            if row == "recall@5":
                r, c, t = score(gold, windows[:5])
            elif row in ("recall@10", "sections top10"):
                r, c, t = score(gold, windows[:10])
            elif row == "units top10":
                r, _, t = score(gold, windows[:10])
                c = sum(unit_chars[:10])
            elif row.endswith("chars"):
                r, c, t = score(gold, within(windows, chars=int(row.split()[1])))
            else:
                r, c, t = score(gold, within(windows, turns=int(row.split()[1])))
            recalls.append(r)
            chars.append(c)
            turns_read.append(t)
            by_type.setdefault(q["type"], []).append(r)
            by_type.setdefault(f"source:{q['source']}", []).append(r)
            if r < 1:
                misses.append(f"{q['id']} {r:.2f}")
        out[row] = {"recall": statistics.fmean(recalls), "chars": statistics.fmean(chars),
                    "turns": statistics.fmean(turns_read),
                    "by_type": {k: statistics.fmean(v) for k, v in sorted(by_type.items())}, "misses": misses}
    return out


def run(split: str, *, modes: list[str], with_real: bool, limit: int = 0, bm25: bool = True,
        overrides: dict[str, str] | None = None, work: Path = WORK, only: str = "", embedder=None,
        shared: frozenset[str] | None = None) -> dict:
    """The whole benchmark; ``only`` keeps the synthetic transcripts (and their questions) whose name starts so."""
    started = time.perf_counter()
    questions = load_questions(split, with_real=with_real)
    if only:
        questions = [q for q in questions if all(g["transcript"].startswith(f"synthetic/{only}") for g in q["gold"])]
    if limit:
        questions = questions[:limit]
    mem, captured = build_memory(with_real, overrides or {}, work=work, only=only, embedder=embedder, shared=shared)
    n_real = sum(not name.startswith("synthetic/") for name, _ in transcripts(with_real, only, shared))
    build_s = time.perf_counter() - started
    expander = Expander(mem)
    # Relative dates in questions ("in March") count from the day after the newest entry, not the
    # clock, so the figures do not drift with the date the benchmark runs.
    days = sorted(p.stem for p in (mem.root / "memory").glob("????-??-??.md"))
    today = (datetime.date.fromisoformat(days[-1]) + datetime.timedelta(days=1)).isoformat() if days else None
    results: dict[str, dict] = {}
    latency: dict[str, float] = {}
    # Windows: the number the skill asks for (fetch depth, and so the ranking, is then the product's);
    # units: deep enough to fill the largest budget after widening each to its section.
    k = WINDOW_K if mem.config["search.window_chars"] > 0 else FETCH
    for mode in modes:
        ranked, times = {}, []
        for q in questions:
            t0 = time.perf_counter()
            hits = mem.search(q["question"], k=k, mode=mode, refresh=False, today=today)
            times.append(time.perf_counter() - t0)
            ranked[q["id"]] = ([expander.window(h) for h in hits], [len(h.text) for h in hits])
        results[mode] = evaluate_ranked(questions, ranked)
        latency[mode] = 1000 * statistics.median(times) if times else 0.0
    if bm25:
        index = SectionBM25(mem.root, work / "conversations-bm25")
        ranked = {}
        for q in questions:
            windows = index.windows(q["question"], FETCH)
            ranked[q["id"]] = (windows, [len(w.text) for w in windows])
        results["bm25 sections"] = evaluate_ranked(questions, ranked)
    in_memory: set[str] = set()
    for day in sorted((mem.root / "memory").glob("*.md")):
        in_memory |= covered_turns(day.read_text(encoding="utf-8", errors="replace"))
    unreachable = sorted(q["id"] for q in questions if not any(g["turn"] in in_memory for g in q["gold"]))
    types: dict[str, int] = {}
    for q in questions:
        types[q["type"]] = types.get(q["type"], 0) + 1
    return {"split": split, "questions": len(questions), "types": types, "memory": captured,
            "real_transcripts": with_real and n_real, "unreachable": unreachable, "results": results,
            "median_search_ms": latency,
            "build_seconds": build_s, "seconds": time.perf_counter() - started}


def print_table(report: dict, by_type: bool, misses: bool = False) -> None:
    print(f"split={report['split']} questions={report['questions']} "
          f"({', '.join(f'{k} {v}' for k, v in sorted(report['types'].items()))}); "
          f"memory: {report['memory']['sessions']} sessions, {report['memory']['turns']} turns; "
          f"real transcripts: {report['real_transcripts'] or 'ABSENT (synthetic only)'}")
    if report["unreachable"]:
        print(f"gold turns not in memory at all (capture dropped them): {', '.join(report['unreachable'])}")
    print(f"{'system':14} {'row':18} {'recall':>7} {'chars':>7} {'turns':>6}")
    for system, rows in report["results"].items():
        for row, cell in rows.items():
            if system == "bm25 sections" and row in ("recall@5", "units top10"):
                continue
            print(f"{system:14} {row:18} {cell['recall']:7.3f} {cell['chars']:7.0f} {cell['turns']:6.1f}")
    if by_type:
        print("\nper type, recall at the 4000-char budget:")
        for system, rows in report["results"].items():
            cells = rows[f"budget {CHAR_BUDGETS[0]} chars"]["by_type"]
            print(f"  {system:14} " + "  ".join(f"{k} {v:.2f}" for k, v in cells.items()))
    if misses:
        print(f"\nquestions not fully answered within the {CHAR_BUDGETS[0]}-char budget (id, recall):")
        for system, rows in report["results"].items():
            print(f"  {system:14} " + ", ".join(rows[f"budget {CHAR_BUDGETS[0]} chars"]["misses"]))
    ms = ", ".join(f"{m} {v:.0f} ms" for m, v in report["median_search_ms"].items())
    print(f"\nmedian search: {ms}; build (capture + index) {report['build_seconds']:.1f}s; total {report['seconds']:.1f}s")


def read_shared_set(path: Path | None, with_real: bool, error) -> frozenset[str] | None:
    """``--shared-set FILE``: the ../shared transcript names it lists (None without it); ``error`` on a bad file."""
    if path is None:
        return None
    try:
        listed = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        error(f"--shared-set: {exc.strerror}: {path}")
    shared = frozenset(ln.strip() for ln in listed if ln.strip()[:1] not in ("", "#"))
    if with_real and (absent := sorted(n for n in shared if not (SHARED / n).is_file())):
        error(f"{len(absent)} transcripts of {path} are not in {SHARED}, e.g. {absent[0]}")
    return shared


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--no-real", action="store_true", help="leave out ../shared/transcripts even when present")
    parser.add_argument("--shared-set", type=Path, metavar="FILE",
                        help="only the ../shared transcripts FILE names (bench/conversations/shared_2026-11-22.txt)")
    parser.add_argument("--no-bm25", action="store_true")
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions (smoke runs)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override")
    parser.add_argument("--tune", action="append", default=[], metavar="NAME=VALUE",
                        help="set a ranking constant of memdown.services.recall.windows (e.g. REST_SHARE=0.5), dev only")
    parser.add_argument("--by-type", action="store_true")
    parser.add_argument("--misses", action="store_true", help="list the questions each system misses (dev only, please)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--latency", action="store_true",
                        help="only warm search latency: LanceDB's hybrid query vs memdown units vs windows")
    args = parser.parse_args()
    with_real = not args.no_real and SHARED.is_dir()
    shared = read_shared_set(args.shared_set, with_real, parser.error)
    if args.tune:
        from memdown.services.recall import windows
        for item in args.tune:
            name, value = item.split("=", 1)
            if not hasattr(windows, name):
                parser.error(f"memdown.services.recall.windows has no {name}")
            setattr(windows, name, type(getattr(windows, name))(value))
    if args.latency:
        from eval_conversations_latency import latency

        questions = load_questions(args.split, with_real=with_real)[: args.limit or None]
        for name, ms in latency(questions).items():
            print(f"{name:28} {ms:7.1f} ms")
        return
    report = run(args.split, modes=[m for m in args.modes.split(",") if m], with_real=with_real, limit=args.limit,
                 bm25=not args.no_bm25, overrides=dict(item.split("=", 1) for item in args.set), shared=shared)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_table(report, args.by_type, args.misses)


if __name__ == "__main__":
    main()
