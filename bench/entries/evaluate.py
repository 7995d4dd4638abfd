"""Fact coverage of memory entries, on turns labelled before the summarizer was tuned.

    .venv/bin/python bench/entries/evaluate.py [--split test|dev|all] [--path extractive|model|both] [--show ID]

Each labelled transcript is recorded with the real capture pipeline
(``services.capture.record.record_session``) into a scratch memory root, and the
entries written are read back from the markdown. Scores:

- fact coverage: labelled facts found in the entry anchored to the turn
  (case-insensitive substring, any alternative);
- "none" turns: API-error-only, client-only (``!cmd``, local slash commands)
  and empty turns must have no entry of their own;
- recall turns: must be marked as recalls and must not repeat the recalled fact.

The model path runs ``claude -p`` as a FAKE on PATH that answers with one
bullet: the turn exactly as memdown rendered it for the model. It cannot tell
how good a real model's summary is; it measures what the prompt/parsing path
carries (a fact missing here is missing for any model) and whether a
1-bullet answer is kept. Shared transcripts are read from ../shared and
skipped when absent; synthetic ones are built by synthetic.py.
"""
from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SHARED = Path(os.environ.get("MEMDOWN_SHARED", REPO.parent.parent / "shared" / "transcripts"))
if not SHARED.exists():
    SHARED = Path("/work/shared/transcripts")
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

FAKE_CLAUDE = """#!/bin/sh
# Fake `claude -p`: one bullet holding the turn as memdown rendered it (from the USER: line on).
exec "{python}" -c 'import sys; t = sys.stdin.read(); i = t.find("USER:"); print("- " + " ".join(t[max(i, 0):].split()))'
"""


@dataclass
class Score:
    facts: int = 0
    found: int = 0
    none_total: int = 0
    none_ok: int = 0
    recall_total: int = 0
    recall_marked: int = 0
    absent_violations: int = 0
    entries: int = 0
    kept_model: int = 0
    recall_entries: int = 0
    labelled_chars: int = 0   # total length of the entries of labelled "entry" turns
    labelled_entries: int = 0
    misses: list[str] = field(default_factory=list)

    def line(self, name: str) -> str:
        cov = self.found / self.facts if self.facts else 0.0
        parts = [f"{name:<11} fact coverage {self.found}/{self.facts} = {cov:.2f}",
                 f"no-entry turns right {self.none_ok}/{self.none_total}",
                 f"recalls marked {self.recall_marked}/{self.recall_total}",
                 f"recalled facts rewritten {self.absent_violations}",
                 f"mean entry {self.labelled_chars // max(1, self.labelled_entries)} chars"]
        return " | ".join(parts)


def _transcript(source: str, scratch: Path) -> Path | None:
    kind, _, name = source.partition(":")
    if kind == "shared":
        path = SHARED / name
        return path if path.exists() else None
    from synthetic import SCRIPTS

    build = SCRIPTS[name]()
    return build.write(scratch / "synthetic" / f"{build.session}.jsonl")


def _entries(root: Path) -> dict[str, tuple[str, str]]:
    """turn uuid → (kind of the file it is in, entry body)."""
    from memdown.store.daily import read_entries
    from memdown.store.kinds import kind_for

    memory = root / "memory"
    found: dict[str, tuple[str, str]] = {}
    for path in sorted(memory.rglob("*.md")):
        kind = kind_for(path.relative_to(root).as_posix())
        for entry in read_entries(path):
            if entry.anchor and entry.anchor.turn:
                marked = getattr(entry.anchor, "kind", "") or kind
                found[entry.anchor.turn] = (marked, entry.body)
    return found


def run(path_name: str, items: list[dict], scratch: Path, show: str | None) -> Score:
    from memdown.config import Config
    from memdown.services.capture import record as capture

    capture.MAX_MODEL_SUMMARIES = 10**6  # every turn through the path under test
    config = Config()
    config.values["summarizer"]["use_claude"] = path_name == "model"
    config.values["summarizer"]["timeout_seconds"] = 30
    config.values["archive"]["enabled"] = False
    score = Score()
    by_source: dict[str, list[dict]] = {}
    for item in items:
        by_source.setdefault(item["source"], []).append(item)
    for n, (source, group) in enumerate(sorted(by_source.items())):
        transcript = _transcript(source, scratch)
        if transcript is None:
            print(f"skip (absent): {source}", file=sys.stderr)
            continue
        root = scratch / f"{path_name}-{n}"
        report = capture.record_session(root, transcript, "", config=config, include_last_turn=True)
        score.entries += report.written
        score.kept_model += report.methods.get("claude", 0)
        score.recall_entries += report.methods.get("recall", 0)
        entries = _entries(root)
        for item in group:
            kind, body = entries.get(item["turn"], ("", ""))
            text = body.lower()
            if show and item["id"] == show:
                print(f"--- {item['id']} ({path_name}, kind={kind or '-'})\n{body or '(no entry)'}\n")
            if item["expect"] == "none":
                score.none_total += 1
                score.none_ok += not body
                if body:
                    score.misses.append(f"{item['id']}: has an entry of its own")
                continue
            if item["expect"] == "recall":
                score.recall_total += 1
                score.recall_marked += kind == "recall"
                for phrase in item.get("absent", []):
                    if phrase.lower() in text:
                        score.absent_violations += 1
                        score.misses.append(f"{item['id']}: repeats recalled {phrase!r}")
            if body:
                score.labelled_chars += len(body)
                score.labelled_entries += 1
            for fact in item["facts"]:
                score.facts += 1
                if any(alt.lower() in text for alt in fact):
                    score.found += 1
                else:
                    score.misses.append(f"{item['id']}: missing {fact[0]!r}")
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "all"), default="test")
    parser.add_argument("--path", choices=("extractive", "model", "both"), default="both")
    parser.add_argument("--show", help="print the entry of this labelled item")
    parser.add_argument("--misses", action="store_true", help="list missed facts")
    args = parser.parse_args(argv)
    labels = json.loads((HERE / "labels.json").read_text(encoding="utf-8"))
    items = [i for i in labels["items"] if args.split == "all" or i["split"] == args.split]
    paths = ("extractive", "model") if args.path == "both" else (args.path,)
    with tempfile.TemporaryDirectory(prefix="memdown-entries-") as tmp:
        scratch = Path(tmp)
        os.environ["MEMDOWN_HOME"] = str(scratch / "home")
        os.environ.pop("MEMDOWN_DISABLE", None)
        bin_dir = scratch / "bin"
        bin_dir.mkdir()
        fake = bin_dir / "claude"
        fake.write_text(FAKE_CLAUDE.format(python=sys.executable))
        fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
        base_path = os.environ.get("PATH", "")
        print(f"split={args.split}: {len(items)} labelled turns")
        for name in paths:
            os.environ["PATH"] = f"{bin_dir}{os.pathsep}{base_path}" if name == "model" else base_path
            score = run(name, items, scratch, args.show)
            print(score.line(name))
            if name == "model":
                print(f"{'':<11} entries from the fake model's 1-bullet answer: {score.kept_model} of "
                      f"{score.entries} written ({score.recall_entries} recall pointers need no model)")
            if args.misses:
                for miss in score.misses:
                    print(f"    {miss}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
