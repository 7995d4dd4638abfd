"""The memory the conversation recall benchmark searches (``eval_conversations.py``): every transcript
captured by memdown's own capture path with the extractive summarizer, once per set of inputs and
capture code, then indexed with every vector. memdown is imported on use: the caller sets the
environment (``MEMDOWN_HOME``) first.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

from quality import every_vector

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work"
DATA = HERE / "conversations"
SHARED = Path(os.environ.get("MEMDOWN_SHARED_TRANSCRIPTS", REPO.parent / "shared" / "transcripts"))


def transcripts(with_real: bool, only: str = "", shared: frozenset[str] | None = None) -> list[tuple[str, Path]]:
    """(name used in the gold labels, path) of every transcript that feeds the memory; ``shared``: only
    these ../shared transcripts (a past figure's set: ../shared grows, and every file it adds is a distractor)."""
    found = [(f"synthetic/{p.name}", p) for p in sorted((DATA / "synthetic").glob(f"{only}*.jsonl"))]
    if with_real:
        for p in sorted(SHARED.rglob("*.jsonl")):
            rel = p.relative_to(SHARED)
            if ("subagents" not in rel.parts and not p.name.startswith("agent-") and p.name != "journal.jsonl"
                    and (shared is None or rel.as_posix() in shared)):
                found.append((rel.as_posix(), p))
    return found


# The captured memory is rebuilt when its inputs or the code that writes it change (a folder: all its modules).
CAPTURE_CODE = ("services/capture/record.py", "services/capture/summarize.py", "services/capture/outcome.py", "fence.py", "lazyre.py", "redact",
                "store", "transcript")


def _stamp(items: list[tuple[str, Path]]) -> str:
    digest = hashlib.sha256()
    for rel in CAPTURE_CODE:
        code = REPO / "memdown" / rel
        for path in sorted(code.rglob("*.py")) if code.is_dir() else [code]:
            digest.update(path.read_bytes() if path.is_file() else rel.encode())
    for name, path in items:
        digest.update(f"{name}\0{path.stat().st_size}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode())
    return digest.hexdigest()[:16]


def _capture_all(root: Path, items: list[tuple[str, Path]], config) -> dict:
    from memdown.services.capture.record import record_session
    from memdown.transcript.parser import parse_transcript

    # Day files follow each turn's local time: pin the zone so every machine builds the same memory.
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    summary: dict = {"sessions": 0, "turns": 0, "skipped": []}
    try:
        for name, path in items:
            session_id = parse_transcript(path, include_subagents=False).session_id or path.stem
            report = record_session(root, path, session_id, config=config)
            if report.skipped_session:
                summary["skipped"].append(name)
            summary["sessions"] += 1
            summary["turns"] += report.written
    finally:
        if saved is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = saved
        time.tzset()
    return summary


def capture_memory(with_real: bool, overrides: dict[str, str], *, work: Path = WORK, only: str = "",
                   shared: frozenset[str] | None = None):
    """(root, captured summary, config): every transcript captured into a scratch memory, once per input
    set and capture code; not indexed (memsearch's side reads the same ``memory/`` folder without memdown's index)."""
    from memdown.config import coerce, load_config
    items = transcripts(with_real, only, shared)
    config = load_config(None)
    config.values["summarizer"]["use_claude"] = False  # the extractive summarizer: deterministic, no `claude`
    config.values["archive"]["enabled"] = False
    every_vector(config)
    for key, raw in overrides.items():
        section, name = key.split(".", 1)
        config.values[section][name] = coerce(key, raw)
    stamp = _stamp(items)
    # search.* settings change no captured or indexed byte: they share one memory.
    built = sorted((k, v) for k, v in overrides.items() if not k.startswith("search."))
    ident = hashlib.sha1(json.dumps(built).encode()).hexdigest()[:8]
    root = work / f"conversations-{stamp}-{ident}" / ".memdown"
    marker = root / "captured.json"
    if not marker.is_file():
        shutil.rmtree(root.parent, ignore_errors=True)
        marker.write_text(json.dumps(_capture_all(root, items, config)))
    return root, json.loads(marker.read_text()), config


def build_memory(with_real: bool, overrides: dict[str, str], *, work: Path = WORK, only: str = "", embedder=None,
                 shared: frozenset[str] | None = None):
    """Capture every transcript into a scratch memory (once per input set) and index it."""
    from memdown.api import Memory
    started = time.perf_counter()
    root, captured, config = capture_memory(with_real, overrides, work=work, only=only, shared=shared)
    capture_s = time.perf_counter() - started
    mem = Memory(root, config=config, embedder=embedder)
    report = mem.index()
    print(f"memory: {captured['sessions']} sessions, {captured['turns']} turns captured"
          f"{' (skipped: ' + ', '.join(captured['skipped']) + ')' if captured['skipped'] else ''}; "
          f"capture {capture_s:.1f}s; index {report.chunks_total} chunks, {report.embedded} embedded, "
          f"{report.seconds:.1f}s", file=sys.stderr)
    return mem, captured
