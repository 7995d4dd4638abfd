"""The placement corpus (issue #27) through the archive's redaction, case by case (quick).

    python bench/secrets/placements/evaluate.py --split dev [--seed N] [--errors]

Each case is written as a one-turn Claude Code transcript and redacted as the archive does
(``transcript.archive.redact_jsonl``: every JSON line through ``redact_structure``); a case leaks
when any 10-character piece of its secret survives (``bench/secrets/corpus.leaked``). Prints leaks by group, family and
placement (the dev half holds session 9's generated families, ``generated.py``, after the original cases). ``run_writers.py`` measures the same corpus through the real hooks, import, index,
search, expand and transcript.
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent.parent.parent))

import cases as placements  # noqa: E402
from corpus import leaked  # noqa: E402  (bench/secrets/corpus.py)


def archived(case: placements.Case) -> str:
    from memdown.transcript.archive import redact_jsonl

    raw = placements.transcript_lines([case], "sess-eval", "/work/project").encode()
    return redact_jsonl(raw).decode()


def _unescaped(text: str) -> str:
    import json

    out = []
    for line in text.splitlines():
        try:
            out.append(json.dumps(json.loads(line), ensure_ascii=False).replace("\\n", "\n").replace('\\"', '"'))
        except ValueError:
            out.append(line)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--errors", action="store_true")
    args = ap.parse_args(argv)
    seed, cases = placements.build(args.seed)
    cases = [c for c in cases if args.split in ("all", c.split)]
    by_group: collections.Counter[str] = collections.Counter()
    leaks: collections.Counter[str] = collections.Counter()
    by_placement: collections.Counter[str] = collections.Counter()
    by_family: collections.Counter[str] = collections.Counter()
    family_leaks: collections.Counter[str] = collections.Counter()
    for case in cases:
        by_group[case.group] += 1
        by_family[case.family or "original"] += 1
        out = _unescaped(archived(case))
        if leaked(case.secret, out):
            leaks[case.group] += 1
            family_leaks[case.family or "original"] += 1
            by_placement[case.placement] += 1
            if args.errors:
                print(f"LEAK {case.id}: {case.text[:160]!r}")
    total = sum(leaks.values())
    print(f"seed {seed}, split {args.split}: {total} of {len(cases)} cases leak into the archive "
          f"({total / max(1, len(cases)):.1%})")
    for group, n in sorted(by_group.items()):
        print(f"  {group:<11} {leaks[group]:>3} of {n}")
    print("  by family (original = the corpus written in session 7; others generated.py, dev only): " + ", ".join(
        f"{f} {family_leaks[f]} of {n}" for f, n in by_family.items()))
    print("  by placement: " + ", ".join(f"{p} {n}" for p, n in by_placement.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
