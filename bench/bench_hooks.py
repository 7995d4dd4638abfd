"""Hook latency: fresh process per call, median of N, against `python -c pass`.

    python bench/bench_hooks.py [--runs 15]

Goals (issue #4): UserPromptSubmit ≤ 3x the bare interpreter, SessionStart ≤ 150 ms,
Stop returns ≤ 100 ms (its summary runs in a detached worker).
The hooks are run the way the plugin's shim runs them: the `memdown` console
script from this interpreter's bin folder, JSON on stdin.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from transcript_factory import TranscriptBuilder  # noqa: E402


def timed(cmd: list[str], stdin: str, env: dict, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, check=True)
        out.append(1000 * (time.perf_counter() - started))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    memdown = Path(sys.executable).parent / "memdown"
    if not memdown.exists():
        sys.exit("install memdown first (pip install -e .): no console script next to this interpreter")
    tmp = Path(tempfile.mkdtemp(prefix="memdown-hookbench-"))
    project = tmp / "project"
    (project / ".git").mkdir(parents=True)  # a repository root, as in real use
    memory = project / ".memdown" / "memory"
    memory.mkdir(parents=True)
    for day in range(1, 31):  # a month of realistic daily logs
        entries = "".join(
            f"### {9 + h:02d}:15\n<!-- session:s{day} turn:t{day}-{h} transcript:~/.claude/projects/p/s{day}.jsonl -->\n"
            f"- Asked to fix the order totals rounding bug in `billing/money.py` (round {h})\n"
            f"- Switched to Decimal.quantize(ROUND_HALF_UP) after tax; tests green\n\n"
            for h in range(4)
        )
        (memory / f"2026-10-{day:02d}.md").write_text(f"# 2026-10-{day:02d}\n\n## Session 09:15\n\n{entries}")
    builder = TranscriptBuilder(cwd=str(project))
    builder.prompt("fix the rounding bug again")
    builder.tool("Edit", {"file_path": "billing/money.py"}, "ok")
    builder.reply("Fixed.")
    transcript = builder.write(tmp / "t" / f"{builder.session_id}.jsonl")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDOWN_")}
    env.update(MEMDOWN_HOME=str(tmp / "home"), MEMDOWN_WATCH_ENABLED="0", HOME=str(tmp / "home"),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin")
    base = {"session_id": builder.session_id, "transcript_path": str(transcript), "cwd": str(project)}
    cases = {
        "python -c pass": ([sys.executable, "-c", "pass"], ""),
        "UserPromptSubmit": ([str(memdown), "hook", "UserPromptSubmit"],
                             json.dumps({**base, "prompt": "why did we change the rounding last time?"})),
        "SessionStart": ([str(memdown), "hook", "SessionStart"], json.dumps({**base, "source": "startup"})),
        "Stop (return)": ([str(memdown), "hook", "Stop"], json.dumps({**base, "stop_hook_active": False})),
    }
    results = {name: statistics.median(timed(cmd, stdin, env, args.runs)) for name, (cmd, stdin) in cases.items()}
    # With the live index on (the default): the first call starts the daemon, later ones find it running.
    live_env = {**env, "MEMDOWN_WATCH_ENABLED": "1"}
    results["SessionStart (live index on)"] = statistics.median(
        timed(cases["SessionStart"][0], cases["SessionStart"][1], live_env, args.runs))
    subprocess.run([str(memdown), "watch", "--stop", "--dir", str(project / ".memdown")], env=live_env,
                   capture_output=True)
    bare = results["python -c pass"]
    print(f"hook latency, median of {args.runs} fresh processes ({os.cpu_count()} cores)")
    print(f"{'case':30} {'ms':>8} {'x bare':>8}")
    for name, ms in results.items():
        print(f"{name:30} {ms:8.1f} {ms / bare:8.2f}")
    goals = {
        "UserPromptSubmit ≤ 3x bare": results["UserPromptSubmit"] <= 3 * bare,
        "SessionStart ≤ 150 ms": results["SessionStart"] <= 150,
        "SessionStart ≤ 150 ms (live index on)": results["SessionStart (live index on)"] <= 150,
        "Stop returns ≤ 100 ms": results["Stop (return)"] <= 100,
    }
    for goal, met in goals.items():
        print(f"  {goal}: {'met' if met else 'MISSED'}")
    time.sleep(3)  # let detached Stop workers finish before removing their folder
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
