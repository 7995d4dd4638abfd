"""`memdown forget` on real sessions nobody here wrote (issue 28, item 5).

    python bench/bench_forget.py [--transcripts 3] [--entries 10] [--seed 28]

Imports ``--transcripts`` real Claude Code sessions of ``../shared/transcripts/real`` (100-800 KB, picked at
random with ``--seed``) into a fresh memory root and MEMDOWN_HOME under /tmp (real CLI, extractive entries,
packaged model, LanceDB, archive), then forgets ``--entries`` random entries by turn uuid with
``memdown forget ID --yes``, one process each. For every entry, each `Asked:`/`Outcome:` line (its first 60
characters) that no other entry holds is looked for in every file under the memory root and MEMDOWN_HOME
(gzip decompressed; JSON-escaped as the archive holds it) before and after. Prints the import time, the
seconds of each forget, and every line still found after (none means no trace).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REAL = REPO.parent / "shared" / "transcripts" / "real"
sys.path.insert(0, str(REPO))


def _env(base: Path) -> dict[str, str]:
    home = base / "home"
    return {**os.environ, "HOME": str(home), "MEMDOWN_HOME": str(home / "md"),
            "MEMDOWN_DIR": str(base / "project" / ".memdown"), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "XDG_CONFIG_HOME": str(home / ".config"), "MEMDOWN_CONFIG": str(home / ".config/memdown/config.toml"),
            "MEMDOWN_WATCH_ENABLED": "0", "MEMDOWN_WATCH_START_ON_QUERY": "0", "PATH": "/usr/bin:/bin"}


def _traces(needle: str, *tops: Path) -> list[str]:
    forms = (needle.encode(), json.dumps(needle)[1:-1].encode())
    found = []
    for top in tops:
        for path in (p for p in top.rglob("*") if p.is_file() and not p.is_symlink()):
            data = path.read_bytes()
            if data[:2] == b"\x1f\x8b":
                try:
                    data = gzip.decompress(data)
                except (OSError, EOFError):
                    pass
            if any(form in data for form in forms):
                found.append(str(path))
    return found


def main() -> int:
    args = argparse.ArgumentParser()
    args.add_argument("--transcripts", type=int, default=3)
    args.add_argument("--entries", type=int, default=10)
    args.add_argument("--seed", type=int, default=28)
    opts = args.parse_args()
    if not REAL.is_dir():
        print(f"{REAL} is absent")
        return 1
    from memdown.store import forgetting

    rng = random.Random(opts.seed)
    files = [f for f in sorted(REAL.glob("*/*/*.jsonl")) if 100_000 < f.stat().st_size < 800_000]
    base = Path(tempfile.mkdtemp(prefix="bench-forget-"))
    env, project = _env(base), base / "project"
    project.mkdir()
    root, home = project / ".memdown", base / "home" / "md"
    memdown = [sys.executable, "-m", "memdown"]
    subprocess.run([*memdown, "init"], env=env, cwd=project, capture_output=True, check=True)
    started = time.time()
    subprocess.run([*memdown, "import", *map(str, rng.sample(files, opts.transcripts))], env=env, cwd=project,
                   capture_output=True, check=True)
    print(f"import of {opts.transcripts} real sessions: {time.time() - started:.1f} s")
    queue = root / "state" / "import-archive.json"
    for _ in range(600):  # the archive is written by a detached process
        if not queue.exists() or json.loads(queue.read_text() or "{}") == {}:
            break
        time.sleep(0.5)
    entries = [e for p in sorted((root / "memory").glob("*.md")) for e in forgetting.entries_in(p, p.read_text())]
    corpus = "\n".join(e.block for e in entries)

    def lines_of(entry) -> list[str]:
        found = [m.group(2)[:60] for m in re.finditer(r"^- (Asked|Outcome): (.{25,})$", entry.block, re.M)]
        return [text for text in found if corpus.count(text) == 1]

    chosen = rng.sample([e for e in entries if e.turn and lines_of(e)], opts.entries)
    needles = [n for e in chosen for n in lines_of(e)]
    before = sum(1 for n in needles if _traces(n, root, home))
    print(f"{len(entries)} entries; {len(needles)} lines of {len(chosen)} entries found before: {before}")
    seconds, left = [], []
    for entry in chosen:
        started = time.time()
        subprocess.run([*memdown, "forget", entry.turn, "--yes"], env=env, cwd=project, capture_output=True,
                       check=True)
        seconds.append(time.time() - started)
        left += [(n, t) for n in lines_of(entry) for t in _traces(n, root, home)]
    print("forget seconds (one process each, model load and LanceDB compaction included): "
          + ", ".join(f"{s:.1f}" for s in seconds))
    print(f"lines still found after: {len(left)}")
    for needle, where in left:
        print(f"  {needle!r}: {where}")
    shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
