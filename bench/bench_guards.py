"""Guards benchmark: repeated mistakes stopped, false stops on real commands, hook latency.

    python bench/bench_guards.py [--runs 30] [--transcripts ../shared/transcripts] [--client 0]

1. Scenarios (bench/guard_scenarios.py): each user correction goes the way promote takes it (the
   template phrasing, then the guard compiler); its repeats must be stopped, its near misses must pass.
2. False stops: every Bash command the real transcripts in ../shared ran (extracted with memdown's
   transcript parser, read in place, never copied) is checked with ALL scenario guards active.
3. Latency: ``memdown hook PreToolUse`` through the plugin's shim with those guards in place, median of
   ``--runs``, from a venv the shim starts with ``python -I -S`` (as a plugin install runs it); and with
   ``--client N``, as Claude Code measures it (N real sessions, each making Bash calls, --debug-file).
The load average is printed beside every timing.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))
from guard_scenarios import SCENARIOS  # noqa: E402

from memdown import shellguard  # noqa: E402
from memdown.learning import guards, phrasing  # noqa: E402


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__() if Path("/proc/loadavg").exists() else "?"


def call_of(action: str) -> tuple[str, dict]:
    if action.startswith(("Edit:", "Write:")):
        tool, _, path = action.partition(":")
        return tool, {"file_path": f"/project/{path}"}
    return "Bash", {"command": action}


def compiled() -> list[tuple[str, dict | None]]:
    """(rule, guard or None) per scenario, as promote would make them."""
    out = []
    for n, (quote, _, _) in enumerate(SCENARIOS, 1):
        rule = phrasing.template_rule(quote)
        spec = guards.compile_rule(rule)
        out.append((rule, {"id": f"S{n:02d}", "rule": rule, "root": "", **spec} if spec else None))
    return out


def scenarios(verbose: bool) -> tuple[list[dict], dict]:
    rules = compiled()
    stopped = attempted = passed = near = 0
    misses, false_stops = [], []
    for (quote, repeats, misses_ok), (rule, guard) in zip(SCENARIOS, rules):
        active = [guard] if guard else []
        for action in repeats:
            attempted += 1
            if shellguard.check(active, *call_of(action), "/project/.memdown"):
                stopped += 1
            else:
                misses.append(f"{rule!r}: {action!r} not stopped" + ("" if guard else " (no guard compiled)"))
        for action in misses_ok:
            near += 1
            if shellguard.check(active, *call_of(action), "/project/.memdown"):
                false_stops.append(f"{rule!r}: near miss {action!r} stopped")
            else:
                passed += 1
    print(f"scenarios: {len(SCENARIOS)}, guards compiled: {sum(g is not None for _, g in rules)}")
    print(f"repeats stopped: {stopped}/{attempted}; near misses passed: {passed}/{near}")
    for line in misses + false_stops:
        print("  " + line)
    if verbose:
        for rule, guard in rules:
            print(f"  {rule} -> {json.dumps({k: v for k, v in (guard or {}).items() if k not in ('id', 'rule', 'root')})}")
    return [g for _, g in rules if g], {"stopped": stopped, "attempted": attempted, "near_passed": passed,
                                        "near": near}


def real_commands(folder: Path) -> list[str]:
    from memdown.transcript.parser import parse_transcript

    found: list[str] = []
    for path in sorted(folder.rglob("*.jsonl")):
        try:
            transcript = parse_transcript(path, include_subagents=False)
        except Exception:  # noqa: BLE001 - a file that is not a transcript
            continue
        for turn in transcript.turns + ([transcript.preamble] if transcript.preamble else []):
            found.extend(turn.commands())
    return found


ORACLE_WRAPPERS = {"sudo", "env", "time", "nohup", "exec", "command", "nice", "xargs", "timeout"}


def invoked(command: str) -> list[list[str]] | None:
    """The commands bash would run (bashlex, an independent parser): word lists, wrappers and
    ``python -m`` peeled; None when bashlex cannot parse the line."""
    import bashlex

    found: list[list[str]] = []

    class Visitor(bashlex.ast.nodevisitor):
        def visitcommand(self, node, parts):
            words = [p.word for p in parts if p.kind == "word"]
            while words and words[0] in ORACLE_WRAPPERS:
                words = words[1:]
                while words and (words[0].startswith("-") or "=" in words[0] or words[0].isdigit()):
                    words = words[1:]
            if not words:
                return
            name = os.path.basename(words[0])
            if name.lower().endswith((".exe", ".cmd", ".bat", ".com")):  # Windows runs ./venv/Scripts/pip.exe as pip
                name = name[:-4].lower()
            found.append([name, *words[1:]])
            if os.path.basename(words[0]).startswith("python") and len(words) > 2 and words[1] == "-m":
                found.append(words[2:])
            if words[0] in ("npx", "bunx", "uvx"):
                found.append(words[1:])
            if words[0] == "find":  # find … -exec cmd … ; runs cmd
                for k, word in enumerate(words):
                    if word in ("-exec", "-execdir", "-ok", "-okdir") and k + 1 < len(words):
                        end = next((j for j in range(k + 1, len(words)) if words[j] in (";", "+")), len(words))
                        found.append([os.path.basename(words[k + 1]), *words[k + 2:end]])
            if words[0] in ("bash", "sh", "zsh") and "-c" in words[1:-1]:
                found.extend(invoked(words[words.index("-c") + 1]) or [])

    try:
        for tree in bashlex.parse(command):
            Visitor().visit(tree)
    except Exception:  # noqa: BLE001 - bashlex does not parse every bash line
        return None
    return found


def rule_applies(guard: dict, commands: list[list[str]]) -> bool:
    """Does the line really run what the guard names (its program, its words in order)?"""
    for words in commands:
        for rule in guard.get("forbid") or ():
            pattern = rule["argv"]
            if words and words[0] == pattern[0]:
                rest = iter(words[1:])
                if all(any(w == want or w.startswith(want + "=") or (len(want) == 2 and want[0] == "-" and
                                                                   w[:1] == "-" and want[1] in w[1:]) for w in rest)
                       for want in pattern[1:]):
                    return True
        for rule in guard.get("require") or ():
            if words and words[0] == rule["program"]:
                return True
    return False


def false_stops(active: list[dict], folder: Path, verbose: bool) -> None:
    commands = real_commands(folder)
    stats = {"stopped": 0, "false": 0, "unjudged": 0}
    shown: list[str] = []
    for command in commands:
        hits = [g for g in active if not g.get("paths")
                and shellguard.check([g], "Bash", {"command": command}, "/project/.memdown")]
        if not hits:  # path guards' stops (files a command writes) are judged in bench/guards/run_shapes.py
            continue
        stats["stopped"] += 1
        truth = invoked(command)
        if truth is None:
            stats["unjudged"] += 1
            shown.append(f"  unjudged (bashlex cannot parse) {hits[0]['id']}: {command[:90]!r}")
        elif not all(rule_applies(g, truth) for g in hits):
            stats["false"] += 1
            shown.append(f"  FALSE STOP {[g['id'] for g in hits]}: {command[:90]!r}")
    print(f"real Bash commands: {len(commands)} ({len(set(commands))} distinct) from {folder}, all {len(active)} "
          f"guards active: stopped {stats['stopped']} (each runs the program its rule names, by bashlex), "
          f"false stops {stats['false']}, not judged {stats['unjudged']}")
    for line in shown if verbose else [line for line in shown if "FALSE" in line]:
        print(line)


def shim_latency(active: list[dict], runs: int) -> None:
    """The hook through hooks/memdown-hook, from a venv holding this checkout (no dependencies: the path is stdlib)."""
    with tempfile.TemporaryDirectory(prefix="bench-guards-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-deps", str(REPO)],
                       check=True, capture_output=True)
        home = Path(tmp) / "home"
        (home / "memdown").mkdir(parents=True)
        (home / "memdown" / shellguard.GUARD_FILE).write_text(json.dumps({"format": shellguard.FORMAT, "guards": active}))
        project = Path(tmp) / "project"
        (project / ".memdown").mkdir(parents=True)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "MEMDOWN_HOME": str(home / "memdown"),
               "MEMDOWN_BIN": str(venv / "bin" / "memdown"), "MEMDOWN_DIR": str(project / ".memdown")}
        noop = Path(tmp) / "noop-memdown"
        noop.write_text("#!/bin/sh\ncat >/dev/null\necho '{}'\n")
        noop.chmod(0o755)
        floors = {"python -I -S -c pass (the venv's)": [str(venv / "bin" / "python"), "-I", "-S", "-c", "pass"],
                  "shim with a no-op memdown": [str(REPO / "hooks" / "memdown-hook"), "PreToolUse"]}
        for label, argv in floors.items():
            times = _timed(argv, "{}", {**env, "MEMDOWN_BIN": str(noop)}, runs, label)
            print(f"floor, {label}: median {statistics.median(times):.1f} ms ({_cpu(label)}) over {runs} runs; "
                  f"load {load()}")
        bare = {**env, "MEMDOWN_HOME": str(Path(tmp) / "no-guards")}
        for label, command, where in (("stopped", "cd web && npm install left-pad", env),
                                      ("passes", "git status && ls -la", env),
                                      ("no guard file", "npm install", bare)):
            payload = json.dumps({"session_id": "b", "cwd": str(project), "tool_name": "Bash",
                                  "tool_input": {"command": command}})
            shim = [str(REPO / "hooks" / "memdown-hook"), "PreToolUse", "guards"]  # as hooks.json runs it
            times = _timed(shim, payload, where, runs, label)
            out = subprocess.run(shim, input=payload, env=where, capture_output=True, text=True).stdout
            print(f"shim PreToolUse ({label}): median {statistics.median(times):.1f} ms ({_cpu(label)}), p90 "
                  f"{sorted(times)[int(0.9 * len(times))]:.1f} ms over {runs} runs; load {load()}; "
                  f"answer {'deny' if 'deny' in out else out.strip()[:20]}")


CPU: dict[str, list[float]] = {}  # label -> CPU ms (user + system) of each run's processes


def _timed(argv: list[str], stdin: str, env: dict, runs: int, label: str = "") -> list[float]:
    """Wall ms of each run; the CPU ms of each run (less sensitive to the machine's load) go to CPU[label]."""
    import resource

    times = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, input=stdin, env=env, capture_output=True, text=True)
        times.append(1000 * (time.perf_counter() - start))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        CPU.setdefault(label, []).append(1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    return times


def _cpu(label: str) -> str:
    return f"CPU median {statistics.median(CPU[label]):.1f} ms" if CPU.get(label) else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcripts", type=Path, default=REPO.parent / "shared" / "transcripts")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--client", type=int, default=0, help="real Claude Code sessions to time (0 = skip)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    active, _ = scenarios(args.verbose)
    if args.transcripts.is_dir():
        false_stops(active, args.transcripts, args.verbose)
    else:
        print(f"skipped false stops: {args.transcripts} is absent")
    shim_latency(active, args.runs)
    if args.client:
        from bench_client_guards import client_latency

        client_latency(active, args.client, load)


if __name__ == "__main__":
    main()
