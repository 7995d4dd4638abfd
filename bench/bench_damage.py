"""Index damage: does every case heal through the real CLI? Prints "healed N of M".

    python bench/bench_damage.py                 # every case x search, verify, verify --repair, index
    python bench/bench_damage.py --cases cache_garbage,files_json_list --commands search

Real CLI subprocesses, the real packaged model, real LanceDB. One index is
built once in bench/.work/damage/ and copied for every (case, command) pair;
the damage catalogue is ``tests/index_damage.py`` (the same one the tests use).

Healed means:
- ``search``: exit 0, the expected section is found, stderr has only one-line
  notices (no traceback, no Rust paths), and ``verify`` is clean afterwards;
- ``verify``: exit 5 naming the problem in clean lines (it repairs nothing);
- ``verify --repair`` and ``index``: exit 0, clean output, ``verify`` clean afterwards.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work" / "damage"
sys.path.insert(0, str(REPO / "tests"))

from index_damage import DAMAGE, clean_lines, environ_for, second_commit, write_corpus  # noqa: E402

COMMANDS = {
    "search": ["search", "zebra3 redis cache", "--json"],
    "verify": ["verify"],
    "repair": ["verify", "--repair"],
    "index": ["index"],
}


def memdown(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memdown", *args], capture_output=True, text=True, env=env,
                          cwd=env["MEMDOWN_DIR"].rsplit("/", 1)[0], timeout=300)


def build_baseline() -> Path:
    base = WORK / "baseline"
    shutil.rmtree(base, ignore_errors=True)
    home, project = base / "home", base / "project"
    home.mkdir(parents=True)
    project.mkdir()
    env = environ_for(home, project)
    write_corpus(project / ".memdown")
    for step in (None, second_commit):
        if step:
            step(project / ".memdown")
        done = memdown(env, "index")
        if done.returncode:
            raise SystemExit(f"baseline index failed: {done.stderr}")
    return base


def run_case(base: Path, case: str, command: str) -> tuple[bool, str]:
    scratch = WORK / "run"
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(base, scratch, symlinks=True)
    home, project = scratch / "home", scratch / "project"
    env = environ_for(home, project)
    root = project / ".memdown"
    DAMAGE[case](root, home / "memdown" / "cache" / "embeddings.sqlite3")
    done = memdown(env, *COMMANDS[command])
    output = done.stdout + done.stderr
    leaks = clean_lines(output)
    notice = " | ".join(line for line in done.stderr.splitlines() if line.strip())[:200]
    if leaks:
        return False, f"exit {done.returncode}, leaks internals: {leaks[0][:120]}"
    if command == "verify":
        healed = done.returncode == 5 and "problem:" in done.stdout
        return healed, f"exit {done.returncode}: " + " | ".join(
            line for line in done.stdout.splitlines() if line.startswith("problem:"))[:200]
    if done.returncode != 0:
        return False, f"exit {done.returncode}: {notice}"
    if command == "search":
        hits = json.loads(done.stdout or "[]")
        if not any("zebra3" in hit["text"] for hit in hits):
            return False, "search did not find the section"
    after = memdown(env, "verify")
    if after.returncode != 0:
        return False, "verify afterwards: " + " | ".join(after.stdout.splitlines()[-2:])
    return True, notice or "(no notice)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(DAMAGE))
    parser.add_argument("--commands", default=",".join(COMMANDS))
    args = parser.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    commands = [c for c in args.commands.split(",") if c]
    started = time.perf_counter()
    base = build_baseline()
    healed = total = 0
    for case in cases:
        for command in commands:
            ok, detail = run_case(base, case, command)
            healed += ok
            total += 1
            print(f"{'HEALED' if ok else 'BROKEN'}  {case:<24} {command:<7} {detail}", flush=True)
    print(f"healed {healed} of {total} ({len(cases)} damage cases x {len(commands)} commands) "
          f"in {time.perf_counter() - started:.0f}s")


if __name__ == "__main__":
    main()
