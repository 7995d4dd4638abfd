"""Many real Stop hook processes released at once (shared by the suite and bench/bench_capture_stress.py).

Every hook process is started first and waits on a barrier file, so all of
them really overlap once the file appears; the hooks run as the client runs
them (``python -m memdown hook Stop``, JSON on stdin, detached workers).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from transcript_factory import TranscriptBuilder

ANCHOR = re.compile(r"<!-- session:(\S+) turn:(\S+)")


def write_sessions(tmp: Path, project: Path, count: int, turns: int) -> tuple[list[Path], set[tuple[str, str]]]:
    """``count`` transcripts of ``turns`` finished turns each; their Stop payload files and (session, turn) pairs."""
    payloads: list[Path] = []
    expected: set[tuple[str, str]] = set()
    for n in range(count):
        b = TranscriptBuilder(session_id=f"stress-{n:03d}", cwd=str(project))
        for t in range(turns):
            b.prompt(f"session {n} turn {t}: make the importer retry on HTTP 503")
            b.tool("Bash", {"command": f"pytest tests/test_import_{n}.py -q"}, "1 passed")
            b.reply(f"Done with turn {t} of session {n}.")
        transcript = b.write(tmp / "transcripts" / f"{b.session_id}.jsonl")
        expected.update((b.session_id, u) for u in b.turn_uuids)
        payload = tmp / "payloads" / f"{n}.json"
        payload.parent.mkdir(parents=True, exist_ok=True)
        payload.write_text(json.dumps({
            "session_id": b.session_id, "transcript_path": str(transcript), "cwd": str(project),
            "hook_event_name": "Stop", "stop_hook_active": False,
            "last_assistant_message": f"Done with turn {turns - 1} of session {n}.",
        }))
        payloads.append(payload)
    return payloads, expected


def start_gated_hooks(payloads: list[Path], barrier: Path, env: dict[str, str], cwd: Path) -> list[subprocess.Popen]:
    """One waiting ``memdown hook Stop`` per payload; each starts its interpreter when ``barrier`` appears."""
    procs = []
    for payload in payloads:
        script = (f'while [ ! -e "{barrier}" ]; do sleep 0.01; done; '
                  f'exec "{sys.executable}" -m memdown hook Stop < "{payload}"')
        procs.append(subprocess.Popen(["sh", "-c", script], env=env, cwd=cwd,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
    return procs


def recorded(root: Path) -> list[tuple[str, str]]:
    """Every (session, turn) anchor in the day files, duplicates included."""
    found: list[tuple[str, str]] = []
    for day in sorted((root / "memory").glob("*.md")):
        found.extend(ANCHOR.findall(day.read_text(encoding="utf-8", errors="replace")))
    return found


def workers_running(root: Path) -> bool:
    """Any live (non-zombie) process whose command line is a worker for this memory root."""
    needle = str(root).encode()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[-1][:1]
        except OSError:
            continue
        if needle in cmd and b"worker" in cmd and state != "Z":
            return True
    return False


def pending(root: Path) -> int:
    jobs = root / "state" / "jobs"
    if not jobs.is_dir():
        return 0
    return sum(1 for p in jobs.iterdir() if p.is_file() and p.name.endswith((".json", ".tmp")))


def parked(root: Path) -> int:
    """Jobs in ``failed/`` (older versions: never retried) or ``quarantine/``."""
    jobs = root / "state" / "jobs"
    return sum(len(list((jobs / name).glob("*"))) for name in ("failed", "quarantine") if (jobs / name).is_dir())


def wait_settled(root: Path, expected: set[tuple[str, str]], deadline: float) -> None:
    """Until every expected turn is recorded, or nothing is pending and no worker runs, or ``deadline``."""
    while time.monotonic() < deadline:
        if expected <= set(recorded(root)):
            return
        if pending(root) == 0 and not workers_running(root):
            time.sleep(1.0)  # a worker may be between its last job and exiting
            if pending(root) == 0 and not workers_running(root):
                return
        time.sleep(0.5)
