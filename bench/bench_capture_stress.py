"""Lossless capture under load: N Stop hooks at once, and a day-file lock held by a stranger.

    python bench/bench_capture_stress.py [--counts 16,48,64] [--turns 2] [--lock-hold 60]
                                         [--lock-hooks 16] [--load 2] [--source DIR]

Every hook is a real ``python -m memdown hook Stop`` process, run the way the
client runs it (JSON on stdin, detached workers, no ``MEMDOWN_HOOK_SYNC``).
All processes are started first and wait on a barrier file, then are released
together, so they really overlap. ``--load`` busy-loop processes keep the CPU
saturated meanwhile. Each session has ``--turns`` finished turns, so a lost
job costs every turn of its session.

After the hooks exit the bench waits until every expected turn is in the day
files, or until nothing is pending any more and no worker runs (a job that is
quarantined or parked in ``jobs/failed/`` counts as lost), or ``--timeout``.

Scenario "stranger lock": a foreign process holds the day file's lock for
``--lock-hold`` seconds while ``--lock-hooks`` Stop hooks fire.

``--source DIR`` runs the hooks from another source tree (e.g. an older
checkout made with ``git archive``) for before/after figures.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from capture_stress import (  # noqa: E402
    parked, pending, recorded, start_gated_hooks, wait_settled, workers_running, write_sessions,
)

DAYS = ("2026-11-19", "2026-11-20", "2026-11-21")  # the factory's turns are on 2026-11-20 UTC, any local zone


def _busy() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def scenario(name: str, hooks: int, args: argparse.Namespace, *, lock_hold: float = 0.0) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="memdown-stress-"))
    project = tmp / "project"
    (project / ".git").mkdir(parents=True)
    root = project / ".memdown"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDOWN_")}
    env.update(MEMDOWN_DIR=str(root), MEMDOWN_HOME=str(tmp / "home"), HOME=str(tmp / "home"),
               MEMDOWN_WATCH_ENABLED="0", MEMDOWN_ARCHIVE_ENABLED="0", LANCEDB_LOG="error",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin")  # no `claude`: extractive
    if args.source:
        env["PYTHONPATH"] = str(Path(args.source).resolve())
    barrier = tmp / "go"
    payloads, expected = write_sessions(tmp, project, hooks, args.turns)
    procs = start_gated_hooks(payloads, barrier, env, project)
    stranger = None
    if lock_hold:
        (root / "memory").mkdir(parents=True, exist_ok=True)
        locks = " ".join(repr(str(root / "memory" / f".{d}.md.lock")) for d in DAYS)
        stranger = subprocess.Popen([sys.executable, "-c", (
            "import fcntl, os, sys, time\n"
            f"fds = [os.open(p, os.O_RDWR | os.O_CREAT, 0o600) for p in [{locks.replace(' ', ', ')}]]\n"
            "[fcntl.flock(fd, fcntl.LOCK_EX) for fd in fds]\n"
            "print('held', flush=True)\n"
            f"time.sleep({lock_hold})\n")], stdout=subprocess.PIPE, text=True)
        assert stranger.stdout is not None and stranger.stdout.readline().strip() == "held"
    load = [_busy() for _ in range(args.load)]
    time.sleep(0.3)  # every shell is waiting on the barrier
    started = time.monotonic()
    barrier.touch()
    codes = [p.wait(timeout=600) for p in procs]
    hooks_done = time.monotonic() - started
    wait_settled(root, expected, started + args.timeout + lock_hold)
    for p in load:
        p.kill()
        p.wait()
    if stranger is not None:
        stranger.kill()
        stranger.wait()
    found = recorded(root)
    result = {
        "scenario": name, "hooks": hooks, "turns": len(expected), "lost": len(expected - set(found)),
        "duplicates": len(found) - len(set(found)),
        "hook_exit_nonzero": sum(1 for c in codes if c), "hooks_s": round(hooks_done, 1),
        "all_done_s": round(time.monotonic() - started, 1),
        "pending_left": pending(root), "failed_or_quarantined": parked(root),
    }
    if not args.keep:
        # Workers still running (timeout) write into this folder; leave it to them rather than race.
        if not workers_running(root):
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        result["folder"] = str(tmp)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--counts", default="16,48,64", help="concurrent Stop hooks per scenario")
    parser.add_argument("--turns", type=int, default=2, help="finished turns per session")
    parser.add_argument("--lock-hold", type=float, default=60.0, help="seconds the stranger holds the lock (0: skip)")
    parser.add_argument("--lock-hooks", type=int, default=16)
    parser.add_argument("--load", type=int, default=2, help="busy-loop processes during each scenario")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for workers after release")
    parser.add_argument("--source", help="run the hooks from this source tree instead of the installed memdown")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folders")
    args = parser.parse_args()
    print(f"capture stress ({os.cpu_count()} cores, {args.load} busy loops, {args.turns} turns/session"
          f"{', source ' + args.source if args.source else ''})")
    print(f"{'scenario':24} {'hooks':>5} {'lost/total':>11} {'dupes':>5} {'hook!=0':>7} {'hooks s':>7} {'done s':>7} "
          f"{'pending':>7} {'parked':>6}")
    rows = [scenario(f"{n} concurrent Stop", n, args) for n in (int(c) for c in args.counts.split(",") if c)]
    if args.lock_hold:
        rows.append(scenario(f"stranger lock {args.lock_hold:.0f}s", args.lock_hooks, args, lock_hold=args.lock_hold))
    for r in rows:
        print(f"{r['scenario']:24} {r['hooks']:5} {str(r['lost']) + '/' + str(r['turns']):>11} {r['duplicates']:5} "
              f"{r['hook_exit_nonzero']:7} {r['hooks_s']:7} {r['all_done_s']:7} {r['pending_left']:7} "
              f"{r['failed_or_quarantined']:6}" + (f"  {r['folder']}" if "folder" in r else ""))


if __name__ == "__main__":
    main()
