"""Relative dates in a query ("last week", "in March", "end of January") as a range of entry dates.

Search uses the range as a soft preference, never a filter: a question may name the wrong month.
Months count only after a word that makes them a date ("in May", "early March", "end of January",
"March 2026"), so "we may want to march on" names no month. Without a year, a month is the most
recent one not after today.
"""
from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name and name != "May"}
_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_PART = (r"(?P<part>early|mid|middle of|late|the end of|end of|the beginning of|beginning of|the start of|start of"
         r"|the first week of|first week of|the last week of|last week of|the second half of|second half of"
         r"|the first half of|first half of)")
_MONTH_RE = re.compile(
    rf"\b(?:(?:{_PART}\s+(?:-\s*)?)|(?P<prep>in|during|since|from|before|after|until|of)\s+)"
    rf"(?P<month>{_MONTH})\b\.?(?:\s+(?P<year>(?:19|20)\d\d))?"
    rf"|\b(?P<month2>{_MONTH})\s+(?P<year2>(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
# One day: "June 4th", "on August 7, 2026", "the 4th of June", "4 June", "2026-06-04".
_ORD = r"(?:st|nd|rd|th)?"
_DATE_RE = re.compile(
    rf"\b(?P<month>{_MONTH})\.?\s+(?P<day>[0-3]?\d){_ORD}\b(?!:)(?:,?\s+(?P<year>(?:19|20)\d\d)\b)?"
    rf"|\b(?P<day2>[0-3]?\d){_ORD}\s+(?:of\s+)?(?P<month2>{_MONTH})\b\.?(?:,?\s+(?P<year2>(?:19|20)\d\d)\b)?"
    r"|\b(?P<iso>(?:19|20)\d\d-[01]\d-[0-3]\d)\b",
    re.IGNORECASE,
)
_AGO_RE = re.compile(r"\b(?P<n>\d+|a|an|one|two|three|four|five|six)\s+(?P<unit>day|week|month)s?\s+ago\b", re.I)
_LAST_RE = re.compile(r"\b(?P<which>last|this|past|previous)\s+(?P<unit>week|month|year|weekend|"
                      + "|".join(_WEEKDAYS) + r")\b", re.I)
_DAY_RE = re.compile(r"\b(?P<word>today|yesterday|recently|lately)\b", re.I)
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


@dataclass(frozen=True)
class DateRange:
    since: dt.date
    until: dt.date
    phrase: str  # the words it came from

    def holds(self, iso: str) -> bool:
        try:
            day = dt.date.fromisoformat(iso)
        except (TypeError, ValueError):
            return False
        return self.since <= day <= self.until

    def describe(self) -> str:
        return f'"{self.phrase}" read as {self.since.isoformat()}..{self.until.isoformat()}'


def _month_span(year: int, month: int, part: str) -> tuple[dt.date, dt.date]:
    last = calendar.monthrange(year, month)[1]
    part = (part or "").lower().replace("the ", "")
    first_day, last_day = 1, last
    if part == "early" or part.startswith(("beginning", "start", "first half")):
        last_day = 12 if part != "first half of" else 15
    elif part.startswith("first week"):
        last_day = 8
    elif part.startswith(("mid", "middle")):
        first_day, last_day = 8, 23
    elif part == "late" or part.startswith(("end", "second half")):
        first_day = 16 if part == "second half of" else 19
    elif part.startswith("last week"):
        first_day = last - 7
    return dt.date(year, month, first_day), dt.date(year, month, last_day)


def _month_range(match: re.Match, today: dt.date) -> DateRange:
    month = _MONTHS[(match["month"] or match["month2"]).lower()]
    year_text = match["year"] or match["year2"]
    year = int(year_text) if year_text else (today.year if month <= today.month else today.year - 1)
    since, until = _month_span(year, month, match["part"] or "")
    prep = (match["prep"] or "").lower()
    if prep in ("since", "from", "after"):
        until = today
    elif prep in ("before", "until"):
        since = dt.date(1970, 1, 1)
    return DateRange(since, until, match[0].strip())


def _relative(match: re.Match, today: dt.date) -> DateRange:
    unit = match["unit"].lower()
    which = match["which"].lower()
    if unit in _WEEKDAYS:
        back = (today.weekday() - _WEEKDAYS[unit]) % 7 or 7
        day = today - dt.timedelta(days=back)
        return DateRange(day, day, match[0])
    monday = today - dt.timedelta(days=today.weekday())
    if unit in ("week", "weekend"):
        if which == "this":
            return DateRange(monday, today, match[0])
        return DateRange(monday - dt.timedelta(days=7), today, match[0])  # "last week" is said loosely
    if unit == "month":
        first = today.replace(day=1)
        if which == "this":
            return DateRange(first, today, match[0])
        if which == "past":
            return DateRange(today - dt.timedelta(days=31), today, match[0])
        prev_last = first - dt.timedelta(days=1)
        return DateRange(prev_last.replace(day=1), prev_last, match[0])
    year = today.year if which == "this" else today.year - 1
    return DateRange(dt.date(year, 1, 1), today if which in ("this", "past") else dt.date(year, 12, 31), match[0])


def _ago(match: re.Match, today: dt.date) -> DateRange:
    raw = match["n"].lower()
    n = int(raw) if raw.isdigit() else _WORDS[raw]
    days = {"day": 1, "week": 7, "month": 30}[match["unit"].lower()] * n
    slack = max(1, days // 4)
    return DateRange(today - dt.timedelta(days=days + slack), today - dt.timedelta(days=max(0, days - slack)),
                     match[0])


def _day(match: re.Match, today: dt.date) -> DateRange | None:
    """A named day as a one-day range; without a year, the most recent such day not after today."""
    try:
        if match["iso"]:
            day = dt.date.fromisoformat(match["iso"])
            return DateRange(day, day, match[0])
        name = match["month"] or match["month2"]
        if name == "may":
            return None  # "we may 2x it": the verb (the month is written May)
        month = _MONTHS[name.lower()]
        number = int(match["day"] or match["day2"])
        year_text = match["year"] or match["year2"]
        day = dt.date(int(year_text) if year_text else today.year, month, number)
        if not year_text and day > today:
            day = day.replace(year=today.year - 1)
    except ValueError:  # June 31st, February 30th: not a day
        return None
    return DateRange(day, day, match[0].strip())


def find_range(query: str, today: dt.date | None = None) -> DateRange | None:
    """The first date phrase in ``query`` as a range of entry dates, or None (a named day before the
    month it names: "the evening of August 4" is August 4, not August)."""
    today = today or dt.date.today()
    found: list[tuple[int, DateRange]] = []
    days = [(m.span(), r) for m in _DATE_RE.finditer(query) if (r := _day(m, today)) is not None]
    found += [(span[0], r) for span, r in days]
    for regex, build in ((_MONTH_RE, _month_range), (_LAST_RE, _relative), (_AGO_RE, _ago)):
        for match in regex.finditer(query):
            if regex is _MONTH_RE and any(a < match.end() and match.start() < b for (a, b), _ in days):
                continue  # the month of a named day
            try:
                found.append((match.start(), build(match, today)))
            except (OverflowError, ValueError):  # "9999999 months ago": before the first day a date can hold
                continue
    for match in _DAY_RE.finditer(query):
        word = match["word"].lower()
        back = {"today": 0, "yesterday": 1}.get(word)
        since = today - dt.timedelta(days=back if back is not None else 14)
        until = today - dt.timedelta(days=back or 0)
        found.append((match.start(), DateRange(since, until, match[0])))
    if not found:
        return None
    return min(found, key=lambda item: item[0])[1]
