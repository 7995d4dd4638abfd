"""What the optional `claude -p` classifier would cost per session, measured with a fake `claude`.

    python bench/signals/semantic_cost.py            # every real transcript of ../shared/transcripts

Each transcript is mined into a fresh memory root with ``mining.semantic = true`` and the detached
sweep's ``classify_queue`` is run against a fake ``claude`` first on PATH that records what it is sent
and answers ``[]``. Figures: calls, prompt characters, estimated input tokens (4 ASCII characters or one
CJK character per token; the instructions included), the wall time of the sweep with the fake (process
overhead only: a real model's latency comes on top and cannot be measured offline). Nothing is written
outside a temporary folder; skips when ../shared is absent.
"""
from __future__ import annotations

import json
import os
import re
import stat
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

FAKE = """#!{python}
import json, os, sys
text = sys.stdin.read()
with open(os.environ["FAKE_CLAUDE_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps({{"chars": len(text), "text": text}}) + "\\n")
print("[]")
"""
_CJK = re.compile(r"[\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]")


def tokens(text: str) -> int:
    cjk = len(_CJK.findall(text))
    return cjk + (len(text) - cjk + 3) // 4


def measure(transcript: Path, work: Path) -> dict:
    from memdown.config import load_config
    from memdown.signals.mining import mine_session
    from memdown.signals.semantic import classify_queue

    root = work / transcript.stem / ".memdown"
    root.mkdir(parents=True)
    log = work / f"{transcript.stem}.log"
    os.environ["FAKE_CLAUDE_LOG"] = str(log)
    config = load_config(root)
    mine_session(root, transcript, transcript.stem, config=config)
    started = time.perf_counter()
    report = classify_queue(root, config)
    seconds = time.perf_counter() - started
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    return {"session": transcript.name[:40], "prompts": report["prompts"], "calls": len(calls),
            "chars": sum(c["chars"] for c in calls), "tokens_in": sum(tokens(c["text"]) for c in calls),
            "seconds": round(seconds, 2)}


def main() -> None:
    shared = REPO.parent / "shared" / "transcripts"
    if not shared.is_dir():
        print("no shared transcripts: nothing to measure")
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bindir = work / "bin"
        bindir.mkdir()
        exe = bindir / "claude"
        exe.write_text(FAKE.format(python=sys.executable))
        exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
        os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ['PATH']}"
        os.environ["MEMDOWN_MINING_SEMANTIC"] = "true"
        os.environ["MEMDOWN_HOME"] = str(work / "home")
        os.environ["MEMDOWN_CONFIG"] = str(work / "config.toml")
        files = sorted(p for p in shared.rglob("*.jsonl") if "subagents" not in p.parts
                       and not p.name.startswith("agent-") and p.name != "journal.jsonl" and "real" in p.parts)
        rows = [measure(p, work) for p in files]
    print(f"{'session':<42}{'prompts':>8}{'calls':>6}{'chars':>9}{'tok in':>8}{'sec':>6}")
    for r in rows:
        print(f"{r['session']:<42}{r['prompts']:>8}{r['calls']:>6}{r['chars']:>9}{r['tokens_in']:>8}{r['seconds']:>6}")
    n = len(rows)
    total = {k: sum(r[k] for r in rows) for k in ("prompts", "calls", "chars", "tokens_in", "seconds")}
    print(f"{'per session (mean of ' + str(n) + ')':<42}{total['prompts'] / n:>8.1f}{total['calls'] / n:>6.1f}"
          f"{total['chars'] / n:>9.0f}{total['tokens_in'] / n:>8.0f}{total['seconds'] / n:>6.2f}")


if __name__ == "__main__":
    main()
