"""Hook latency as Claude Code itself measures it, memdown vs a no-op floor plugin.

    python bench/bench_client_hooks.py [--sessions 6] [--claude PATH] [--venv PATH] [--compare VENV]

Runs repeated real `claude -p` sessions (the pinned CLI, see tests/e2e) against a
local fake Messages API and reads the client's own per-hook timings from
`--debug-file` ("Hooks: X [...] finished with status 0 (NNNms)"). Each session:
SessionStart, one prompt (UserPromptSubmit), a Skill call (PreToolUse, matcher
"Skill"), two Bash calls (PreToolUse, matcher "Bash": memdown's guard hook, with
a guards.json in MEMDOWN_HOME holding one approved guard, "Never run `git push
--force`."; `ls -la` passes it, `git push --force` is stopped), Stop and
SessionEnd. Sessions interleave, one of each per round, in alternating order
(ABBA: memdown, compare, floor in odd rounds; floor, compare, memdown in even
ones), so no column always runs first or right after a given one (the fixed
order of session 8 put ~15 ms between a venv and itself on Stop). Columns:

  memdown  this checkout installed the way a plugin user gets it: a regular
           (non-editable) venv at ${CLAUDE_PLUGIN_DATA}/venv, made once with pip
           under bench/.work/client-hooks/ (or --venv), a month of daily logs;
  floor    a plugin with the same hooks whose command is a shell script that
           prints {} (and a same-named forked skill; its Bash hook passes both).
  compare  (with --compare VENV) memdown again, from another non-editable venv
           (e.g. `pip install --no-deps <an older checkout>`): a before/after
           at the same load.

The client logs no duration for SessionEnd (2.1.328 writes only "completed with
status"); its figure is the time from the previous debug line to the hook's
first output line, an upper bound. Detached workers started by Stop/SessionEnd
are waited for between sessions so they do not load the next one.

Printed per hook: the median of the sessions and their spread (p25-p75). With
--compare on the same venv as --venv, the two columns show the bench's own noise.
Also printed: shell-level costs outside the client (the shim's lookup with a
memdown that is a no-op shell script, the venv interpreter with and without
site, `memdown hook` through the shim) and the load average.
Goals (issues #8 and #21, client-seen medians): UserPromptSubmit <= 40 ms, Stop <= 60 ms,
SessionStart <= 120 ms, any PreToolUse <= 40 ms, SessionEnd well inside 1.5 s.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
from tests.e2e.fake_api import FakeMessagesAPI, Reply, Request  # noqa: E402

WORK = HERE / ".work" / "client-hooks"
EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd"]
# The model's Bash calls, in order, and how memdown's guard hook treats each (the guard below).
BASH_CALLS = (("ls -la", "passes"), ("git push --force", "stopped"))
GUARD_RULE = "Never run `git push --force`."
# Rows of the table: PreToolUse once per tool call it ran for.
ROWS = ["SessionStart", "UserPromptSubmit", "PreToolUse(Skill)",
        *(f"PreToolUse(Bash, guard {verdict})" for _, verdict in BASH_CALLS), "Stop", "SessionEnd"]
GOALS = {"UserPromptSubmit": 40, "Stop": 60, "SessionStart": 120, **{row: 40 for row in ROWS if row.startswith("PreToolUse")}}
FINISHED = re.compile(r"Hooks: (?P<event>[A-Za-z]+)(?::(?P<tool>\S+))? \[(?P<cmd>[^\]]*)\].* finished with status (?P<st>-?\d+) \((?P<ms>\d+)ms\)")
COMPLETED = re.compile(r"\] (?P<event>[A-Za-z]+)(?::\S+)? \[(?P<cmd>[^\]]*)\] completed with status (?P<st>-?\d+)")
STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)Z")


def find_claude(explicit: str | None) -> str:
    for candidate in (explicit, os.environ.get("MEMDOWN_E2E_CLAUDE"),
                      str(REPO / ".e2e" / "claude-code" / "node_modules" / ".bin" / "claude"), shutil.which("claude")):
        if candidate and Path(candidate).exists():
            return candidate
    sys.exit("no Claude Code CLI: pass --claude, set MEMDOWN_E2E_CLAUDE, or run .ci/run")


def plugin_venv(explicit: str | None) -> Path:
    venv = Path(explicit) if explicit else WORK / "venv"
    pip = [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check"]
    if (venv / "bin" / "memdown").exists():
        if not explicit:  # this checkout's code, not whatever was installed last time
            subprocess.run([*pip, "--no-deps", "--force-reinstall", str(REPO)], check=True)
        return venv
    print(f"building a plugin-style venv at {venv} (pip install {REPO}, once) ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([*pip, str(REPO)], check=True)
    return venv


def floor_plugin(root: Path) -> Path:
    (root / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "floor", "version": "0.0.0"}))
    hooks = root / "hooks"
    hooks.mkdir(exist_ok=True)
    noop = hooks / "noop"
    noop.write_text("#!/bin/sh\nprintf '{}\\n'\n")
    noop.chmod(0o755)
    command = '"${CLAUDE_PLUGIN_ROOT}/hooks/noop"'
    config = {event: [{"hooks": [{"type": "command", "command": command, "timeout": 10}]}] for event in EVENTS}
    config["PreToolUse"] = [{"matcher": tool, "hooks": [{"type": "command", "command": command, "timeout": 10}]}
                            for tool in ("Skill", "Bash")]
    (hooks / "hooks.json").write_text(json.dumps({"hooks": config}))
    skill = root / "skills" / "memory-recall"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text("---\nname: memory-recall\ndescription: floor twin of memdown's recall skill\n"
                                    "context: fork\n---\n\n# Recall from memdown memory\n\n$ARGUMENTS\n")
    return root


def month_of_memory(project: Path) -> None:
    memory = project / ".memdown" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    for day in range(1, 31):
        entries = "".join(
            f"### {9 + h:02d}:15\n<!-- session:s{day} turn:t{day}-{h} transcript:~/.claude/projects/p/s{day}.jsonl -->\n"
            f"- Fixed the order totals rounding in `billing/money.py` (round {h})\n"
            f"- Switched to Decimal.quantize(ROUND_HALF_UP) after tax; tests green\n\n" for h in range(4))
        (memory / f"2026-10-{day:02d}.md").write_text(f"# 2026-10-{day:02d}\n\n## Session 09:15\n\n{entries}")


def responder(skill: str):
    def answer(req: Request) -> Reply:
        if "haiku" in req.model:
            return Reply.text("- Looked at the rounding code\n- Nothing changed")
        if "# Recall from memdown memory" in req.all_text():
            return Reply.text("No earlier record (benchmark).")
        done = len(req.tool_results())
        if done == 0:
            return Reply.tool("Skill", {"skill": skill, "args": "rounding bug"})
        if done <= len(BASH_CALLS):
            return Reply.tool("Bash", {"command": BASH_CALLS[done - 1][0], "description": "benchmark step"})
        return Reply.text("Done.")
    return answer


def session_end_estimate(text: str, marker: str) -> float | None:
    """(first output line of the SessionEnd hook) - (the debug line just before it started)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        c = COMPLETED.search(line)
        if not (c and c["event"] == "SessionEnd" and marker in c["cmd"]):
            continue
        j = i
        while j > 0 and "Checking first line for async" not in lines[j]:
            j -= 1
        k = j - 1
        while k > 0 and ("Hooks:" in lines[k] or not STAMP.match(lines[k])):
            k -= 1
        out, before = STAMP.match(lines[j]), STAMP.match(lines[k])
        if out and before:
            return (datetime.fromisoformat(out[1]) - datetime.fromisoformat(before[1])).total_seconds() * 1000
    return None


def client_timings(text: str, marker: str) -> dict[str, float]:
    found: dict[str, float] = {}
    bash = 0
    for line in text.splitlines():
        m = FINISHED.search(line)
        if not (m and marker in m["cmd"] and m["event"] in EVENTS and m["st"] == "0"):
            continue
        row = m["event"]
        if row == "PreToolUse" and m["tool"] == "Bash":  # the k-th Bash call of the session
            if bash >= len(BASH_CALLS):
                continue
            row, bash = f"PreToolUse(Bash, guard {BASH_CALLS[bash][1]})", bash + 1
        elif row == "PreToolUse":
            row = f"PreToolUse({m['tool'] or 'Skill'})"
        if row in ROWS and row not in found:
            found[row] = float(m["ms"])
    end = session_end_estimate(text, marker)
    if end is not None:
        found["SessionEnd"] = end
    return found


def memdown_home(home: Path) -> Path:
    """MEMDOWN_HOME of a benchmark session, holding the guard file an approval writes (learning.guards)."""
    folder = home / "memdown-home"
    if not (folder / "guards.json").exists():
        from memdown import shellguard
        from memdown.learning.guards import compile_rule

        spec = compile_rule(GUARD_RULE)
        assert spec is not None, GUARD_RULE
        folder.mkdir(parents=True, exist_ok=True)
        guard = {"id": "B1", "token": "bench", "root": "", "rule": GUARD_RULE, "approved": "2026-11-27", **spec}
        (folder / shellguard.GUARD_FILE).write_text(json.dumps({"format": shellguard.FORMAT, "guards": [guard]}))
    return folder


def wait_for_jobs(project: Path, timeout: float = 180) -> None:
    jobs = project / ".memdown" / "state" / "jobs"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and jobs.is_dir() and any(jobs.glob("*.json")):
        time.sleep(0.2)


def run_session(cli: str, plugin: Path, marker: str, skill: str, tmp: Path, venv: Path | None) -> dict[str, float]:
    home = tmp / "home"
    config = home / ".claude"
    if venv is not None:  # the plugin's data folder for a --plugin-dir plugin, holding the installed venv
        data = config / "plugins" / "data" / "memdown-inline"
        data.mkdir(parents=True, exist_ok=True)
        if not (data / "venv").exists():
            (data / "venv").symlink_to(venv)
        # Up to date with the plugin: else the shim's SessionStart upgrades the venv from this checkout in the
        # background (a pip install during the run, and --compare would end up measuring this checkout twice).
        version = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())["version"]
        (venv / ".plugin-version").write_text(f"{version}\n")
    project = tmp / "project"
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    if not (bin_dir / "claude").exists():
        (bin_dir / "claude").symlink_to(cli)
    debug = tmp / f"debug-{uuid.uuid4().hex[:8]}.log"
    with FakeMessagesAPI(responder(skill)) as api:
        env = {"PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "CLAUDE_CONFIG_DIR": str(config),
               "ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "sk-ant-bench",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "MEMDOWN_HOME": str(memdown_home(home)),
               "MEMDOWN_WATCH_ENABLED": "0", "LANCEDB_LOG": "error", "LANG": "C.UTF-8"}
        subprocess.run([str(bin_dir / "claude"), "-p", "--plugin-dir", str(plugin), "--debug-file", str(debug),
                        "--", "Why did the order totals rounding break again?"],
                       cwd=project, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        wait_for_jobs(project)
    return client_timings(debug.read_text(errors="replace"), marker)


def shell_costs(venv: Path, runs: int) -> dict[str, tuple[float, float]]:
    """Outside the client: where the milliseconds of one memdown hook call go."""
    def median_ms(cmd: list[str], env: dict[str, str], stdin: bytes = b"{}") -> tuple[float, float]:
        """(wall, CPU user+sys of the child and its children): CPU barely moves with the load."""
        wall, cpu = [], []
        for _ in range(runs):
            started = time.perf_counter()
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, env=env)
            try:
                proc.stdin.write(stdin)
                proc.stdin.close()
            except BrokenPipeError:  # e.g. `python -c pass` never reads its stdin
                pass
            _, _, usage = os.wait4(proc.pid, 0)
            proc.returncode = 0
            wall.append(1000 * (time.perf_counter() - started))
            cpu.append(1000 * (usage.ru_utime + usage.ru_stime))
        return statistics.median(wall), statistics.median(cpu)

    tmp = Path(tempfile.mkdtemp(prefix="memdown-shellcost-"))
    stub_data = tmp / "data"
    (stub_data / "venv" / "bin").mkdir(parents=True)
    stub = stub_data / "venv" / "bin" / "memdown"
    stub.write_text("#!/bin/sh\nprintf '{}\\n'\n")
    stub.chmod(0o755)
    (stub_data / "venv" / "bin" / "python").symlink_to("/bin/sh")
    base = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp), "CLAUDE_PLUGIN_ROOT": str(REPO)}
    python = str(venv / "bin" / "python")
    shim = str(REPO / "hooks" / "memdown-hook")
    real = {**base, "CLAUDE_PLUGIN_DATA": str(tmp / "real"), "MEMDOWN_DIR": str(tmp / "none")}
    (tmp / "real").mkdir()
    (tmp / "real" / "venv").symlink_to(venv)
    out = {
        "sh: printf {} (the floor's hook)": median_ms(["/bin/sh", "-c", "printf '{}\\n'"], base),
        "shim lookup + a no-op memdown": median_ms([shim, "Stop"], {**base, "CLAUDE_PLUGIN_DATA": str(stub_data)}),
        "venv python -c pass": median_ms([python, "-c", "pass"], base),
        "venv python -S -c pass": median_ms([python, "-S", "-c", "pass"], base),
        "venv python -I -S -c pass": median_ms([python, "-I", "-S", "-c", "pass"], base),
        "console script: memdown hook Stop (no memory root)": median_ms([str(venv / "bin" / "memdown"), "hook", "Stop"], real),
        "shim: memdown hook Stop (no memory root)": median_ms([shim, "Stop"], real),
    }
    guarded = {**real, "MEMDOWN_HOME": str(memdown_home(tmp))}
    for command, verdict in BASH_CALLS:
        call = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command},
                           "cwd": str(tmp)}).encode()
        out[f"shim: PreToolUse guards, Bash {command!r} ({verdict})"] = median_ms([shim, "PreToolUse", "guards"],
                                                                              guarded, call)
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def spread(values: list[float]) -> str:
    """``median (p25-p75)`` in whole ms; ``-`` when there is none."""
    if not values:
        return "-"
    if len(values) < 2:
        return f"{values[0]:.0f}"
    low, _, high = statistics.quantiles(values, n=4)
    return f"{statistics.median(values):.0f} ({low:.0f}-{high:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=6, help="sessions per plugin")
    parser.add_argument("--claude", help="the Claude Code CLI (default: $MEMDOWN_E2E_CLAUDE or .e2e/claude-code)")
    parser.add_argument("--venv", help="an existing non-editable memdown venv to use as the plugin's venv")
    parser.add_argument("--shell-runs", type=int, default=20)
    parser.add_argument("--compare", metavar="VENV", help="a second non-editable memdown venv (an older version), "
                        "run in turn with this one through the same shim, so both see the same load")
    args = parser.parse_args()
    cli = find_claude(args.claude)
    venv = plugin_venv(args.venv)
    version = subprocess.run([cli, "--version"], capture_output=True, text=True).stdout.strip()
    WORK.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="memdown-clientbench-"))
    floor = floor_plugin(scratch / "floor-plugin")
    plugins = [("memdown", REPO, "memdown-hook", "memdown:memory-recall", venv),
               ("floor", floor, "/hooks/noop", "floor:memory-recall", None)]
    if args.compare:
        plugins.insert(1, ("compare", REPO, "memdown-hook", "memdown:memory-recall", Path(args.compare)))
    results: dict[str, dict[str, list[float]]] = {name: {} for name, *_ in plugins}
    loads = [os.getloadavg()[0]]
    for name, plugin, marker, skill, plugin_venv_dir in plugins:
        tmp = scratch / name
        (tmp / "project" / ".git").mkdir(parents=True)
        month_of_memory(tmp / "project")
        # one warm-up session (first start of the CLI and of the venv's files), not counted
        run_session(cli, plugin, marker, skill, tmp, plugin_venv_dir)
    for i in range(args.sessions):
        for name, plugin, marker, skill, plugin_venv_dir in (plugins if i % 2 == 0 else plugins[::-1]):  # ABBA
            timings = run_session(cli, plugin, marker, skill, scratch / name, plugin_venv_dir)
            for event, ms in timings.items():
                results[name].setdefault(event, []).append(ms)
        loads.append(os.getloadavg()[0])
        print(f"  session {i + 1}/{args.sessions} done (load {loads[-1]:.2f})", flush=True)
    (WORK / "results.json").write_text(json.dumps({"version": version, "sessions": results}, indent=1))
    print(f"\nclient-measured hook time, median (p25-p75) of {args.sessions} sessions per column "
          f"({version}, --debug-file, ABBA order)")
    compare = f" {'compare ms':>15}" if args.compare else ""
    print(f"{'hook':31} {'memdown ms':>15}{compare} {'floor ms':>15} {'goal':>8}  n")
    for event in ROWS:
        mem, flo = results["memdown"].get(event, []), results["floor"].get(event, [])
        other = results.get("compare", {}).get(event, [])
        compare = f" {spread(other):>15}" if args.compare else ""
        med = statistics.median(mem) if mem else float("nan")
        goal = GOALS.get(event)
        goal_text = f"<= {goal}" if goal else ("< 1500" if event == "SessionEnd" else "")
        verdict = "" if not goal or not mem else ("  met" if med <= goal else "  MISSED")
        if event == "SessionEnd" and mem:
            verdict = "  met" if med < 1500 else "  MISSED"
        print(f"{event + ('*' if event == 'SessionEnd' else ''):31} {spread(mem):>15}{compare} "
              f"{spread(flo):>15} {goal_text:>8}{verdict}  {len(mem)}/{len(flo)}")
    print("  * SessionEnd: not timed by the client; previous debug line -> first output line (upper bound)")
    shell = shell_costs(venv, args.shell_runs)
    loads.append(os.getloadavg()[0])
    shutil.rmtree(scratch, ignore_errors=True)

    print(f"\nshell-level costs outside the client, median of {args.shell_runs} (wall / CPU user+sys)")
    for label, (wall, cpu) in shell.items():
        print(f"  {label:62} {wall:7.1f} ms  {cpu:6.1f} ms CPU")
    print(f"\nload average (1 min) during the run: min {min(loads):.2f}, max {max(loads):.2f} "
          f"(cores: {os.cpu_count()})")


if __name__ == "__main__":
    main()
