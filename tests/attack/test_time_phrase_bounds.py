"""Bad input gives a clear answer, never a traceback: a time phrase past what a date can hold (session 9 attack).

``timeframe.find_range`` turned "9999999 months ago" or "999999999999 days ago" into a date before year 1,
and ``memdown search "what did we decide 9999999 months ago"`` died with an OverflowError traceback (the
UserPromptSubmit hook failed open on it). Such a phrase now names no range: the words are searched as words.
Red with the ``try`` around ``build(match, today)`` in ``find_range`` removed.
"""
from __future__ import annotations

import datetime as dt

import pytest

from conftest import run_memdown
from memdown.services.recall.timeframe import find_range

TODAY = dt.date(2026, 11, 28)


@pytest.mark.parametrize("phrase", ["9999999 months ago", "999999999999 days ago", "100000 weeks ago"])
def test_a_time_phrase_no_date_can_hold_is_no_range(phrase: str) -> None:
    assert find_range(f"what did we decide {phrase}?", TODAY) is None
    assert find_range(f"what did we decide {phrase} or last week?", TODAY) is not None  # the other phrase counts


def test_search_answers_such_a_phrase(memory_root) -> None:
    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-11-26.md").write_text(
        "# 2026-11-26\n\n## Session 09:00\n\n### 09:05\n- Chose a retry budget of 3 attempts for uploads.\n")
    proc = run_memdown("search", "retry budget 9999999 months ago", "--mode", "text", "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-1500:]
    assert "retry budget" in proc.stdout
