"""Damage on real text (issue #27.6): which lines of ../shared/transcripts does ``redact`` change?

    python bench/secrets/damage.py --half report [--sample 100 --seed 1 --show]

Lines: every non-empty line of every string a transcript entry's message holds (prompts, answers,
thinking, tool inputs and results), deduplicated per file. Each string is redacted whole (rules
see neighbouring lines) and compared line by line. Repositories (``real/<owner-repo>``) are split
in halves by ``sha256(name)``: ``tune`` to look at while changing rules, ``report`` for the figure.
``--sample N`` draws N changed lines at random (``--show`` prints them to label by hand:
real secret / harmless / damaging). Labels live in ``damage_labels.jsonl`` (report half) and
``damage_labels_tune.jsonl`` (tune half, session 8, with the damaging class) as a line's hash and its
label only: the third-party text is read in place, never copied into the repository.
"""
from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))
TRANSCRIPTS = Path(os.environ.get("MEMDOWN_SHARED_TRANSCRIPTS", REPO.parent / "shared" / "transcripts"))
LABELS = HERE / "damage_labels.jsonl"


def half_of(repo: str) -> str:
    return "tune" if hashlib.sha256(repo.encode()).digest()[0] % 2 == 0 else "report"


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in ("signature", "id", "tool_use_id", "data", "source"):
                yield from _strings(v)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def files(half: str) -> Iterator[tuple[str, Path]]:
    for folder in sorted(p for p in (TRANSCRIPTS / "real").iterdir() if p.is_dir()):
        if half in ("all", half_of(folder.name)):
            for path in sorted(folder.rglob("*.jsonl")):
                yield folder.name, path


def texts(path: Path) -> Iterator[str]:
    seen: set[str] = set()
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        msg = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(msg, dict):
            continue
        for text in _strings(msg.get("content")):
            if text.strip() and text not in seen and len(text) < 400_000:
                seen.add(text)
                yield text


def changed_lines(text: str, redacted: str) -> Iterator[tuple[str, str]]:
    before, after = text.split("\n"), redacted.split("\n")
    if len(before) == len(after):
        yield from ((b, a) for b, a in zip(before, after) if b != a)
        return
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if op != "equal":
            yield "\n".join(before[i1:i2]), "\n".join(after[j1:j2])


def line_id(line: str) -> str:
    return hashlib.sha256(line.encode()).hexdigest()[:16]


def measure(half: str) -> tuple[int, list[dict]]:
    from memdown.redact import redact

    total, changed = 0, []
    for repo, path in files(half):
        seen_lines: set[str] = set()
        for text in texts(path):
            lines = [ln for ln in text.split("\n") if ln.strip() and ln not in seen_lines]
            seen_lines.update(lines)
            total += len(lines)
            red = redact(text)
            if red != text:
                for before, after in changed_lines(text, red):
                    if before.strip():
                        changed.append({"repo": repo, "file": path.name, "id": line_id(before),
                                        "before": before, "after": after})
    return total, changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--half", default="report", choices=("tune", "report", "all"))
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--dump", help="write every changed line to this JSONL (outside the repository)")
    ap.add_argument("--labels", type=Path, default=LABELS, help="labels file (damage_labels_tune.jsonl: the tune half)")
    args = ap.parse_args(argv)
    if not TRANSCRIPTS.is_dir():
        print("../shared/transcripts is absent")
        return 0
    t0 = time.process_time()
    total, changed = measure(args.half)
    unique = {c["id"]: c for c in changed}
    print(f"{args.half} half: {len(changed)} of {total} lines changed ({len(changed) / max(1, total):.3%}); "
          f"{len(unique)} distinct; {time.process_time() - t0:.0f} CPU-s")
    if args.dump:
        Path(args.dump).write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in changed))
    if args.sample:
        labels = {}
        if args.labels.exists():
            for line in args.labels.read_text().splitlines():
                row = json.loads(line)
                labels[row["id"]] = row["label"]
        sample = random.Random(args.seed).sample(sorted(unique.values(), key=lambda c: c["id"]),
                                                 min(args.sample, len(unique)))
        counts: dict[str, int] = {}
        for c in sample:
            label = labels.get(c["id"], "unlabelled")
            counts[label] = counts.get(label, 0) + 1
            if args.show:
                print(f"--- {c['id']} [{label}] {c['repo']}\n- {c['before'][:300]!r}\n+ {c['after'][:300]!r}")
        print("sample of", len(sample), "changed lines:", counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
