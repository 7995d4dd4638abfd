"""Redaction quality and speed on the labelled corpora.

    python bench/secrets/evaluate.py                 # test half: before vs after
    python bench/secrets/evaluate.py --split dev     # the half used for tuning
    python bench/secrets/evaluate.py --errors        # every leak and every changed FP line
    python bench/secrets/evaluate.py --before REF    # "before" = memdown/redact.py at git REF

Figures:
- formats leaked: a format leaks when any of its cases in the split keeps a
  10-character piece of its secret after ``redact`` (``corpus.leaked``);
- false-positive rate: the fraction of non-empty lines of the FP corpus that
  ``redact`` changes (every line there is secret-free by construction);
- throughput: MB per CPU-second of ``redact`` over the FP corpus plus the secret cases.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

from corpus import REPO, leaked, load_cases, load_fp_units  # noqa: E402

BEFORE_REF = "733dd24"  # the last commit with the single-file memdown/redact.py


def before_redact(ref: str):
    source = subprocess.run(["git", "-C", str(REPO), "show", f"{ref}:memdown/redact.py"],
                            capture_output=True, text=True, check=True).stdout
    module = types.ModuleType("redact_before")
    exec(compile(source, f"{ref}:memdown/redact.py", "exec"), module.__dict__)  # noqa: S102 -- our own code
    return module.redact


def after_redact(with_detect_secrets: bool):
    import memdown.redact as redaction

    def run(text: str) -> str:
        redaction.enable_maintained_detectors(with_detect_secrets)
        return redaction.redact(text)

    return run


def leak_report(redact, cases) -> tuple[dict[str, list[str]], int]:
    leaks: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        if leaked(case.secret, redact(case.text)):
            leaks[case.format].append(case.id)
    return leaks, len({c.format for c in cases})


def fp_report(redact, units) -> tuple[int, int, list[tuple[str, str, str]], dict[str, list[int]]]:
    changed, total = 0, 0
    examples: list[tuple[str, str, str]] = []
    per_source: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, _split, text in units:
        out = redact(text)
        src = name.split(":", 1)[0]
        before_lines = [ln for ln in text.splitlines()]
        after_lines = out.splitlines()
        same_shape = len(before_lines) == len(after_lines)
        for i, line in enumerate(before_lines):
            if not line.strip():
                continue
            total += 1
            per_source[src][1] += 1
            differs = (after_lines[i] != line) if same_shape else (line not in out)
            if differs:
                changed += 1
                per_source[src][0] += 1
                examples.append((name, line[:300], (after_lines[i] if same_shape else "")[:300]))
    return changed, total, examples, per_source


def throughput(redact, texts: list[str]) -> tuple[float, float]:
    blob = "\n".join(texts)
    size = len(blob.encode("utf-8")) / 1e6
    start = time.process_time()  # CPU seconds: the cores are shared, wall time measures the neighbours
    redact(blob)
    return size, size / (time.process_time() - start)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=["dev", "test", "all"], default="test")
    ap.add_argument("--before", default=BEFORE_REF, help="git ref of the old single-file redact.py")
    ap.add_argument("--errors", action="store_true")
    ap.add_argument("--no-before", action="store_true", help="skip the old code")
    args = ap.parse_args()

    cases = [c for c in load_cases() if args.split in ("all", c.split)]
    units = [u for u in load_fp_units() if args.split in ("all", u[1])]
    fp_lines = sum(1 for _n, _s, t in units for ln in t.splitlines() if ln.strip())
    print(f"split={args.split}: {len(cases)} secret cases in {len({c.format for c in cases})} formats; "
          f"FP corpus {len(units)} units, {fp_lines} lines")
    variants = [] if args.no_before else [("before", before_redact(args.before))]
    variants.append(("after: hooks, CLI", after_redact(False)))
    variants.append(("after: worker, + detect-secrets", after_redact(True)))
    for label, redact in variants:
        redact("warm up")  # a lazily loaded detector is not part of the throughput
        leaks, n_formats = leak_report(redact, cases)
        changed, total, examples, per_source = fp_report(redact, units)
        size, rate = throughput(redact, [t for _n, _s, t in units] + [c.text for c in cases])
        print(f"\n[{label}] formats leaked: {len(leaks)} of {n_formats} "
              f"(cases leaked: {sum(map(len, leaks.values()))} of {len(cases)})")
        if leaks:
            print("  leaked formats: " + ", ".join(sorted(leaks)))
        print(f"[{label}] false positives: {changed} of {total} lines changed = {changed / max(total, 1):.4%}")
        print("  by source: " + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(per_source.items())))
        print(f"[{label}] throughput: {rate:.2f} MB per CPU-second over {size:.1f} MB")
        if args.errors:
            by_id = {c.id: c for c in cases}
            for fmt in sorted(leaks):
                for cid in leaks[fmt]:
                    print(f"  LEAK {cid}: {redact(by_id[cid].text)!r}"[:400])
            for name, line, out in examples[:200]:
                print(f"  FP {name}: {line!r}\n      -> {out!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
