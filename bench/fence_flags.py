"""How often the fence flags ordinary text as instruction-like (false positives), and the attack corpus.

Ordinary text: user prompts and assistant replies of the real transcripts in
../shared/transcripts/real (the kind of text session summaries are made of),
split into paragraphs. Run: ``.venv/bin/python bench/fence_flags.py``.
"""
from __future__ import annotations

import os
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "attack"))

from attack_corpus import HOSTILE, MARKERS  # noqa: E402

from memdown.fence import flags  # noqa: E402
from memdown.transcript.parser import parse_transcript  # noqa: E402

SHARED = Path(os.environ.get("MEMDOWN_SHARED") or ROOT.parent / "shared") / "transcripts" / "real"


def entries() -> list[str]:
    """Every prompt and every answer of the real transcripts, whole (what one memory entry is made from)."""
    out: list[str] = []
    for path in sorted(SHARED.rglob("*.jsonl")):
        try:
            transcript = parse_transcript(path)
        except Exception:  # noqa: BLE001 - a bench skips what it cannot read
            continue
        for turn in transcript.turns:
            out.extend(text for text in [turn.prompt, *turn.assistant_texts] if len((text or "").strip()) >= 20)
    return out


def paragraphs(whole: list[str]) -> list[str]:
    return [p.strip() for text in whole for p in text.split("\n\n") if len(p.strip()) >= 20]


def _count(texts: list[str], label: str, sample: int = 0) -> None:
    reasons: Counter[str] = Counter()
    hits: list[tuple[list[str], str]] = []
    for text in texts:
        found = flags(text)
        if found:
            hits.append((found, text))
        reasons.update(found)
    print(f"ordinary {label}: {len(hits)}/{len(texts)} flagged ({100 * len(hits) / max(1, len(texts)):.1f} %)")
    for reason, count in reasons.most_common():
        print(f"  {reason:<15} {count}")
    for found, text in random.Random(7).sample(hits, min(sample, len(hits))):
        print(f"  - {','.join(found)}: {' '.join(text.split())[:160]!r}")


def main() -> None:
    hostile_hits = sum(1 for name in MARKERS if flags(HOSTILE[name]))
    print(f"attack corpus: {hostile_hits}/{len(MARKERS)} instruction-like entries flagged")
    if not SHARED.is_dir():
        print("../shared/transcripts/real is absent: no false-positive figure")
        return
    whole = entries()
    _count(paragraphs(whole), "paragraphs")
    _count(whole, "entries (a prompt or an answer, whole)", sample=int(os.environ.get("SAMPLE", "0")))


if __name__ == "__main__":
    main()
