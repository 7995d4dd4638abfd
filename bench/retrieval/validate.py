#!/usr/bin/env python3
"""Validate the retrieval benchmark (corpus/ + queries.jsonl) and print counts.

Checks
  corpus   every day file is `YYYY-MM-DD.md` with a matching `# YYYY-MM-DD` title;
           entries are `### HH:MM` under a `## Session HH:MM`, followed by one anchor
           comment and 2-8 bullets; entry headings are unique within a file;
           total size < 2 MB; minimum counts (>= 90 files, >= 400 entries);
           corpus/ is exactly what make_corpus.py generates from source/.
  queries  ids unique and well-formed; known type; split in {dev, test};
           every relevant (file, heading) exists exactly once in the corpus;
           no duplicate relevant pairs or duplicate query texts;
           multi_entry queries have >= 2 relevant entries;
           dev/test balanced overall and within each type (difference <= 1);
           minimum counts (>= 160 queries, >= 25 paraphrase, >= 20 identifier+path,
           >= 20 multi_entry, >= 20 distractor).

Usage: python bench/retrieval/validate.py [--show]   (--show prints each query with the
text of its relevant entries, for manual label review). Exit status 1 on any failure.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
QUERIES = HERE / "queries.jsonl"

TYPES = ["paraphrase", "decision", "temporal", "multi_entry", "identifier", "path", "error", "distractor"]
ANCHOR_RE = re.compile(
    r"^<!-- session:[0-9a-f-]{36} turn:[0-9a-f-]{36} transcript:\S+\.jsonl -->$"
)
errors: list[str] = []


def err(msg: str) -> None:
    errors.append(msg)


def parse_corpus() -> dict[str, dict[str, list[str]]]:
    """Return {filename: {heading: [lines of the entry]}}; records format errors."""
    files: dict[str, dict[str, list[str]]] = {}
    for path in sorted(CORPUS.glob("*")):
        name = path.name
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}\.md", name):
            err(f"corpus: unexpected file {name}")
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        if not lines or lines[0] != f"# {name[:-3]}":
            err(f"{name}: first line must be '# {name[:-3]}'")
        entries: dict[str, list[str]] = {}
        heading_count: Counter[str] = Counter()
        in_session = False
        cur: str | None = None
        for n, line in enumerate(lines[1:], 2):
            if re.fullmatch(r"## Session \d{2}:\d{2}", line):
                in_session, cur = True, None
            elif m := re.fullmatch(r"### (\d{2}:\d{2})", line):
                if not in_session:
                    err(f"{name}:{n}: entry before any session")
                cur = m.group(1)
                heading_count[cur] += 1
                entries[cur] = []
            elif line.startswith("#"):
                err(f"{name}:{n}: unexpected heading {line!r}")
            elif cur is not None and line:
                entries[cur].append(line)
        for h, c in heading_count.items():
            if c != 1:
                err(f"{name}: heading {h} occurs {c} times")
        for h, body in entries.items():
            if not body or not ANCHOR_RE.match(body[0]):
                err(f"{name} {h}: missing/malformed anchor comment")
            bullets = [b for b in body[1:] if b.startswith("- ")]
            if len(bullets) != len(body) - 1:
                err(f"{name} {h}: non-bullet line in entry")
            if not 2 <= len(bullets) <= 8:
                err(f"{name} {h}: {len(bullets)} bullets (want 2-8)")
        files[name] = entries
    return files


def check_generated() -> None:
    sys.path.insert(0, str(HERE))
    try:
        import make_corpus as mc  # noqa: PLC0415
    except Exception as e:  # pragma: no cover
        err(f"cannot import make_corpus.py: {e}")
        return
    days: dict[str, list] = {}
    for src in sorted(mc.SOURCE.glob("*.md")):
        days.update(mc.parse(src.read_text(encoding="utf-8"), src.name))
    expected = {f"{d}.md": mc.render(d, s) for d, s in days.items()}
    actual = {p.name: p.read_text(encoding="utf-8") for p in CORPUS.glob("*.md")}
    if set(expected) != set(actual):
        err(f"corpus/ file set differs from make_corpus.py output "
            f"(missing {sorted(set(expected) - set(actual))[:5]}, extra {sorted(set(actual) - set(expected))[:5]})")
    stale = [n for n in expected if n in actual and expected[n] != actual[n]]
    if stale:
        err(f"corpus/ is stale vs source/ for {len(stale)} files, e.g. {stale[:3]}; re-run make_corpus.py")


def main() -> int:
    show = "--show" in sys.argv[1:]
    files = parse_corpus()
    check_generated()
    n_files = len(files)
    n_entries = sum(len(e) for e in files.values())
    size = sum(p.stat().st_size for p in CORPUS.glob("*.md"))
    if n_files < 90:
        err(f"only {n_files} day files (< 90)")
    if n_entries < 400:
        err(f"only {n_entries} entries (< 400)")
    if size >= 2 * 1024 * 1024:
        err(f"corpus is {size} bytes (>= 2 MB)")

    queries = [json.loads(line) for line in QUERIES.read_text(encoding="utf-8").splitlines() if line.strip()]
    ids = Counter(q.get("id") for q in queries)
    for qid, c in ids.items():
        if c > 1:
            err(f"duplicate id {qid}")
        if not re.fullmatch(r"q\d{3,}", str(qid)):
            err(f"malformed id {qid!r}")
    texts = Counter(q.get("query", "").strip().lower() for q in queries)
    for t, c in texts.items():
        if c > 1:
            err(f"duplicate query text {t!r}")

    by_type_split: dict[str, Counter[str]] = defaultdict(Counter)
    n_rel = 0
    for q in queries:
        qid = q.get("id")
        if set(q) != {"id", "query", "relevant", "type", "split"}:
            err(f"{qid}: keys {sorted(q)}")
        if q.get("type") not in TYPES:
            err(f"{qid}: unknown type {q.get('type')!r}")
        if q.get("split") not in ("dev", "test"):
            err(f"{qid}: bad split {q.get('split')!r}")
        if not str(q.get("query", "")).strip():
            err(f"{qid}: empty query")
        rel = q.get("relevant") or []
        if not rel:
            err(f"{qid}: no relevant entries")
        pairs = [(r.get("file"), r.get("heading")) for r in rel]
        if len(set(pairs)) != len(pairs):
            err(f"{qid}: duplicate relevant entries")
        for f, h in pairs:
            if f not in files:
                err(f"{qid}: relevant file {f} not in corpus")
            elif h not in files[f]:
                err(f"{qid}: heading {h} not found in {f}")
        if q.get("type") == "multi_entry" and len(rel) < 2:
            err(f"{qid}: multi_entry with {len(rel)} relevant")
        n_rel += len(rel)
        by_type_split[q.get("type")][q.get("split")] += 1
        if show:
            print(f"\n=== {qid} [{q.get('type')}/{q.get('split')}] {q.get('query')}")
            for f, h in pairs:
                body = files.get(f, {}).get(h, [])
                print(f"  -> {f} {h}")
                for b in body[1:]:
                    print(f"       {b[:200]}")

    total = Counter(q.get("split") for q in queries)
    if abs(total["dev"] - total["test"]) > 1:
        err(f"unbalanced split: {dict(total)}")
    for t, c in by_type_split.items():
        if abs(c["dev"] - c["test"]) > 1:
            err(f"type {t}: unbalanced split {dict(c)}")
    tcount = {t: sum(by_type_split[t].values()) for t in TYPES}
    if len(queries) < 160:
        err(f"only {len(queries)} queries (< 160)")
    for t, need in (("paraphrase", 25), ("multi_entry", 20), ("distractor", 20)):
        if tcount[t] < need:
            err(f"only {tcount[t]} {t} queries (< {need})")
    if tcount["identifier"] + tcount["path"] < 20:
        err("fewer than 20 identifier+path queries")
    referenced = {(r["file"], r["heading"]) for q in queries for r in q.get("relevant", [])}

    print(f"corpus : {n_files} day files, {n_entries} entries, {size / 1024:.0f} KiB, "
          f"{min(files)[:-3]} .. {max(files)[:-3]}")
    print(f"queries: {len(queries)} ({total['dev']} dev / {total['test']} test), "
          f"{n_rel} relevant labels, {len(referenced)} distinct entries referenced")
    print(f"{'type':<12} {'total':>5} {'dev':>5} {'test':>5}")
    for t in TYPES:
        c = by_type_split[t]
        print(f"{t:<12} {tcount[t]:>5} {c['dev']:>5} {c['test']:>5}")
    if errors:
        print(f"\nFAIL: {len(errors)} problem(s)")
        for e in errors:
            print("  - " + e)
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
