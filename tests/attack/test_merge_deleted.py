"""The memory merge driver keeps a deletion: an entry one side deleted (a person's edit, a revert, or
``memdown forget``'s tombstone) and the other left untouched stays deleted, whatever the other side
appended next to it. git's ``--union`` keeps both sides of a hunk they both touched, so an entry forgotten
at the end of a day came back on the next ``git pull`` of a teammate's append (a clean merge, no marker).
"""
from __future__ import annotations

import pytest

from memdown.services.upkeep.merge import merge_texts

HEAD = "# 2026-06-01\n\n## Session 09:00\n\n"
TOMB = "### 09:05\n*Forgotten on 2026-11-27 (memdown forget).*\n\n"


def _e(when: str, turn: str, text: str) -> str:
    return f"### {when}\n<!-- session:s1 turn:{turn} -->\n\n- {text}\n\n"


A, B, C = _e("09:00", "t1", "alpha"), _e("09:05", "t2", "GONE-B deploy key"), _e("09:10", "t3", "gamma")
D, E = _e("09:20", "t4", "delta"), _e("09:30", "t5", "epsilon")

DELETIONS = {  # name: (base, the side that deleted B, the side that did not touch B)
    "last, tombstone, other appends": (HEAD + A + B, HEAD + A + TOMB, HEAD + A + B + D),
    "last, by hand, other appends": (HEAD + A + B, HEAD + A, HEAD + A + B + D),
    "middle, tombstone, other inserts after it": (HEAD + A + B + C, HEAD + A + TOMB + C, HEAD + A + B + D + C),
    "middle, by hand, other inserts before it": (HEAD + A + B + C, HEAD + A + C, HEAD + A + D + B + C),
    "middle, both append": (HEAD + A + B + C, HEAD + A + TOMB + C + E, HEAD + A + B + C + D),
}


@pytest.mark.parametrize("name", sorted(DELETIONS))
@pytest.mark.parametrize("deleter", ["ours", "theirs"])
def test_a_deleted_entry_stays_deleted(name: str, deleter: str) -> None:
    base, deleted, untouched = DELETIONS[name]
    ours, theirs = (deleted, untouched) if deleter == "ours" else (untouched, deleted)
    merged, conflicted = merge_texts(base, ours, theirs)
    assert "GONE-B" not in merged, merged
    assert not conflicted
    for kept in ("alpha", "delta" if "delta" in untouched + deleted else "alpha"):
        assert kept in merged, merged  # nothing else lost
    if "epsilon" in deleted + untouched:
        assert "epsilon" in merged and "gamma" in merged


def test_a_deleted_entry_the_other_side_changed_is_kept() -> None:
    changed = B.replace("GONE-B deploy key", "GONE-B deploy key, rotated monthly")
    merged, _ = merge_texts(HEAD + A + B, HEAD + A + TOMB, HEAD + A + changed + D)
    assert "rotated monthly" in merged and "delta" in merged  # nothing a person wrote is lost


NOTE = "### 09:05\n- PERSONAL-NOTE typed by hand, no anchor\n\n"


@pytest.mark.parametrize("deleter", ["ours", "theirs"])
@pytest.mark.parametrize("where", ["last", "middle"])
def test_a_hand_written_entry_deleted_stays_deleted(deleter: str, where: str) -> None:
    base = HEAD + A + NOTE + (C if where == "middle" else "")
    deleted = HEAD + A + (C if where == "middle" else "")
    untouched = HEAD + A + NOTE + D + (C if where == "middle" else "")
    ours, theirs = (deleted, untouched) if deleter == "ours" else (untouched, deleted)
    merged, conflicted = merge_texts(base, ours, theirs)
    assert "PERSONAL-NOTE" not in merged and "delta" in merged and "alpha" in merged and not conflicted, merged


def test_hand_written_entries_added_on_both_sides_are_kept() -> None:
    mine, theirs_note = NOTE.replace("PERSONAL", "MINE"), NOTE.replace("PERSONAL", "THEIRS")
    merged, _ = merge_texts(HEAD + A, HEAD + A + mine, HEAD + A + theirs_note)
    assert "MINE" in merged and "THEIRS" in merged and merged.count("## Session 09:00") == 1


def test_repeated_unkeyed_units_are_all_kept() -> None:
    sessions = "".join(f"## Session 09:00\n\n### 09:0{n}\n- note {n} by hand\n\n" for n in range(4))
    merged, _ = merge_texts(HEAD, HEAD + sessions, HEAD)
    assert merged.count("## Session 09:00") == 5 and all(f"note {n}" in merged for n in range(4))
