"""Guard shape corpus: ordinary shapes stopped, near misses passed, and stops on real commands, per guard kind.

    python bench/guards/run_shapes.py [--shared ../shared] [--verbose]

Each kind's rule is compiled the way ``memdown reflect promote`` compiles it (``guards.compile_rule``),
written to a scratch ``guards.json`` and judged through the PreToolUse hook's own entry
(``hooks.pretool.answer``) with the call's ``cwd`` in a scratch project (bench/guards/shapes.py:
FILES, LINKS). Then every guard of every kind is active at once over every real command in
``../shared`` (Claude Code transcripts and the other agents' logs): each stop is listed to be judged.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(REPO), str(HERE), str(HERE.parent)]
from real_commands import all_commands  # noqa: E402
from shapes import FILES, KINDS, LINKS  # noqa: E402

from memdown.hooks import pretool  # noqa: E402
from memdown.learning import guards  # noqa: E402

TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")


def project(tmp: Path) -> Path:
    root = tmp / "project"
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")
    (root / ".memdown").mkdir()
    for name, target in LINKS.items():
        (root / name).symlink_to(root / target)
    return root


def payload(action: str, root: Path) -> dict:
    tool, sep, rest = action.partition(":")
    if sep and tool in TOOLS:
        key = "notebook_path" if tool == "NotebookEdit" else "file_path"
        return {"tool_name": tool, "tool_input": {key: str(root / rest)}, "cwd": str(root)}
    return {"tool_name": "Bash", "tool_input": {"command": action}, "cwd": str(root)}


def install(active: list[dict], home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "guards.json").write_text(json.dumps({"format": 1, "guards": active}))


def stopped(action: str, root: Path) -> bool:
    out = pretool.answer(payload(action, root), str(root / ".memdown"))
    return out is not None and out.permission in ("deny", "ask")


def run_kinds(root: Path, home: Path, verbose: bool) -> list[dict]:
    compiled = []
    totals = [0, 0, 0, 0]
    print(f"{'guard kind':44} {'ordinary stopped':>17} {'near misses passed':>19} {'evasions stopped':>17}")
    for n, kind in enumerate(KINDS, 1):
        spec = guards.compile_rule(kind["rule"])
        guard = {"id": f"K{n:02d}", "rule": kind["rule"], "root": str(root / ".memdown"), **(spec or {})}
        compiled.append(guard)
        install([guard] if spec else [], home)
        stop = [a for a in kind["stop"] if stopped(a, root)]
        passed = [a for a in kind["pass"] if not stopped(a, root)]
        evaded = [a for a in kind["evade"] if stopped(a, root)]
        totals[0] += len(stop)
        totals[1] += len(kind["stop"])
        totals[2] += len(passed)
        totals[3] += len(kind["pass"])
        share = 100 * len(stop) / len(kind["stop"])
        print(f"{kind['kind'][:44]:44} {len(stop):>6}/{len(kind['stop']):<3} {share:5.1f} %  {len(passed):>9}/{len(kind['pass']):<3}"
              f"       {len(evaded):>6}/{len(kind['evade'])}" + ("" if spec else "   (no guard compiled)"))
        if verbose:
            for a in kind["stop"]:
                if a not in stop:
                    print(f"    missed: {a!r}")
            for a in kind["pass"]:
                if a not in passed:
                    print(f"    FALSE STOP: {a!r}")
    print(f"all kinds: ordinary stopped {totals[0]}/{totals[1]} ({100 * totals[0] / totals[1]:.1f} %), "
          f"near misses passed {totals[2]}/{totals[3]}")
    return [g for g in compiled if len(g) > 3]


def run_real(active: list[dict], root: Path, home: Path, shared: Path) -> None:
    commands = all_commands(shared)
    install(active, home)
    hits: dict[str, list[tuple[str, str]]] = {}
    started = time.perf_counter()
    for repo, command in commands:
        if len(command) > pretool.MAX_COMMAND:
            continue
        out = pretool.answer({"tool_name": "Bash", "tool_input": {"command": command}, "cwd": str(root)},
                             str(root / ".memdown"))
        if out is not None and out.permission in ("deny", "ask"):
            gid = out.permission_reason.split("guard ", 1)[1].split(":", 1)[0]
            hits.setdefault(gid, []).append((repo, command))
    took = time.perf_counter() - started
    print(f"real commands: {len(commands)} ({len({c for _, c in commands})} distinct) from {shared}, "
          f"{len(active)} guards active at once, {1000 * took / max(1, len(commands)):.2f} ms per command in-process")
    by_id = {g["id"]: g for g in active}
    verdicts = {True: 0, False: 0, None: 0}
    for gid, found in sorted(hits.items()):
        for _, command in found:
            verdict = confirmed(by_id[gid], command)
            verdicts[verdict] += 1
            if verdict is False:
                print(f"  NOT CONFIRMED by bashlex {gid}: {command[:200]!r}")
    print(f"stops: {sum(verdicts.values())}; bashlex confirms the line runs what the rule names: {verdicts[True]}, "
          f"does not: {verdicts[False]}, cannot judge (unparsable or a path guard): {verdicts[None]}")
    for gid, found in sorted(hits.items()):
        distinct: dict[str, list[str]] = {}
        for repo, command in found:
            distinct.setdefault(command, []).append(repo)
        print(f"  {gid} ({by_id[gid]['rule']!r}): {len(found)} stops, {len(distinct)} distinct")
        for command, repos in distinct.items():
            print(f"    {len(repos)}x {repos[0]}: {command[:200]!r}")


LONG = {"--force": "f", "--recursive": "r", "--no-verify": "n"}


def confirmed(guard: dict, command: str) -> bool | None:
    """An independent judge (bashlex, bench/bench_guards.invoked): does the line run what the rule names?
    None when bashlex cannot parse it or the guard is a path guard (judged by hand)."""
    from bench_guards import invoked

    if guard.get("paths"):
        return None
    runs = invoked(command)
    if runs is None:
        return None
    for words in runs:
        letters = {c for w in words[1:] if w.startswith("-") and not w.startswith("--") for c in w[1:]}
        letters |= {LONG[w.split("=")[0]] for w in words[1:] if w.split("=")[0] in LONG}
        longs = {w.split("=")[0] for w in words[1:] if w.startswith("--")}
        for rule in guard.get("forbid") or ():
            argv = rule["argv"]
            if not words or words[0] != argv[0]:
                continue
            plain_ok = all(w in words for w in argv[1:] if not w.startswith("-"))
            flags_ok = all((w in longs or (w in LONG and LONG[w] in letters)) if w.startswith("--")
                           else set(w[1:]) <= letters for w in argv[1:] if w.startswith("-"))
            if plain_ok and flags_ok:
                return True
        for rule in guard.get("require") or ():
            if words and words[0] == rule["program"]:
                return True
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if not args.shared.is_dir():
        args.shared = Path("/work/shared")
    with tempfile.TemporaryDirectory(prefix="guard-shapes-") as tmp:
        tmp_path = Path(tmp).resolve()
        home = tmp_path / "home"
        os.environ["MEMDOWN_HOME"] = str(home)
        root = project(tmp_path)
        active = run_kinds(root, home, args.verbose)
        if args.shared.is_dir():
            run_real(active, root, home, args.shared)
        else:
            print(f"skipped real commands: {args.shared} is absent")


if __name__ == "__main__":
    main()
