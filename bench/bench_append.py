"""Cost of appending one turn to a long day: the 10th turn against the 2,000th (issue 21, item 4).

    python bench/bench_append.py [--turns 10,500,1000,2000] [--sessions 1,8] [--repeat 9] [--rounds 3]
                                 [--source DIR] [--compare DIR]

A day file already holding N-1 entries (written in the daily-log format,
spread over ``--sessions`` session sections) gets one more entry through
``memdown.store.daily.append_entry``, the call the capture worker makes per
turn; the median of ``--repeat`` appends is printed, wall time and the
process's CPU time (user + sys: less moved by other work on the machine than
wall time, whose fsyncs wait on the shared disk). The new entry is the first
session's. With one session its section is the last one; with several it is
followed by the other sessions' sections (the entry went in the middle of
the file, rewriting it, before session 5; it now goes at the end under a
``## Session … (continued)`` heading).

``--batches 4x500`` instead records one session of 2,000 turns through the
capture pipeline (``services.capture.record.record_session``, extractive summaries),
500 new turns per call, and prints each batch's seconds: the shape the issue
measured (1, 3, 5 and 6.7 minutes before).

Every configuration runs ``--rounds`` times in turn (a fresh process and day
each time), so a busy minute on the shared machine falls on all of them
alike. ``--source DIR`` runs the same measurement against another source tree
(an older checkout made with ``git archive``); ``--compare DIR`` measures DIR
as well, interleaved with the installed tree, for before/after figures taken
under the same load.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

BULLETS = ["Asked: make the importer retry on HTTP 503 and log the attempt",
           "Outcome: The importer retries three times with backoff; tests pass.",
           "Files changed: `src/importer.py`, `tests/test_importer.py`",
           "Commands: `pytest tests/test_importer.py -q`"]


def _uuid(kind: str, n: int) -> str:
    """A fixed UUID-shaped id, as Claude Code's session and turn ids are (the turn's substring search
    skips ahead by the id's length: short made-up ids would make it slower than a real day)."""
    return str(uuid.UUID(int=random.Random(f"{kind}{n}").getrandbits(128), version=4))


def _day_text(turns: int, sessions: int) -> str:
    """A day of ``turns`` entries in ``sessions`` contiguous session sections (the format daily.py writes)."""
    parts = ["# 2026-11-20\n"]
    per = max(1, turns // sessions)
    n = 0
    for s in range(sessions):
        parts.append(f"\n## Session {s % 24:02d}:00\n")
        for _ in range(per if s < sessions - 1 else turns - n):
            parts.append(f"\n### {s % 24:02d}:{n % 60:02d}\n<!-- session:{_uuid('s', s)} turn:{_uuid('t', n)} "
                         f"transcript:~/.claude/projects/p/{_uuid('s', s)}.jsonl -->\n"
                         + "".join(f"- {b} ({n})\n" for b in BULLETS))
            n += 1
    return "".join(parts)


def inner(turns: int, sessions: int, repeat: int) -> list[list[float]]:
    from memdown.store import daily

    with tempfile.TemporaryDirectory(prefix="memdown-append-") as tmp:
        root = Path(tmp) / ".memdown"
        path = root / "memory" / "2026-11-20.md"
        path.parent.mkdir(parents=True)
        path.write_text(_day_text(turns - 1, sessions))
        with open(path, "rb+") as handle:  # a day written earlier is on disk: its writeback is not the append's
            os.fsync(handle.fileno())
        took, cpu = [], []
        for k in range(repeat):
            entry = daily.Entry(datetime(2026, 11, 20, 23, k % 60), _uuid("s", 0), _uuid("new", k),
                                f"~/.claude/projects/p/{_uuid('s', 0)}.jsonl", BULLETS)
            started, started_cpu = time.perf_counter(), time.process_time()
            assert daily.append_entry(root, entry) is not None
            took.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
    return [took, cpu]


def batches(count: int, size: int) -> list[float]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from transcript_factory import TranscriptBuilder

    from memdown.config import load_config
    from memdown.services.capture.record import record_session

    tmp = Path(tempfile.mkdtemp(prefix="memdown-batches-"))
    root = tmp / "project" / ".memdown"
    root.mkdir(parents=True)
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin"  # no model
    config = load_config(root)
    b = TranscriptBuilder(cwd=str(tmp / "project"))
    took = []
    for _ in range(count):
        for n in range(size):
            b.prompt(f"turn {len(b.turn_uuids)}: make the importer retry on HTTP 503")
            b.tool("Bash", {"command": "pytest tests/test_importer.py -q"}, "1 passed")
            b.reply(f"Done with turn {len(b.turn_uuids)}.")
        transcript = b.write(tmp / "t.jsonl")
        started = time.perf_counter()
        record_session(root, transcript, b.session_id, config=config)
        took.append(time.perf_counter() - started)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", default="10,500,1000,2000")
    parser.add_argument("--sessions", default="1,8")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=3, help="run every configuration this many times, in turn")
    parser.add_argument("--source", help="measure this source tree instead of the installed memdown")
    parser.add_argument("--compare", help="also measure this source tree, interleaved with the first")
    parser.add_argument("--batches", help="COUNTxSIZE: record one session in COUNT calls of SIZE new turns")
    parser.add_argument("--inner", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        print(json.dumps(inner(*args.inner)))
        return
    if args.batches:
        count, size = (int(x) for x in args.batches.split("x"))
        took = batches(count, size)
        print(f"one session, {count} captures of {size} new turns each (load {os.getloadavg()[0]:.2f}): "
              + ", ".join(f"{t:.1f} s" for t in took))
        return
    trees = [args.source] if args.source else [None]
    trees += [args.compare] if args.compare else []
    envs = {tree: dict(os.environ, **({"PYTHONPATH": str(Path(tree).resolve())} if tree else {})) for tree in trees}
    configs = [(int(s), int(t)) for s in args.sessions.split(",") for t in args.turns.split(",")]
    took: dict = {(tree, c): ([], []) for tree in trees for c in configs}
    load = [os.getloadavg()[0]]
    for _ in range(args.rounds):  # round-robin: every configuration sees the same load, not one minute each
        for tree in trees:
            for sessions, turns in configs:
                out = subprocess.run([sys.executable, __file__, "--inner", str(turns), str(sessions), str(args.repeat)],
                                     capture_output=True, text=True, env=envs[tree], check=True)
                wall, cpu = json.loads(out.stdout.strip().splitlines()[-1])
                took[tree, (sessions, turns)][0].extend(wall)
                took[tree, (sessions, turns)][1].extend(cpu)
        load.append(os.getloadavg()[0])
    print(f"append one entry to a day of N entries (median of {args.rounds} x {args.repeat}; "
          f"load {min(load):.2f}-{max(load):.2f})")
    for tree in trees:
        print(f"source: {tree or 'installed memdown'}")
        print(f"{'sessions':>8} {'N':>6} {'median ms':>10} {'max ms':>8} {'CPU median ms':>14}")
        for sessions, turns in configs:
            wall, cpu = took[tree, (sessions, turns)]
            print(f"{sessions:8} {turns:6} {statistics.median(wall) * 1000:10.1f} {max(wall) * 1000:8.1f}"
                  f" {statistics.median(cpu) * 1000:14.2f}")


if __name__ == "__main__":
    main()
