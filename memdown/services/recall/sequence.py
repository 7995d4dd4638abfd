"""Questions about what came next: "what did we do right after X?".

Such a question names X, but its answer is the entry that follows X in time, which shares none of
X's words. Search finds X as usual; then the entry after X's is put first: the next section of the
same session (in the same day file, else on a later day), and failing that the next section of the
day. X's own window stays second, so the reader sees both. X is not always the first hit (a question
that names two steps, "after we dropped the tag and added the CI workflow", finds both, the later one
second), so each of the first FOLLOW_TOP hits is taken as X in turn: [after X1, X1, after X2, X2, …].

The phrasing is recognised in the languages the benchmark holds (bench/realhistory): a plain "after"
is not enough ("why did migrations fail after the upgrade" asks for a cause), so English and the other
European languages need "right/just/immediately after", and Chinese, Japanese and Korean need "after"
followed by "next/then" ("之后…接着", "あと、次に") or a word that means "right after" (直後, 직후).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

_AFTER = re.compile(
    r"\b(?:right|just|immediately|straight|directly)\s+after\b"
    r"|\bafter\b[^?]*,\s*what\b[^?]*\bnext\b|\bwhat\b[^?]*\bnext\b[^?]*\bafter\b"
    r"|\b(?:justo|inmediatamente|enseguida)\s+(?:despu[eé]s|tras)\b"
    r"|\b(?:logo|imediatamente|bem)\s+(?:depois|ap[oó]s)\b"
    r"|\b(?:juste|imm[ée]diatement|aussit[oô]t)\s+apr[eè]s\b|\btout de suite apr[eè]s\b"
    r"|\b(?:direkt|gleich|unmittelbar)\s+nach\b"
    r"|(?:сразу|тотчас|прямо)\s+после"
    r"|(?:之后|以后|后)[，,、\s]*(?:紧接着|接着|接下来|然后|随后|下一步)|紧接着"
    r"|直後|(?:あと|後)[、,\s]*(?:次に|次は|すぐ|続けて)"
    r"|직후|바로\s*다음|곧바로",
    re.IGNORECASE,
)
FOLLOW_TOP = 3  # the first hits taken as X, each followed by the entry after it (dev: 2 and 3 tie, 1 lost tm-06)
FOLLOW_ON = True  # off: "right after X" questions rank like any other (the benchmark's ablation)
_ANCHOR_SESSION = re.compile(r"<!--\s*session:(\S+)")


def asks_what_came_next(query: str) -> bool:
    return FOLLOW_ON and bool(_AFTER.search(query))


def _sections(lines: list[str]) -> list[tuple[int, str]]:
    """(1-based heading line, session) of each ``###`` section of a day file."""
    out: list[tuple[int, str]] = []
    for n, line in enumerate(lines, 1):
        if line.startswith("### "):
            out.append((n, ""))
        elif out and not out[-1][1] and (m := _ANCHOR_SESSION.search(line)):
            out[-1] = (out[-1][0], m.group(1))
    return out


def next_section(source: str, section_start: int, session: str, days: list[str],
                 lines_of: Callable[[str], list[str] | None]) -> tuple[str, int] | None:
    """(day file, heading line) of the section after ``source:section_start``: the same session's next
    section (this day, then later days), else the day's next section of any session."""
    lines = lines_of(source)
    if lines is None:
        return None
    here = _sections(lines)
    later = [(start, sid) for start, sid in here if start > section_start]
    same = next((start for start, sid in later if session and sid == session), None)
    if same is not None:
        return source, same
    if session:
        for day in days[days.index(source) + 1:] if source in days else []:
            found = next((start for start, sid in _sections(lines_of(day) or []) if sid == session), None)
            if found is not None:
                return day, found
    return (source, later[0][0]) if later else None


def follow_on(shown: list[Any], k: int, days: list[str], lines_of: Callable[[str], list[str] | None],
              hit_at: Callable[[str, int], Any | None]) -> list[Any]:
    """``shown`` with the entry after each of its first FOLLOW_TOP hits put just before that hit (``hit_at``
    makes that entry a hit): X may be found second or third, and its successor must still be read."""
    out: list[Any] = []
    placed: set[tuple[str, int]] = set()

    def put(hit: Any) -> None:
        key = (hit.source, hit.section_start)
        if key not in placed:
            placed.add(key)
            out.append(hit)

    for anchor in shown[:FOLLOW_TOP]:
        where = next_section(anchor.source, anchor.section_start, anchor.session, days, lines_of)
        following = hit_at(*where) if where is not None and where not in placed else None
        if following is not None:
            following.notes.append(f"the entry after {anchor.id} (what came next)")
            put(following)
        put(anchor)
    for hit in shown[FOLLOW_TOP:]:
        put(hit)
    return out[:k]


def day_files(records: dict[str, Any]) -> list[str]:
    """The memory's day files in date order (sources named YYYY-MM-DD.md, in any folder)."""
    return sorted((s for s in records if re.search(r"\d{4}-\d{2}-\d{2}\.md$", s)), key=lambda s: Path(s).name)
