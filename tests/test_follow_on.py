""""What did we do right after X": X is not always the first hit (services/recall/sequence.py). The entry
after each of the first FOLLOW_TOP hits is put just before that hit, so a question whose X search ranks
second still shows what came next near the top (dev: tm-06, "right after we dropped the first version tag
and added the CI workflow": X is two entries, the later one ranked second; its successor 10 -> 3)."""
from __future__ import annotations

from dataclasses import dataclass, field

from memdown.services.recall import sequence

DAY = """\
# 2026-06-27

### 23:31
<!-- session:s1 turn:t-1 -->
- Asked: how can we tag this, is the first version

### 23:34
<!-- session:s1 turn:t-2 -->
- Asked: push the tag

### 23:39
<!-- session:s1 turn:t-3 -->
- Asked: revert the tags and add a CI workflow first

### 23:42
<!-- session:s1 turn:t-4 -->
- Asked: now add a release workflow
""".split("\n")
STARTS = {n: line for n, line in enumerate(DAY, 1) if line.startswith("### ")}


@dataclass
class Hit:
    turn: str
    section_start: int
    source: str = "2026-06-27.md"
    session: str = "s1"
    id: str = ""
    notes: list[str] = field(default_factory=list)


def _hit_at(source: str, start: int) -> Hit:
    turn = next(line.split("turn:")[1].split()[0] for line in DAY[start:start + 2] if "turn:" in line)
    return Hit(turn, start)


def _order(shown: list[Hit]) -> list[str]:
    out = sequence.follow_on(shown, 10, ["2026-06-27.md"], lambda _source: DAY, _hit_at)
    return [h.turn for h in out]


def test_the_entry_after_the_second_hit_is_shown_too() -> None:
    first, second = Hit("t-1", 3), Hit("t-3", 11)  # both named by the question; the later one is X
    assert _order([first, second]) == ["t-2", "t-1", "t-4", "t-3"]


def test_the_first_hit_s_successor_stays_first_and_nothing_is_shown_twice() -> None:
    # t-1's successor t-2 is also the second hit: it is placed once, where it first comes.
    assert _order([Hit("t-1", 3), Hit("t-2", 7), Hit("t-4", 15)]) == ["t-2", "t-1", "t-3", "t-4"]
