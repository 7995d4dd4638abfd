"""Recall on real coding history: ../shared/transcripts → `memdown import` → search, beside a plain BM25.

    python bench/eval_realhistory.py --split dev            # tune here
    python bench/eval_realhistory.py --split test           # report this, once, at the end
    python bench/eval_realhistory.py --split fresh          # the held-out set of session 9: the lead runs it once
    python bench/eval_realhistory.py --split fresh --check-labels   # pointers only: parse + import, no ranking
    python bench/eval_realhistory.py --split dev --repos natori-hrj-dotfiles --modes text   # a quick slice

Labels (``bench/realhistory/``, written before any ranking change): ``split.tsv`` splits the
repositories (one folder of ``../shared/transcripts/real`` each) into dev and test; ``questions.tsv``
holds questions of six kinds (fix, decision, command, location, preference, after = "what did we do
right after X") in the users' own languages, each with its evidence turns (transcript + turn uuid +
prompt index). Only those are committed, never transcript text.

``fresh`` (session 9, 2026-11-28) is a third, held-out half: 9 repositories that are in neither dev nor test
(Vietnamese, Polish, Italian, German, Chinese simplified and traditional, English), chosen before any of its 68
questions was written, labelled by someone who had not seen a ranking on them, and not run before the lead's
one end-of-session run. ``--split all`` is dev + test only, so no routine run touches it. ``--check-labels``
resolves every evidence pointer (the turn exists at that index in the parsed transcript, and the import
brings its anchor into the day files) without indexing or searching anything.

Each repository is one memory (a user's history), brought in by the service `memdown import` runs
(``services.capture.importer.find_transcripts`` + ``import_transcripts``, extractive entries), indexed with
every vector (embeddings cached under ``bench/.work/home``). A hit is a returned window that holds the
anchor of an evidence turn. Reported per system: hit@1/3/10, MRR@10 and the characters read up to and
including the first hit (over the questions hit in the top 10), per kind and per language. BM25 is
``realhistory/bm25.py``: Okapi over the same day files, one document per ``###`` entry, CJK bigrams.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work"
LABELS = HERE / "realhistory"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))
os.environ.setdefault("MEMDOWN_HOME", str(WORK / "home"))
os.environ.setdefault("LANCEDB_LOG", "error")
from conversation_memory import CAPTURE_CODE, SHARED  # noqa: E402
from quality import apply_tunes, every_vector  # noqa: E402
from realhistory.bm25 import BM25, entries  # noqa: E402

MODES = ("hybrid", "text", "vector")
K = 10
_ANCHOR_TURN = re.compile(r"<!--\s*session:\S+\s+turn:(\S+)")
IMPORT_CODE = ("services/capture/importer.py", "transcript/layout.py")
SPLITS = ("dev", "test", "fresh")
ALL = ("dev", "test")  # what ``--split all`` means: never the held-out fresh half


def load_questions(split: str, repos: set[str] | None = None) -> list[dict]:
    """The labelled questions of one split (``all``: dev + test)."""
    wanted = ALL if split == "all" else (split,)
    if not set(wanted) <= set(SPLITS):
        raise ValueError(f"unknown split {split!r}: one of {', '.join(SPLITS)} or all")
    rows = []
    for line in (LABELS / "questions.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        qid, qsplit, repo, kind, lang, question, evidence = line.split("\t")
        if qsplit not in wanted or (repos and repo not in repos):
            continue
        gold = []
        for item in evidence.split(";"):
            path, rest = item.split("#", 1)
            turn, index = rest.rsplit("@", 1)
            gold.append({"transcript": path, "turn": turn, "index": int(index)})
        rows.append({"id": qid, "split": qsplit, "repo": repo, "kind": kind, "lang": lang, "question": question,
                     "gold": gold})
    return rows


def _stamp(folder: Path) -> str:
    digest = hashlib.sha256()
    for rel in CAPTURE_CODE + IMPORT_CODE:
        code = REPO / "memdown" / rel
        for path in sorted(code.rglob("*.py")) if code.is_dir() else [code]:
            digest.update(path.read_bytes() if path.is_file() else rel.encode())
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(f"{path.relative_to(folder)}\0{path.stat().st_size}\0{path.stat().st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def import_memory(repo: str, overrides: dict[str, str], work: Path = WORK):
    """Import one repository's history into its own scratch memory, once per inputs and code (no index)."""
    from memdown.config import coerce, load_config
    from memdown.services.capture.importer import find_transcripts, import_transcripts

    folder = SHARED / "real" / repo
    config = load_config(None)
    config.values["archive"]["enabled"] = False
    every_vector(config)
    for key, raw in overrides.items():
        section, name = key.split(".", 1)
        config.values[section][name] = coerce(key, raw)
    built = sorted((k, v) for k, v in overrides.items() if not k.startswith("search."))
    ident = hashlib.sha1(json.dumps(built).encode()).hexdigest()[:8]
    root = work / "realhistory" / f"{repo}-{_stamp(folder)}-{ident}" / ".memdown"
    marker = root / "imported.json"
    if not marker.is_file():
        for old in (work / "realhistory").glob(f"{repo}-*-{ident}"):
            shutil.rmtree(old, ignore_errors=True)
        root.mkdir(parents=True)
        saved = os.environ.get("TZ")
        os.environ["TZ"] = "UTC"  # day files follow each turn's local time: every machine builds the same memory
        time.tzset()
        try:
            found = find_transcripts([folder], cwd=folder, root=root)
            report = import_transcripts(root, found, config=config, index=False)
        finally:
            os.environ.pop("TZ", None) if saved is None else os.environ.__setitem__("TZ", saved)
            time.tzset()
        marker.write_text(json.dumps({"transcripts": len(found), **report.to_dict()}))
    return root, config, json.loads(marker.read_text())


def build_memory(repo: str, overrides: dict[str, str], embedder=None, work: Path = WORK):
    """Import one repository's history (``import_memory``) and index it."""
    from memdown.api import Memory

    root, config, imported = import_memory(repo, overrides, work)
    mem = Memory(root, config=config, embedder=embedder)
    index = mem.index()
    print(f"{repo}: {imported['transcripts']} transcripts, {imported['sessions']} sessions, "
          f"{imported['entries']} entries; index {index.chunks_total} chunks, {index.embedded} embedded, "
          f"{index.seconds:.1f}s", file=sys.stderr)
    return mem, imported


def anchored_turns(memory_dir: Path) -> set[str]:
    """Turn uuids whose anchors are in a memory's day files."""
    turns: set[str] = set()
    for day in sorted(memory_dir.glob("????-??-??.md")):
        turns |= set(_ANCHOR_TURN.findall(day.read_text(encoding="utf-8", errors="replace")))
    return turns


def check_labels(split: str, repos: set[str] | None = None, *, work: Path = WORK, imported: bool = True) -> dict:
    """Resolve every evidence pointer of a split without indexing or searching: the turn is in the parsed
    transcript at its prompt index, and (``imported``) the import brings its anchor into the day files."""
    from memdown.transcript.parser import parse_transcript

    questions = load_questions(split, repos)
    parsed: dict[str, dict[str, int]] = {}
    problems: list[str] = []
    in_memory: dict[str, set[str]] = {}
    for q in questions:
        if imported and q["repo"] not in in_memory:
            root, _config, _report = import_memory(q["repo"], {}, work)
            in_memory[q["repo"]] = anchored_turns(root / "memory")
        for g in q["gold"]:
            path = SHARED / g["transcript"]
            if g["transcript"] not in parsed:
                turns = parse_transcript(path, include_subagents=False).turns if path.is_file() else []
                parsed[g["transcript"]] = {t.uuid: t.index for t in turns}
            where = f"{q['id']} {g['transcript']}#{g['turn']}@{g['index']}"
            if not path.is_file():
                problems.append(f"{where}: transcript not found")
            elif parsed[g["transcript"]].get(g["turn"]) != g["index"]:
                problems.append(f"{where}: no such turn at that index (parsed: {parsed[g['transcript']].get(g['turn'])})")
            elif imported and g["turn"] not in in_memory[q["repo"]]:
                problems.append(f"{where}: the import wrote no anchor for this turn")
    return {"split": split, "questions": len(questions), "pointers": sum(len(q["gold"]) for q in questions),
            "repos": len({q["repo"] for q in questions}), "imported": imported, "problems": problems}


def _first_hit(gold: set[str], windows: list[tuple[str, set[str]]]) -> tuple[int, int]:
    """(1-based rank of the first window holding a gold anchor or 0, characters read up to it)."""
    chars = 0
    for rank, (text, turns) in enumerate(windows[:K], 1):
        chars += len(text)
        if gold & turns:
            return rank, chars
    return 0, chars


def rank_repo(repo: str, questions: list[dict], modes: list[str], overrides: dict[str, str], *, embedder=None,
              work: Path = WORK) -> dict:
    """Every system's (rank, chars) for each question of one repository, and which gold turns exist."""
    mem, imported = build_memory(repo, overrides, embedder, work)
    day_files = sorted((mem.root / "memory").glob("????-??-??.md"))
    today = (datetime.date.fromisoformat(day_files[-1].stem) + datetime.timedelta(days=1)).isoformat() \
        if day_files else None
    in_memory = anchored_turns(mem.root / "memory")
    out: dict = {"ranks": {}, "unreachable": [], "imported": imported}
    bm25 = BM25(entries(mem.root / "memory"))
    for q in questions:
        gold = {g["turn"] for g in q["gold"]}
        if not gold & in_memory:
            out["unreachable"].append(q["id"])
        per: dict[str, tuple[int, int]] = {}
        for mode in modes:
            hits = mem.search(q["question"], k=K, mode=mode, refresh=False, today=today)
            windows = [((h.window.text if h.window is not None else h.text),
                        set(_ANCHOR_TURN.findall(h.window.text if h.window is not None else h.text)) or {h.turn})
                       for h in hits]
            per[mode] = _first_hit(gold, windows)
        docs = bm25.search(q["question"], K)
        per["bm25"] = _first_hit(gold, [(text, set(_ANCHOR_TURN.findall(text))) for _key, text in docs])
        out["ranks"][q["id"]] = per
    return out


def summarize(ranks: list[tuple[int, int]]) -> dict:
    n = len(ranks) or 1
    found = [c for r, c in ranks if r]
    return {"n": len(ranks), "hit@1": sum(1 for r, _ in ranks if r == 1) / n,
            "hit@3": sum(1 for r, _ in ranks if 0 < r <= 3) / n, "hit@10": sum(1 for r, _ in ranks if r) / n,
            "mrr": sum(1 / r for r, _ in ranks if r) / n, "chars": statistics.fmean(found) if found else 0.0}


def report(questions: list[dict], ranks: dict[str, dict], systems: list[str], by_repo: bool = False) -> dict:
    groups: dict[str, list[dict]] = {"all": questions}
    groups["non-English"] = [q for q in questions if q["lang"] != "en"]
    for q in questions:
        groups.setdefault(f"kind:{q['kind']}", []).append(q)
        groups.setdefault(f"lang:{q['lang']}", []).append(q)
    for q in questions if by_repo else []:  # a change that gains in most repositories, not a lot in one
        groups.setdefault(f"repo:{q['repo']}", []).append(q)
    return {g: {s: summarize([ranks[q["id"]][s] for q in qs]) for s in systems} for g, qs in groups.items()}


def print_report(table: dict, systems: list[str], header: str) -> None:
    print(header)
    width = max(16, *(len(group) for group in table))
    print(f"{'group':{width}} {'n':>3}  " + "  ".join(f"{s:>30}" for s in systems))
    print(f"{'':{width}} {'':>3}  " + "  ".join(f"{'h@1  h@3  h@10  MRR   chars':>30}" for _ in systems))
    for group, cells in table.items():
        n = next(iter(cells.values()))["n"]
        row = "  ".join(f"{c['hit@1']:.2f} {c['hit@3']:.2f} {c['hit@10']:5.2f} {c['mrr']:5.3f} {c['chars']:6.0f}"
                        .rjust(30) for c in (cells[s] for s in systems))
        print(f"{group:{width}} {n:3d}  {row}")


def run(split: str, modes: list[str], repos: set[str] | None = None, overrides: dict[str, str] | None = None, *,
        embedder=None, work: Path = WORK, per_repo: bool = False) -> dict:
    started = time.perf_counter()
    questions = load_questions(split, repos)
    by_repo: dict[str, list[dict]] = {}
    for q in questions:
        by_repo.setdefault(q["repo"], []).append(q)
    ranks: dict[str, dict] = {}
    unreachable: list[str] = []
    imported = {}
    for repo, qs in sorted(by_repo.items()):
        got = rank_repo(repo, qs, modes, overrides or {}, embedder=embedder, work=work)
        ranks.update(got["ranks"])
        unreachable += got["unreachable"]
        imported[repo] = got["imported"]
    systems = list(modes) + ["bm25"]
    return {"split": split, "questions": len(questions), "repos": len(by_repo), "systems": systems,
            "table": report(questions, ranks, systems, per_repo), "ranks": ranks, "unreachable": sorted(unreachable),
            "imported": imported, "seconds": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="dev",
                        help="all = dev + test; fresh is the held-out half, run once by the lead")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--repos", default="", help="only these repositories (comma-separated)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override")
    parser.add_argument("--embedder", choices=["packaged", "use-m3"], default="packaged",
                        help="use-m3: the multilingual candidate of realhistory/use_embedder.py (bench only)")
    parser.add_argument("--tune", action="append", default=[], metavar="MODULE.NAME=VALUE",
                        help="a ranking constant of memdown.services.recall.{fusion,sequence,windows}, e.g. fusion.FUSION_K=60 (dev only)")
    parser.add_argument("--misses", action="store_true", help="each question's rank per system (dev only, please)")
    parser.add_argument("--check-labels", action="store_true",
                        help="only resolve the split's evidence pointers (parse + import); no index, no search")
    parser.add_argument("--by-repo", action="store_true", help="one row per repository too (is a gain broad?)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not SHARED.is_dir():
        parser.error(f"{SHARED} is absent: this benchmark reads real transcripts from ../shared")
    if args.check_labels:
        sys.exit(_print_check(check_labels(args.split, {r for r in args.repos.split(",") if r} or None), args.json))
    apply_tunes(args.tune, parser.error)
    embedder, work = None, WORK
    if args.embedder == "use-m3":
        from realhistory.use_embedder import USEEmbedder

        embedder, work = USEEmbedder(WORK / "use-m3-cache" / "vectors"), WORK / "use-m3"
    out = run(args.split, [m for m in args.modes.split(",") if m], {r for r in args.repos.split(",") if r} or None,
              dict(item.split("=", 1) for item in args.set), embedder=embedder, work=work, per_repo=args.by_repo)
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print_report(out["table"], out["systems"],
                 f"split={out['split']} questions={out['questions']} repositories={out['repos']} (k={K})")
    if out["unreachable"]:
        print(f"evidence not in memory at all (import or capture dropped it): {', '.join(out['unreachable'])}")
    if args.misses:
        for qid, per in out["ranks"].items():
            print(f"  {qid:8} " + "  ".join(f"{s} {r or '-'}" for s, (r, _c) in per.items()))
    print(f"total {out['seconds']:.1f}s")


def _print_check(out: dict, as_json: bool) -> int:
    if as_json:
        print(json.dumps(out, indent=1))
    else:
        print(f"split={out['split']}: {out['questions']} questions, {out['pointers']} evidence pointers, "
              f"{out['repos']} repositories; unresolved {len(out['problems'])}")
        for problem in out["problems"]:
            print(f"  {problem}")
    return 1 if out["problems"] else 0


if __name__ == "__main__":
    main()
