"""What each hook costs the machine, through the plugin's shim: CPU time, and instructions with --callgrind.

    python bench/bench_hook_cpu.py [--runs 30] [--callgrind] [--only NAME ...]

Wall-clock hook times swing with the load of this shared 2-core machine; CPU time (user+sys of the shim
and the Python it starts, min and median of --runs) moves much less, and callgrind's instruction count
(one run under valgrind, shim and Python together; the detached worker, and the child a capture hook forks
after its answer, left out: the client waits for neither) not at all, so a change
on a hook's path can be judged at any hour. The lead's wall-clock figure is bench_client_hooks.py.

The hook runs as Claude Code runs it: ``hooks/memdown-hook EVENT`` with a scratch CLAUDE_PLUGIN_DATA whose
venv is plugin-shaped (``site-packages/memdown`` is this checkout, a symlink; the interpreter is this one),
so the shim starts ``python -I -S`` on it. The project has a month of daily logs; MEMDOWN_HOME holds one
approved guard ("Never run `git push --force`."), so every Bash/Edit call takes the guard path.
Cases: SessionStart (second start: caches warm), UserPromptSubmit on a session's first prompt (the hint,
fenced) and on a later prompt without a recall cue ({}), PreToolUse for the recall skill, for Bash
commands the guard passes and stops, and for an Edit, and Stop (the job queued, the worker started; it is
waited for before the next run). Scratch files: a temporary folder, removed at the end.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from bench_client_hooks import memdown_home, month_of_memory, wait_for_jobs  # noqa: E402

SHIM = REPO / "hooks" / "memdown-hook"


def plugin_data(tmp: Path) -> Path:
    """A CLAUDE_PLUGIN_DATA whose venv the shim takes for an installed plugin, running this checkout."""
    venv = tmp / "data" / "venv"
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    site.mkdir(parents=True)
    (site / "memdown").symlink_to(REPO / "memdown")
    (venv / "bin").mkdir()
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "bin" / "memdown").write_text("#!/bin/sh\nexit 0\n")  # only looked for; the shim starts python
    (venv / "bin" / "memdown").chmod(0o755)
    version = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())["version"]
    (venv / ".plugin-version").write_text(f"{version}\n")  # up to date: SessionStart starts no upgrade
    (venv / "pyvenv.cfg").write_text(f"home = {Path(sysconfig.get_paths()['scripts'])}\n"
                                     f"include-system-site-packages = false\nversion = {sys.version.split()[0]}\n")
    return tmp / "data"


def cases(project: Path, transcript: Path) -> dict[str, tuple[list[str], dict]]:
    base = {"transcript_path": str(transcript), "cwd": str(project)}
    bash = {"hook_event_name": "PreToolUse", "tool_name": "Bash"}
    return {
        "SessionStart": (["SessionStart"], {**base, "session_id": "s-bench", "source": "startup"}),
        "UserPromptSubmit (first prompt)": (["UserPromptSubmit"], {**base, "session_id": "NEW",
                                                                   "prompt": "fix the rounding bug in the totals"}),
        "UserPromptSubmit (later, no cue)": (["UserPromptSubmit"], {**base, "session_id": "s-bench",
                                                                    "prompt": "fix the rounding bug in the totals"}),
        "PreToolUse Skill (recall allowed)": (["PreToolUse"], {**base, "hook_event_name": "PreToolUse",
                                              "tool_name": "Skill", "tool_input": {"skill": "memdown:memory-recall"}}),
        "PreToolUse Bash, guard passes": (["PreToolUse", "guards"], {**base, **bash,
                                          "tool_input": {"command": "git status && ls -la | head"}}),
        "PreToolUse Bash, guard stops": (["PreToolUse", "guards"], {**base, **bash,
                                         "tool_input": {"command": "git push --force origin main"}}),
        "PreToolUse Edit (guard file)": (["PreToolUse", "guards"], {**base, "hook_event_name": "PreToolUse",
                                         "tool_name": "Edit", "tool_input": {"file_path": str(project / "a.py")}}),
        "Stop (job queued, worker started)": (["Stop"], {**base, "session_id": "s-bench", "stop_hook_active": False}),
    }


def stdin_of(event: str, payload: dict) -> bytes:
    if payload.get("session_id") == "NEW":
        payload = {**payload, "session_id": uuid.uuid4().hex}
    return json.dumps({"hook_event_name": event, **payload}).encode()


def cpu_ms(args: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> float:
    """user+sys of the shim and everything it waited for (not the detached worker)."""
    proc = subprocess.Popen([str(SHIM), *args], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    proc.stdin.write(stdin)  # type: ignore[union-attr]
    proc.stdin.close()  # type: ignore[union-attr]
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return 1000 * (usage.ru_utime + usage.ru_stime)


def instructions(args: list[str], stdin: bytes, env: dict[str, str], cwd: Path, out: Path) -> int:
    """callgrind's instruction count of the shim and the Python it starts (the detached worker skipped)."""
    for old in glob.glob(str(out / "cg.*")):
        os.unlink(old)
    subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes", "--trace-children-skip-by-arg=worker",
                    f"--callgrind-out-file={out}/cg.%p", str(SHIM), *args], input=stdin, capture_output=True,
                   env=env, cwd=cwd, check=False)
    by_command: dict[str, int] = {}
    for name in sorted(glob.glob(str(out / "cg.*")), key=lambda n: int(n.rsplit(".", 1)[1])):
        with open(name) as handle:
            head = [line.rstrip("\n") for line in handle if line.startswith(("cmd:", "summary:", "totals:"))]
        command = next((line for line in head if line.startswith("cmd:")), name)
        if command in by_command:  # a child the hook forked after its answer: it carries the parent's counts
            continue               # up to the fork, and the client does not wait for it
        by_command[command] = next((int(line.split()[1]) for line in head if not line.startswith("cmd:")), 0)
    return sum(by_command.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--callgrind", action="store_true", help="also count instructions (needs valgrind)")
    parser.add_argument("--only", nargs="*", default=[], help="case names starting with these words")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memdown-hookcpu-"))
    try:
        project = tmp / "project"
        (project / ".git").mkdir(parents=True)
        month_of_memory(project)
        transcript = tmp / "transcripts" / "s-bench.jsonl"
        transcript.parent.mkdir()
        transcript.write_text("")
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp / "home"), "LANG": "C.UTF-8",
               "MEMDOWN_HOME": str(memdown_home(tmp / "home")), "MEMDOWN_WATCH_ENABLED": "0",
               "CLAUDE_PLUGIN_ROOT": str(REPO), "CLAUDE_PLUGIN_DATA": str(plugin_data(tmp))}
        chosen = {name: case for name, case in cases(project, transcript).items()
                  if not args.only or any(name.startswith(word) for word in args.only)}
        for name, (hook_args, payload) in chosen.items():  # warm-up: .pyc files, caches, the session's marker
            cpu_ms(hook_args, stdin_of(hook_args[0], payload), env, project)
            wait_for_jobs(project, 60)
        load = [os.getloadavg()[0]]
        print(f"CPU user+sys per hook call through the shim, {args.runs} runs each"
              + (", and instructions (callgrind, one run)" if args.callgrind else ""))
        print(f"{'hook':36} {'min ms':>7} {'median ms':>10}" + (f" {'M instr':>8}" if args.callgrind else ""))
        for name, (hook_args, payload) in chosen.items():
            values = []
            for _ in range(args.runs):
                values.append(cpu_ms(hook_args, stdin_of(hook_args[0], payload), env, project))
                if hook_args[0] == "Stop":
                    wait_for_jobs(project, 60)
            row = f"{name:36} {min(values):7.1f} {statistics.median(values):10.1f}"
            if args.callgrind:
                row += f" {instructions(hook_args, stdin_of(hook_args[0], payload), env, project, tmp) / 1e6:8.1f}"
                wait_for_jobs(project, 60)
            print(row, flush=True)
            load.append(os.getloadavg()[0])
        python = [sys.executable, "-I", "-S", "-c", "pass"]
        values = []
        for _ in range(args.runs):
            proc = subprocess.Popen(python)
            _, _, usage = os.wait4(proc.pid, 0)
            proc.returncode = 0
            values.append(1000 * (usage.ru_utime + usage.ru_stime))
        print(f"{'floor: python -I -S -c pass':36} {min(values):7.1f} {statistics.median(values):10.1f}")
        print(f"load average (1 min) during the run: min {min(load):.2f}, max {max(load):.2f} "
              f"(cores: {os.cpu_count()})")
    finally:
        wait_for_jobs(tmp / "project", 30)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
