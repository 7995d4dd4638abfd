"""A small mutation check on memdown's core promises.

Each mutant is a one-line change that breaks a promise: the lock, the atomic
write, redaction, hybrid fusion, the CLAUDE.md backup. For each one this
script copies the source tree to a scratch folder (the real tree is never
edited), applies the mutant there, runs the tests that guard that promise and
reports whether they went red (killed) or stayed green (survived).

Mutants find their line by regex, inside a named function where that
matters, so ordinary edits elsewhere in a file do not move them; a mutant
whose line is gone prints "not applicable" instead of failing.

    .venv/bin/python bench/mutation.py              # every mutant
    .venv/bin/python bench/mutation.py --list       # what would run, and whether it applies
    .venv/bin/python bench/mutation.py -m fusion    # mutants whose name contains "fusion"

Each test file is first run on the unmutated copy; a file that is already
red there is left out (and listed) so that it cannot "kill" mutants.

Exit status: 0 when every applicable mutant was killed, 1 when one survived
(or its tests errored or none were left to run).
"""
from __future__ import annotations

import argparse
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IGNORE = shutil.ignore_patterns(".venv", "venv", ".git", "__pycache__", ".pytest_cache", "node_modules",
                                ".memdown", "*.egg-info", ".mypy_cache", ".ruff_cache")

LOCK_TESTS = ["tests/test_learning_sweep.py", "tests/test_signals_store.py", "tests/test_fsutil*.py",
              "tests/test_*lock*.py", "tests/test_*concurren*.py"]
ATOMIC_TESTS = ["tests/test_atomic_faults.py", "tests/test_fsutil*.py", "tests/test_learning_promote.py"]
REDACT_TESTS = ["tests/test_redact*.py", "tests/test_signals_store.py", "tests/test_learning_fixes.py",
                "tests/test_secret*.py"]
FUSION_TESTS = ["tests/test_hybrid_fusion.py", "tests/test_search_unit.py"]
BACKUP_TESTS = ["tests/test_learning_promote.py", "tests/test_learning_review.py", "tests/test_reflect_cli.py",
                "tests/test_*trust*.py", "tests/test_*promot*.py"]


@dataclass
class Mutant:
    name: str
    promise: str
    files: list[str]  # globs, relative to the repository; the first file where the pattern matches is mutated
    pattern: str  # a regex (re.M) matched against the function body (or the whole file)
    replace: str  # re.sub replacement for the first match
    tests: list[str] = field(default_factory=list)  # globs of test files
    function: str | None = None  # limit the match to this function's body
    alternatives: list[tuple[str, str]] = field(default_factory=list)  # (pattern, replace) tried next


MUTANTS = [
    Mutant("lock-never-taken", "lock", ["memdown/fsutil.py"],
           r"^([ \t]*)fcntl\.(?:flock|lockf)\(.*\)[ \t]*(?:#.*)?$", r"\1pass  # MUTANT: no lock", LOCK_TESTS,
           function="file_lock"),
    Mutant("try-lock-never-taken", "lock", ["memdown/fsutil.py"],
           r"^([ \t]*)fcntl\.(?:flock|lockf)\(.*\)[ \t]*(?:#.*)?$", r"\1pass  # MUTANT: no lock",
           ["tests/test_capture_jobs.py", "tests/test_fsutil*.py", "tests/test_*lock*.py"], function="try_lock"),
    Mutant("lock-always-shared", "lock", ["memdown/fsutil.py"],
           r"^([ \t]*)(\w+)[ \t]*=[ \t]*fcntl\.LOCK_SH if \w+ else fcntl\.LOCK_EX[ \t]*(?:#.*)?$",
           r"\1\2 = fcntl.LOCK_SH  # MUTANT: shared", LOCK_TESTS, function="file_lock"),
    Mutant("atomic-no-data-fsync", "atomic write", ["memdown/fsutil.py"],
           r"^([ \t]*)os\.fsync\(.*\)[ \t]*(?:#.*)?$", r"\1pass  # MUTANT: no fsync", ATOMIC_TESTS,
           function="atomic_write_bytes"),
    Mutant("atomic-no-dir-fsync", "atomic write", ["memdown/fsutil.py"],
           r"^([ \t]*)_fsync_dir\(.*\)[ \t]*(?:#.*)?$", r"\1pass  # MUTANT: no folder fsync", ATOMIC_TESTS,
           function="atomic_write_bytes"),
    Mutant("atomic-copy-not-rename", "atomic write", ["memdown/fsutil.py"],
           r"^([ \t]*)os\.(?:replace|rename)\((\w+),[ \t]*(\w+)\)[ \t]*(?:#.*)?$",
           r'\1__import__("shutil").copyfile(\2, \3); os.unlink(\2)  # MUTANT: copy over the target',
           ATOMIC_TESTS, function="atomic_write_bytes"),
    Mutant("atomic-write-in-place", "atomic write", ["memdown/fsutil.py"],
           r"^([ \t]*)(\w+),[ \t]*(\w+)[ \t]*=[ \t]*tempfile\.mkstemp\(.*\)[ \t]*(?:#.*)?$",
           r"\1\2, \3 = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), str(path)  # MUTANT",
           ATOMIC_TESTS, function="atomic_write_bytes",
           alternatives=[(r"^([ \t]*)(\w+)[ \t]*=[ \t]*os\.open\((\w+),.*\)[ \t]*(?:#.*)?$",  # a temp named by hand
                          r"\1\2 = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644); \3 = path  # MUTANT")]),
    Mutant("redact-identity", "redaction", ["memdown/redact.py", "memdown/redact/*.py"],
           r"^([ \t]*)(def redact\([ \t]*(\w+)(?:[^()]|\([^()]*\))*\)[^:\n]*:[ \t]*)$",
           r"\1\2\n\1    return \3  # MUTANT: redact nothing", REDACT_TESTS),
    Mutant("redact-finds-nothing", "redaction", ["memdown/redact.py", "memdown/redact/*.py"],
           r"^([ \t]*)(def find_secrets\((?:[^()]|\([^()]*\))*\)[^:\n]*:[ \t]*)$",
           r"\1\2\n\1    return []  # MUTANT: no findings", REDACT_TESTS),
    Mutant("redact-skipped-in-signal-files", "redaction", ["memdown/store/entries.py"],
           r"^([ \t]*)return redact\((\w+)\)[ \t]*(?:#.*)?$", r"\1return \2  # MUTANT", REDACT_TESTS,
           function="_redact"),
    Mutant("redact-skipped-in-summaries", "redaction", ["memdown/services/capture/summarize.py"],
           r"\[redact\((\w+)\) for ", r"[\1 for ", REDACT_TESTS + ["tests/test_hooks_e2e.py::test_secrets_are_redacted_and_skip_marker_records_nothing",
                                            "tests/test_*capture*.py",
                                                                    "tests/test_*summar*.py"]),
    Mutant("fusion-is-text-only", "fusion", ["memdown/services/recall/search.py"],
           r"^([ \t]*)if (\w+)\.mode == \"text\":[ \t]*(?:#.*)?$", r'\1if \2.mode in ("text", "hybrid"):  # MUTANT',
           FUSION_TESTS),
    Mutant("fusion-is-vector-only", "fusion", ["memdown/services/recall/search.py"],
           r"^([ \t]*)(el)?if (\w+)\.mode == \"vector\":[ \t]*(?:#.*)?$", r'\1\2if \3.mode in ("vector", "hybrid"):  # MUTANT',
           FUSION_TESTS),
    Mutant("claude-md-no-backup", "backup", ["memdown/learning/promote.py"],
           r"^([ \t]*)(\w+)[ \t]*=[ \t]*backup\(.*$", r"\1\2 = None  # MUTANT: no backup", BACKUP_TESTS),
    Mutant("claude-md-backup-not-written", "backup", ["memdown/learning/promote.py"],
           r"^([ \t]*)atomic_write_bytes\((\w+),[ \t]*(\w+)(?:,[^()]*)?\)[ \t]*(?:#.*)?$", r"\1pass  # MUTANT: backup path, no file",
           BACKUP_TESTS, function="backup"),
    Mutant("claude-md-write-in-place", "atomic write", ["memdown/learning/promote.py"],
           r"^([ \t]*)atomic_write_text\((\w+),[ \t]*(\w+)\)[ \t]*(?:#.*)?$",
           r"\1\2.write_text(\3, encoding='utf-8')  # MUTANT: not atomic", BACKUP_TESTS,
           function="_edit_target"),
]


def function_span(text: str, name: str) -> tuple[int, int] | None:
    """Character span of ``def name(...)`` and its indented body, or None."""
    match = re.search(rf"^([ \t]*)(?:async[ \t]+)?def {re.escape(name)}\(", text, re.M)
    if not match:
        return None
    indent = len(match.group(1).expandtabs())
    lines = text[match.start():].splitlines(keepends=True)
    end = match.start() + len(lines[0])
    seen_body = False
    for line in lines[1:]:
        stripped = line.strip()
        width = len(line) - len(line.lstrip(" \t"))
        if stripped and width <= indent and seen_body and not stripped.startswith((")", "]", "}")):
            break
        if stripped and width > indent:
            seen_body = True
        end += len(line)
    return match.start(), end


def apply(mutant: Mutant, tree: Path) -> tuple[Path, str, str] | None:
    """(file, original text, mutated text) for the first file where the mutant applies, else None."""
    for pattern in mutant.files:
        for name in sorted(glob.glob(str(tree / pattern))):
            path = Path(name)
            text = path.read_text(encoding="utf-8")
            start, end = 0, len(text)
            if mutant.function:
                span = function_span(text, mutant.function)
                if span is None:
                    continue
                start, end = span
            body = text[start:end]
            for pattern, replace in [(mutant.pattern, mutant.replace), *mutant.alternatives]:
                mutated_body, count = re.subn(pattern, replace, body, count=1, flags=re.M)
                if count and mutated_body != body:
                    mutated = text[:start] + mutated_body + text[end:]
                    try:
                        compile(mutated, str(path), "exec")
                    except SyntaxError:
                        continue
                    return path, text, mutated
    return None


def changed_line(original: str, mutated: str) -> str:
    diff = [ln for ln in difflib.ndiff(original.splitlines(), mutated.splitlines()) if ln[:2] in ("- ", "+ ")]
    removed = [ln[2:].strip() for ln in diff if ln.startswith("- ")]
    added = [ln[2:].strip() for ln in diff if ln.startswith("+ ")]
    return f"{removed[0] if removed else '(new line)'}  →  {' / '.join(added)}"


def test_files(tree: Path, patterns: list[str]) -> list[str]:
    """Test files (or ``file::test`` node ids) matching ``patterns`` that exist in ``tree``."""
    found: list[str] = []
    for pattern in patterns:
        file_glob, sep, node = pattern.partition("::")
        for name in sorted(glob.glob(str(tree / file_glob))):
            rel = str(Path(name).relative_to(tree)) + sep + node
            if rel not in found and not rel.startswith("tests/e2e/"):
                found.append(rel)
    return found


def run_tests(tree: Path, tests: list[str], timeout: float) -> tuple[str, float, str]:
    """('pass' | 'fail' | 'error' | 'timeout', seconds, last output line)."""
    env = {**os.environ, "PYTHONPATH": str(tree) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
                              cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - started, ""
    seconds = time.monotonic() - started
    lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
    failed = [ln.split(" - ")[0] for ln in lines if ln.startswith(("FAILED ", "ERROR "))]
    last = "; ".join(failed) if failed else lines[-1] if lines else (done.stderr.strip().splitlines() or [""])[-1]
    outcome = {0: "pass", 1: "fail"}.get(done.returncode, "error")
    return outcome, seconds, str(last or "")


def check_import_location(tree: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(tree) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", "import memdown; print(memdown.__file__)"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=60)
    where = Path(done.stdout.strip()).resolve()
    if tree.resolve() not in where.parents:
        sys.exit(f"the scratch copy is not what Python imports (memdown comes from {where}); aborting")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-m", "--match", default="", help="only mutants whose name or promise contains this")
    parser.add_argument("--list", action="store_true", help="show the mutants and whether they apply; run nothing")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds per test run (default 1200)")
    parser.add_argument("--repo", type=Path, default=REPO, help="source tree to copy (default: this checkout)")
    args = parser.parse_args(argv)
    mutants = [m for m in MUTANTS if args.match in m.name or args.match in m.promise]

    with tempfile.TemporaryDirectory(prefix="memdown-mutation-") as scratch:
        tree = Path(scratch) / "tree"
        shutil.copytree(args.repo, tree, ignore=IGNORE, symlinks=True)
        check_import_location(tree)
        plans = []
        for mutant in mutants:
            applied = apply(mutant, tree)
            tests = test_files(tree, mutant.tests)
            plans.append((mutant, applied, tests))
            where = f"{applied[0].relative_to(tree)}: {changed_line(applied[1], applied[2])}" if applied \
                else "not applicable (no line matches)"
            print(f"{mutant.name:32} {where}", flush=True)
        if args.list:
            return 0

        # Baseline, one test file at a time: a file already red on the unmutated tree
        # (a flaky or broken test) is left out and reported, not allowed to "kill" mutants.
        baseline_tests = sorted({t for _m, applied, tests in plans if applied for t in tests})
        broken: set[str] = set()
        print(f"\nbaseline: {len(baseline_tests)} test files on the unmutated tree", flush=True)
        for test in baseline_tests:
            outcome, seconds, last = run_tests(tree, [test], args.timeout)
            print(f"  {test:60} {outcome:8} {seconds:5.0f}s  {last}", flush=True)
            if outcome != "pass":
                broken.add(test)
        if broken:
            print(f"left out (red before any mutation): {', '.join(sorted(broken))}", flush=True)
        plans = [(m, applied, [t for t in tests if t not in broken]) for m, applied, tests in plans]
        print(flush=True)

        rows = []
        for mutant, applied, tests in plans:
            if not applied:
                rows.append((mutant, "-", "not applicable", 0.0, ""))
                continue
            path, original, mutated = applied
            if not tests:
                rows.append((mutant, "-", "no tests found", 0.0, ""))
                continue
            try:
                path.write_text(mutated, encoding="utf-8")
                outcome, seconds, last = run_tests(tree, tests, args.timeout)
            finally:
                path.write_text(original, encoding="utf-8")  # the scratch copy is clean for the next mutant
            verdict = {"fail": "killed", "pass": "SURVIVED", "timeout": "killed (timeout)"}.get(outcome, "error")
            rows.append((mutant, str(len(tests)), verdict, seconds, last))
            print(f"{mutant.name:32} {verdict:16} {seconds:6.0f}s  {last}", flush=True)

    print("\n| mutant | promise | test files | result | seconds |\n|---|---|---|---|---|")
    if broken:
        print(f"(left out, red before mutation: {', '.join(sorted(broken))})")
    for mutant, count, verdict, seconds, _last in rows:
        print(f"| {mutant.name} | {mutant.promise} | {count} | {verdict} | {seconds:.0f} |")
    survived = [m.name for m, _c, v, _s, _l in rows if v in ("SURVIVED", "error", "no tests found")]
    killed = sum(1 for _m, _c, v, _s, _l in rows if v.startswith("killed"))
    applicable = sum(1 for _m, _c, v, _s, _l in rows if v != "not applicable")
    print(f"\n{killed} of {applicable} applicable mutants killed" + (f"; survivors: {', '.join(survived)}"
                                                                      if survived else ""))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
