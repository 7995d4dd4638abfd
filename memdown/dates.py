"""Dates in words, so "what happened on June 4th?" can match an entry of 2026-06-04.

Both retrievers see them: the full-text index gets month, day (plain and
ordinal), year and weekday as words; the embedded text gets a short phrase.
"""
from __future__ import annotations

from datetime import date


def _ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _parse(iso: str) -> date | None:
    try:
        return date.fromisoformat(iso)
    except (TypeError, ValueError):
        return None


def date_phrase(iso: str) -> str:
    """'2026-06-04' → 'Thursday, June 4, 2026' ('' if not a date)."""
    day = _parse(iso)
    return f"{day:%A}, {day:%B} {day.day}, {day.year}" if day else ""


def date_words(iso: str) -> str:
    """'2026-06-04' → 'June 4 4th 2026 Thursday' ('' if not a date)."""
    day = _parse(iso)
    return f"{day:%B} {day.day} {_ordinal(day.day)} {day.year} {day:%A}" if day else ""
