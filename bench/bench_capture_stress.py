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
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from transcript_factory import TranscriptBuilder  # noqa: E402

ANCHOR = re.compile(r"<!-- session:(\S+) turn:(\S+)")
DAYS = ("2026-11-19", "2026-11-20", "2026-11-21")  # the factory's turns are on 2026-11-20 UTC, any local zone


def _busy() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def _recorded(root: Path) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for day in (root / "memory").glob("*.md"):
        found.update(ANCHOR.findall(day.read_text(encoding="utf-8", errors="replace")))
    return found


def _workers_running(root: Path) -> bool:
    """Any live process whose command line names this memory root (detached workers)."""
    needle = str(root).encode()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1]
        except OSError:
            continue
        if needle in cmd and b"worker" in cmd and state != "Z":
            return True
    return False


def _pending(root: Path) -> int:
    jobs = root / "state" / "jobs"
    if not jobs.is_dir():
        return 0
    return sum(1 for p in jobs.iterdir() if p.is_file() and p.name.endswith((".json", ".tmp")))


def _parked(root: Path) -> int:
    jobs = root / "state" / "jobs"
    return sum(len(list((jobs / name).glob("*"))) for name in ("failed", "quarantine") if (jobs / name).is_dir())


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
    expected: set[tuple[str, str]] = set()
    barrier = tmp / "go"
    procs = []
    for n in range(hooks):
        b = TranscriptBuilder(session_id=f"stress-{n:03d}", cwd=str(project))
        for t in range(args.turns):
            b.prompt(f"session {n} turn {t}: make the importer retry on HTTP 503")
            b.tool("Bash", {"command": f"pytest tests/test_import_{n}.py -q"}, "1 passed")
            b.reply(f"Done with turn {t} of session {n}.")
        transcript = b.write(tmp / "transcripts" / f"{b.session_id}.jsonl")
        expected.update((b.session_id, u) for u in b.turn_uuids)
        payload = tmp / "payloads" / f"{n}.json"
        payload.parent.mkdir(exist_ok=True)
        payload.write_text(json.dumps({
            "session_id": b.session_id, "transcript_path": str(transcript), "cwd": str(project),
            "hook_event_name": "Stop", "stop_hook_active": False,
            "last_assistant_message": f"Done with turn {args.turns - 1} of session {n}.",
        }))
        script = (f'while [ ! -e "{barrier}" ]; do sleep 0.01; done; '
                  f'exec "{sys.executable}" -m memdown hook Stop < "{payload}"')
        procs.append(subprocess.Popen(["sh", "-c", script], env=env, cwd=project,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
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
    deadline = started + args.timeout + lock_hold
    while time.monotonic() < deadline:
        if expected <= _recorded(root):
            break
        if _pending(root) == 0 and not _workers_running(root):
            time.sleep(1.0)  # a worker may be between its last job and exiting
            if _pending(root) == 0 and not _workers_running(root):
                break
        time.sleep(0.5)
    for p in load:
        p.kill()
        p.wait()
    if stranger is not None:
        stranger.kill()
        stranger.wait()
    recorded = _recorded(root) & expected
    result = {
        "scenario": name, "hooks": hooks, "turns": len(expected), "lost": len(expected - recorded),
        "hook_exit_nonzero": sum(1 for c in codes if c), "hooks_s": round(hooks_done, 1),
        "all_done_s": round(time.monotonic() - started, 1),
        "pending_left": _pending(root), "failed_or_quarantined": _parked(root),
    }
    if not args.keep:
        # Workers still running (timeout) write into this folder; leave it to them rather than race.
        if not _workers_running(root):
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
    print(f"{'scenario':24} {'hooks':>5} {'lost/total':>11} {'hook!=0':>7} {'hooks s':>7} {'done s':>7} "
          f"{'pending':>7} {'parked':>6}")
    rows = [scenario(f"{n} concurrent Stop", n, args) for n in (int(c) for c in args.counts.split(",") if c)]
    if args.lock_hold:
        rows.append(scenario(f"stranger lock {args.lock_hold:.0f}s", args.lock_hooks, args, lock_hold=args.lock_hold))
    for r in rows:
        print(f"{r['scenario']:24} {r['hooks']:5} {str(r['lost']) + '/' + str(r['turns']):>11} "
              f"{r['hook_exit_nonzero']:7} {r['hooks_s']:7} {r['all_done_s']:7} {r['pending_left']:7} "
              f"{r['failed_or_quarantined']:6}" + (f"  {r['folder']}" if "folder" in r else ""))


if __name__ == "__main__":
    main()
