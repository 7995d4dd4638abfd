"""How often the fence flags ordinary text as instruction-like (false positives), and the attack corpus.

Ordinary text: user prompts and assistant replies of the real transcripts in
../shared/transcripts/real (the kind of text session summaries are made of),
split into paragraphs. Run: ``.venv/bin/python bench/fence_flags.py``.
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "attack"))

from attack_corpus import HOSTILE, MARKERS  # noqa: E402

from memdown.fence import flags  # noqa: E402
from memdown.transcript.parser import parse_transcript  # noqa: E402

SHARED = ROOT.parent / "shared" / "transcripts" / "real"


def paragraphs() -> list[str]:
    out: list[str] = []
    for path in sorted(SHARED.rglob("*.jsonl")):
        try:
            transcript = parse_transcript(path)
        except Exception:  # noqa: BLE001 - a bench skips what it cannot read
            continue
        for turn in transcript.turns:
            for text in [turn.prompt, *turn.assistant_texts]:
                out.extend(p.strip() for p in (text or "").split("\n\n") if len(p.strip()) >= 20)
    return out


def main() -> None:
    hostile_hits = sum(1 for name in MARKERS if flags(HOSTILE[name]))
    print(f"attack corpus: {hostile_hits}/{len(MARKERS)} instruction-like entries flagged")
    if not SHARED.is_dir():
        print("../shared/transcripts/real is absent: no false-positive figure")
        return
    texts = paragraphs()
    reasons: Counter[str] = Counter()
    flagged = 0
    for text in texts:
        found = flags(text)
        flagged += bool(found)
        reasons.update(found)
    print(f"ordinary paragraphs: {flagged}/{len(texts)} flagged ({100 * flagged / max(1, len(texts)):.1f} %)")
    for reason, count in reasons.most_common():
        print(f"  {reason:<15} {count}")


if __name__ == "__main__":
    main()
