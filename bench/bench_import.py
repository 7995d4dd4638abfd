"""``memdown import`` of a large history, timed end to end (issue #19: 100 sessions, ~5,000 turns, < 5 min).

    python bench/bench_import.py                      # ../shared/transcripts, repeated to >= 100 sessions and >= 5,000 turns
    python bench/bench_import.py --sessions 100 --turns 0 --keep /tmp/imported

The sessions are the real main-session transcripts in ``../shared/transcripts``
(subagent logs are not sessions). There are fewer than 100 of them, so they are
repeated: each copy gets a fresh session id, fresh line uuids and fresh API
message ids (otherwise memdown would rightly see it as a fork of the original
and record nothing), and keeps its timestamps, so copies land on the same days as
their originals (bigger day files than a real history: the harder case). The
copies live in a temporary ``CLAUDE_CONFIG_DIR/projects/<key>/`` and the real CLI
runs ``memdown import --json`` in a subprocess from that project, without
``claude`` (extractive summaries), a fresh ``MEMDOWN_HOME`` and a fresh memory,
index update included. Prints the import's JSON summary, the wall time, the CPU time
of the import process (user + system; on a shared machine the wall time mostly measures
the others) and the load average before and after.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "transcripts"
sys.path.insert(0, str(REPO))

from memdown.services.capture.importer import find_transcripts, project_key  # noqa: E402
from memdown.transcript.parser import parse_transcript  # noqa: E402


def _copy(source: Path, dest_dir: Path, *, fresh: bool) -> Path:
    """``source`` as a new session (fresh ids) or as is; returns the new file."""
    if not fresh:
        target = dest_dir / source.name
        shutil.copyfile(source, target)
        return target
    session = str(uuid.uuid4())
    ids: dict[str, str] = {}
    out = []
    for raw in source.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict):
            if "sessionId" in line:
                line["sessionId"] = session
            for key in ("uuid", "parentUuid", "logicalParentUuid"):
                if isinstance(line.get(key), str):
                    line[key] = ids.setdefault(line[key], str(uuid.uuid4()))
            message = line.get("message")
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                message["id"] = ids.setdefault(message["id"], "msg_" + uuid.uuid4().hex[:24])
        out.append(json.dumps(line))
    target = dest_dir / f"{session}.jsonl"
    target.write_text("\n".join(out) + "\n", encoding="utf-8")
    return target


def build_history(dest_dir: Path, sessions: int, turns: int) -> tuple[int, int, int]:
    """(sessions, turns, originals) written to ``dest_dir``."""
    originals = find_transcripts([SHARED], cwd=SHARED)
    counts = {p: len(parse_transcript(p, include_subagents=False).turns) for p in originals}
    made = total = 0
    round_ = 0
    while made < sessions or total < turns:
        for source in originals:
            _copy(source, dest_dir, fresh=round_ > 0 or source.name in {p.name for p in dest_dir.iterdir()})
            made += 1
            total += counts[source]
            if made >= sessions and total >= turns:
                break
        round_ += 1
    old = time.time() - 86_400  # not live sessions
    for path in dest_dir.iterdir():
        os.utime(path, (old, old))
    return made, total, len(originals)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--keep", type=Path, default=None, help="work here and keep it (default: a temp dir)")
    args = parser.parse_args()
    if not SHARED.is_dir():
        print(f"skipped: {SHARED} is absent")
        return 0
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-import-"))
    project = work / "project"
    home = work / "home"
    project.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    history = home / ".claude" / "projects" / project_key(project)
    history.mkdir(parents=True, exist_ok=True)
    sessions, turns, originals = build_history(history, args.sessions, args.turns)
    print(f"history: {sessions} sessions, {turns} turns (from {originals} real transcripts, repeated with fresh ids)")
    env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
           "MEMDOWN_HOME": str(home / "memdown"), "MEMDOWN_SUMMARIZER_USE_CLAUDE": "0",
           "MEMDOWN_WATCH_ENABLED": "0"}
    env.pop("MEMDOWN_DIR", None)
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "memdown", "import", "--json"], cwd=project, env=env,
                          capture_output=True, text=True)
    wall = time.monotonic() - started
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # the import's own CPU: the machine is shared
    cpu = usage.ru_utime + usage.ru_stime
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    if proc.returncode != 0:
        print(proc.stderr)
        return 1
    summary = json.loads(proc.stdout)
    print(json.dumps({"summary": summary, "wall_seconds": round(wall, 1),
                      "cpu_seconds": round(cpu, 1), "loadavg_before": load_before,
                      "loadavg_after": load_after, "goal_seconds": 300, "met": wall < 300}, indent=1))
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
