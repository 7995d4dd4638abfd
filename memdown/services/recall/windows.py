"""Rank what the agent reads: windows of neighbouring sections, scored from their units' evidence.

Search matches small units (≤ 250 characters), but the agent reads a whole entry, and an answer is
often spread over neighbouring turns of one session ("we chose X" then "switched to Y"). So the
matched units are grouped by section, each section scored from all its units (the best plus a share
of the rest), neighbouring sections of the same session that both hold evidence are joined into one
window within a size budget, and a unit already inside a higher-ranked window takes no second slot.
The window text is read from the markdown itself, as ``expand`` shows it.
"""
from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ...store.anchors import strip_anchors
from ...store.reader import UnreadableFile, path_of, read_memory_file

if TYPE_CHECKING:
    from ...index.table import FileRecord
    from .timeframe import DateRange


class Hit(Protocol):
    """What windows need of a search hit (``services.recall.search.Hit``, which imports this module)."""

    id: str
    score: float
    source: str
    heading: str
    date: str
    session: str
    start_line: int
    end_line: int
    section_start: int
    section_end: int
    text: str
    window: "Window | None"
    notes: list[str]

CLIP_MARK = "…"
# Tuned on the dev half of bench/eval_conversations.py (docs/retrieval.md); module constants so
# the benchmark can try other values (--tune).
MAX_CHARS = 1600  # size budget of one window (what the agent reads per hit)
DEPTH = 40  # unit hits fetched to score sections from
REST_SHARE = 0.3  # section score = best unit + REST_SHARE × the second + REST_SHARE² × the third …
JOIN_SHARE = 0.0  # window score = seed section + this share of the joined sections (neighbours join to be read, not to rank)
DATE_BOOST = 0.5  # a window dated inside the query's date phrase ("in March") scores this much more
SECTION_FUSION = False  # hybrid: RRF over each retriever's ranking of sections, not of units
RRF_K = 60
EVIDENCE_K = 10  # a unit's evidence is 1 / (EVIDENCE_K + its rank): steep enough that many middling
# units of a long section do not outscore the one unit that answers
RECENCY_BAND = 0.0  # a newer window within this share of the score above it moves above it (off: no gain on dev)
NOTE_BAND = 0.2  # within this share, two windows on the same topic say which is newer
NOTE_TOP = 6  # only among the first windows (what the reader weighs against each other)
SAME_TOPIC = 0.3  # shared words / words of the shorter window, for "the same topic"
_WORD = re.compile(r"[a-z][a-z0-9_]+")
CACHE_BYTES = 32 << 20  # markdown kept read between searches (FileCache); ~110 daily files at 1M chunks


@dataclass
class WindowOptions:
    max_chars: int = MAX_CHARS
    rest_share: float = -1.0  # < 0: the module constant
    join_share: float = -1.0

    def __post_init__(self) -> None:
        if self.rest_share < 0:
            self.rest_share = REST_SHARE
        if self.join_share < 0:
            self.join_share = JOIN_SHARE


@dataclass
class Window:
    """The lines the agent reads for one hit: one or more neighbouring sections of the same session."""

    source: str
    start_line: int
    end_line: int
    text: str  # as written, anchors included; clipped around the unit when one section is over budget
    unit_score: float  # the matched unit's own score; the hit's score is the window's
    sections: int
    units: list[str] = field(default_factory=list)  # ids of the matched units inside
    clipped: bool = False
    stale: bool = False  # the file changed since indexing: only the matched unit is shown

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(eq=False)  # two sections are the same only when they are one object (their keys differ): `in` is cheap
class _Section:
    key: tuple[str, int]
    start: int
    end: int
    session: str
    heading_parent: str
    units: list["Hit"]
    score: float = 0.0

    @property
    def best(self) -> "Hit":
        return self.units[0]


class FileCache:
    """Lines of recently read memory files, for as long as each file is provably the same file.

    A search reads up to one file per window it builds (8 for the default k, more with a date
    phrase); at a million chunks a daily file is ~300 KB, and reading 20 of them per query cost
    ~11 ms of CPU (docs/scale.md). An entry is
    used only while size, mtime, ctime and inode all match: an in-place edit that keeps the size
    and even restores the mtime still moves the ctime. Least recently used files go first once
    the files held pass ``budget`` bytes.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._held = 0
        self._entries: OrderedDict[str, tuple[tuple[int, ...], list[str]]] = OrderedDict()
        self._lock = threading.Lock()  # the daemon answers queries from several threads

    def get(self, path: str, signature: tuple[int, ...]) -> list[str] | None:
        with self._lock:
            entry = self._entries.get(path)
            if entry is None or entry[0] != signature:
                return None
            self._entries.move_to_end(path)
            return entry[1]

    def put(self, path: str, signature: tuple[int, ...], lines: list[str]) -> None:
        size = signature[0]
        with self._lock:
            old = self._entries.pop(path, None)
            if old is not None:
                self._held -= old[0][0]
            if size > self.budget:
                return
            self._entries[path] = (signature, lines)
            self._held += size
            while self._held > self.budget:
                _path, (dropped, _lines) = self._entries.popitem(last=False)
                self._held -= dropped[0]

    def __len__(self) -> int:
        return len(self._entries)


FILE_CACHE = FileCache(CACHE_BYTES)


def line_reader(root: Path, records: dict[str, "FileRecord"]) -> "Callable[[str], list[str] | None]":
    """A memory file's lines as windows read them (cached; None when stale or unreadable)."""
    return _Files(root, records).lines


class _Files:
    """The lines of each file a search touches; ``None`` when stale or unreadable."""

    def __init__(self, root: Path, records: dict[str, "FileRecord"]) -> None:
        self.root = root
        self.records = records
        self.cache: dict[str, list[str] | None] = {}

    def lines(self, source: str) -> list[str] | None:
        if source not in self.cache:
            self.cache[source] = self._read(source)
        return self.cache[source]

    def _read(self, source: str) -> list[str] | None:
        path = path_of(self.root, source)
        record = self.records.get(source)
        try:
            stat = path.stat()
            if record is None or stat.st_size != record.size or stat.st_mtime_ns != record.mtime_ns:
                return None  # line numbers in the index may no longer match the file
            signature = (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev)
            key = str(path)
            lines = FILE_CACHE.get(key, signature)
            if lines is None:
                lines = read_memory_file(self.root, path, max_bytes=1 << 62, source=source).text.split("\n")
                FILE_CACHE.put(key, signature, lines)
            return lines
        except (OSError, UnreadableFile):
            return None


def fuse_sections(ranked_lists: list[list["Hit"]]) -> tuple[list["Hit"], dict[tuple[str, int], float]]:
    """Reciprocal rank fusion at the section level: each retriever's list of units becomes its ranking
    of sections (first appearance), fused with RRF; units keep a unit-level RRF score for order."""
    unit_score: dict[str, float] = {}
    units: dict[str, "Hit"] = {}
    section_score: dict[tuple[str, int], float] = {}
    for hits in ranked_lists:
        seen: set[tuple[str, int]] = set()
        for rank, hit in enumerate(hits, 1):
            units.setdefault(hit.id, hit)
            unit_score[hit.id] = unit_score.get(hit.id, 0.0) + 1.0 / (RRF_K + rank)
            key = (hit.source, hit.section_start)
            if key not in seen:
                seen.add(key)
                section_score[key] = section_score.get(key, 0.0) + 1.0 / (RRF_K + len(seen))
    fused = sorted(units.values(), key=lambda h: -unit_score[h.id])
    for hit in fused:
        hit.score = round(unit_score[hit.id], 6)
    return fused, section_score


def _sections(hits: list["Hit"], rest_share: float, by_rank: bool,
              fixed: dict[tuple[str, int], float] | None = None) -> list[_Section]:
    grouped: dict[tuple[str, int], _Section] = {}
    rank_of = {hit.id: 1.0 / (EVIDENCE_K + rank) for rank, hit in enumerate(hits, 1)}
    for hit in hits:  # best first
        key = (hit.source, hit.section_start)
        if key not in grouped:
            parent = hit.heading.rsplit(" > ", 1)[0]
            grouped[key] = _Section(key, hit.section_start, hit.section_end, hit.session, parent, [])
        grouped[key].units.append(hit)
    for section in grouped.values():
        scores = [rank_of[u.id] for u in section.units] if by_rank else [u.score for u in section.units]
        # The best unit, then each next one weighted by a further power of rest_share: evidence from
        # several units counts, but a long section's many middling units stay bounded.
        scores.sort(reverse=True)
        section.score = fixed[section.key] if fixed else sum(s * rest_share**i for i, s in enumerate(scores))
    return sorted(grouped.values(), key=lambda s: -s.score)


def _adjacent(a: _Section, b: _Section, lines: list[str]) -> bool:
    """``b`` follows ``a`` in the same session (or the same parent heading), only blank lines between."""
    if a.key[0] != b.key[0] or b.start <= a.end:
        return False
    if a.session != b.session or (not a.session and a.heading_parent != b.heading_parent):
        return False
    return all(not line.strip() for line in lines[a.end : b.start - 1])


def _chars(lines: list[str], start: int, end: int) -> int:
    return sum(len(line) + 1 for line in lines[start - 1 : end]) - 1


def _grow(seed: _Section, pool: list[_Section], lines: list[str], options: WindowOptions) -> list[_Section]:
    """The seed plus its evidence-holding neighbours, best first, while the run fits the budget."""
    run = [seed]
    while True:
        first, last = run[0], run[-1]
        options_next = [s for s in pool if s not in run and (_adjacent(last, s, lines) or _adjacent(s, first, lines))]
        options_next.sort(key=lambda s: -s.score)
        grown = False
        for candidate in options_next:
            start, end = min(first.start, candidate.start), max(last.end, candidate.end)
            if _chars(lines, start, end) <= options.max_chars:
                run = sorted(run + [candidate], key=lambda s: s.start)
                grown = True
                break
        if not grown:
            return run


def _clip(lines: list[str], section: _Section, budget: int) -> tuple[int, int, str]:
    """Lines of an over-budget section around its best unit, with the section's heading and anchor."""
    unit = section.best
    head_end = section.start
    while head_end < unit.start_line - 1 and (lines[head_end].lstrip().startswith("<!--") or not lines[head_end].strip()):
        head_end += 1  # heading line, then anchors and blank lines
    head = "\n".join(lines[section.start - 1 : head_end])
    start, end = unit.start_line, unit.end_line
    room = budget - len(head) - 2 * len(CLIP_MARK) - 2
    while True:
        grew = False
        if end < section.end and _chars(lines, start, end + 1) <= room:
            end, grew = end + 1, True
        if start > head_end + 1 and _chars(lines, start - 1, end) <= room:
            start, grew = start - 1, True
        if not grew:
            break
    body = "\n".join(lines[start - 1 : end])
    if len(body) > room:  # one unit line longer than the whole budget
        body = body[: max(0, room)] + CLIP_MARK
    text = head + ("\n" + CLIP_MARK if start > head_end + 1 else "") + "\n" + body + ("\n" + CLIP_MARK if end < section.end else "")
    return start, end, text


def rank_windows(hits: list["Hit"], root: Path, records: dict[str, "FileRecord"], k: int,
                 options: WindowOptions | None = None, dates: "DateRange | None" = None,
                 section_scores: dict[tuple[str, int], float] | None = None, by_rank: bool = True) -> list["Hit"]:
    """The top ``k`` windows built from ranked unit hits; each returned hit is its window's best unit.

    ``by_rank``: each unit's evidence is its reciprocal rank (scores are on scales that do not add
    up: RRF, cosine similarity, BM25); a long section of middling units must not outscore the one
    unit that answers."""
    options = options or WindowOptions()
    files = _Files(root, records)
    sections = _sections(hits, options.rest_share, by_rank, section_scores)
    claimed: set[tuple[str, int]] = set()
    ranked: list[tuple[float, int, "Hit"]] = []
    enough = _windows_needed(k, options, dates)
    for order, seed in enumerate(sections):
        if seed.key in claimed:
            continue  # already read inside a higher-ranked window
        lines = files.lines(seed.key[0])
        if lines is None:
            score = seed.score
            window = Window(seed.key[0], seed.best.start_line, seed.best.end_line, seed.best.text, seed.best.score, 1,
                            [u.id for u in seed.units], stale=True)
            claimed.add(seed.key)
        else:
            pool = [s for s in sections if s.key[0] == seed.key[0] and s.key not in claimed]
            run = _grow(seed, pool, lines, options)
            claimed.update(s.key for s in run)
            score = seed.score + options.join_share * sum(s.score for s in run if s is not seed)
            start, end = run[0].start, run[-1].end
            if _chars(lines, start, end) <= options.max_chars:
                window = Window(seed.key[0], start, end, "\n".join(lines[start - 1 : end]), seed.best.score, len(run),
                                [u.id for s in run for u in s.units])
            else:
                clip_start, clip_end, text = _clip(lines, seed, options.max_chars)
                window = Window(seed.key[0], clip_start, clip_end, text, seed.best.score, 1, [u.id for u in seed.units],
                                clipped=True)
        hit = seed.best
        hit.window = window
        if dates is not None and DATE_BOOST and dates.holds(hit.date):
            score *= 1 + DATE_BOOST
            hit.notes.append(f"dated inside {dates.describe()}")
        hit.score = round(score, 6)
        ranked.append((hit.score, order, hit))
        if len(ranked) >= enough:
            break  # enough to rank the top k
    ranked.sort(key=lambda item: (-item[0], item[1]))
    return prefer_newer([hit for _, _, hit in ranked])[:k]


def _windows_needed(k: int, options: WindowOptions, dates: "DateRange | None") -> int:
    """How many windows to build to rank the top ``k`` (each costs its file's lines).

    A window's score can pass an earlier one's only through the date boost or joined sections'
    scores; without either, windows come out in seed order, so the first ``k`` are the top ``k``,
    plus those prefer_newer compares (it looks at the first NOTE_TOP of the 3k built otherwise).
    """
    if (dates is not None and DATE_BOOST) or options.join_share:
        return k * 3
    return max(k, min(k * 3, NOTE_TOP))


def _words(hit: "Hit") -> set[str]:
    text = strip_anchors(hit.window.text if hit.window else hit.text)
    return {w for w in _WORD.findall(text.lower()) if len(w) > 3}


def _same_topic(a: "Hit", b: "Hit") -> bool:
    """Two entries plausibly about the same thing: enough shared words (anchors and dates aside)."""
    wa, wb = _words(a), _words(b)
    return bool(wa and wb) and len(wa & wb) / min(len(wa), len(wb)) >= SAME_TOPIC


def prefer_newer(hits: list["Hit"]) -> list["Hit"]:
    """A small recency prior. Of two neighbours in the ranking with close scores (within RECENCY_BAND)
    that share their topic, the newer entry goes first; within NOTE_BAND both say which is newer,
    so the reader prefers the newer one where they disagree."""
    hits = list(hits)
    for i in range(min(len(hits), NOTE_TOP) - 1):
        upper, lower = hits[i], hits[i + 1]
        if not (upper.date and lower.date and upper.date != lower.date):
            continue
        if upper.kind != lower.kind and "signal" in (upper.kind, lower.kind):
            continue  # a signal is a quote from an entry's turn, never its newer version
        close = lower.score >= (1 - max(RECENCY_BAND, NOTE_BAND)) * upper.score
        if not close or not _same_topic(upper, lower):
            continue
        newer, older = (lower, upper) if lower.date > upper.date else (upper, lower)
        if newer is lower and lower.score >= (1 - RECENCY_BAND) * upper.score:
            hits[i], hits[i + 1] = lower, upper
        newer.notes.append(f"newer ({newer.date}) than {older.id[:12]} ({older.date}) on the same topic: "
                           "where they disagree, this one is likely current")
        older.notes.append(f"older than {newer.id[:12]} ({newer.date}) on the same topic: check it is still current")
    return hits
