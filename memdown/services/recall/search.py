"""Search over the index: hybrid (RRF via LanceDB), vector-only or text-only,
with safe filters, plus multi-concept AND search."""
from __future__ import annotations

import datetime
import fnmatch
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ...errors import UsageError
from ...index.embedder import known_word_share
from ...index.table import RESULT_COLUMNS, ChunkTable, sql_literal
from ...index.textprep import fts_query
from ...store.kinds import HIDDEN_BY_DEFAULT, KINDS
from . import fusion
from . import windows as windows_mod
from .match import TOP as MATCH_TOP
from .match import assess
from .sequence import asks_what_came_next, day_files, follow_on
from .timeframe import find_range
from .windows import Window, WindowOptions, rank_windows

MODES = ("hybrid", "vector", "text")
# The longest query searched. The model reads 256 tokens (about 1,000 characters); the tokenizer's word split in
# known_word_share grows faster than the text past ~100,000 characters (400,000: 3.6 s, 2 MB: ~5 s or more).
MAX_QUERY_CHARS = 10_000
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_AGENT = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
CLAUDE_CODE = "claude-code"  # its sessions' headings carry no agent label


@dataclass
class SearchOptions:
    k: int = 8
    kind: str | None = None
    since: str | None = None
    until: str | None = None
    source: str | None = None  # a glob over paths relative to the memory root
    agent: str | None = None  # the client whose sessions to search: "codex" (its "## Session 14:30 (codex)"), "claude-code"
    mode: str = "hybrid"
    candidate_depth: int = 10
    # Windows (services/recall/windows.py): the size budget of one window; window_chars = 0 returns the
    # matched units alone, one per section.
    window_chars: int = windows_mod.MAX_CHARS
    today: str | None = None  # what "last week" counts from (YYYY-MM-DD); None = the clock

    def validate(self) -> None:
        if self.k < 1 or self.k > 1000:
            raise UsageError("-k must be between 1 and 1000")
        if self.mode not in MODES:
            raise UsageError(f"unknown mode {self.mode!r} (choose from {', '.join(MODES)})")
        if self.agent is not None and not _AGENT.match(self.agent):
            raise UsageError(f"--agent takes a client name such as codex or claude-code, not {self.agent!r}")
        if self.kind is not None and self.kind not in KINDS:
            raise UsageError(f"unknown kind {self.kind!r} (choose from {', '.join(KINDS)})")
        for name in ("since", "until", "today"):
            value = getattr(self, name)
            if value is not None and not _valid_date(value):
                raise UsageError(f"--{name} takes a date as YYYY-MM-DD, not {value!r}")


def checked_query(query: str) -> str:
    """The query without its outer blanks; an empty one, or one over ``MAX_QUERY_CHARS``, is refused in one line
    (not cut: a cut query would answer a question nobody asked, without saying so)."""
    query = query.strip()
    if not query:
        raise UsageError("the search query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError(f"the search query is {len(query):,} characters; memdown searches with at most "
                         f"{MAX_QUERY_CHARS:,}", hint="search with a few words, or one line of what you have")
    return query


def _valid_date(value: str) -> bool:
    """``YYYY-MM-DD`` naming a real day (2026-13-45 is refused, not silently compared)."""
    if not _DATE.match(value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


@dataclass
class Hit:
    id: str
    score: float
    kind: str
    source: str
    start_line: int
    end_line: int
    heading: str
    date: str
    session: str
    turn: str
    transcript: str
    text: str
    section_start: int = 0
    section_end: int = 0
    window: Window | None = None  # what the agent reads for this hit (the unit above sits inside it)
    notes: list[str] = field(default_factory=list)
    # {"embedded", "total"} chunks while a text-first build's vectors are filled in (services/upkeep/vector_fill.py):
    # this hit came from a search that matched older entries by full text only.
    partial_vectors: dict[str, int] | None = None
    # How strongly this search matched at all (services/recall/match.py), the same on every hit of one search:
    # {"weak", "cosine", "term_share"}; weak = nothing here may answer the query.
    match: dict[str, Any] | None = None
    # Is what this entry says of the code still true (services/recall/staleness.py)? {"state", "cited"}; None when
    # not judged (search.freshness off).
    freshness: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ConceptMatch:
    """One session (or file) where every concept matched."""

    group: str
    score: float
    hits: list[Hit] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"group": self.group, "score": self.score, "hits": [h.to_dict() for h in self.hits]}


def build_where(table: ChunkTable, options: SearchOptions) -> str | None:
    clauses: list[str] = []
    if options.kind:
        clauses.append(f"kind = {sql_literal(options.kind)}")
    elif HIDDEN_BY_DEFAULT:  # recall pointers only when asked for (store.kinds)
        clauses.append("kind NOT IN (" + ", ".join(sql_literal(k) for k in sorted(HIDDEN_BY_DEFAULT)) + ")")
    if options.since:
        clauses.append(f"date >= {sql_literal(options.since)}")
    if options.until:
        # Undated entries ("" sorts first) are outside any date range, as with --since.
        clauses.append(f"date <= {sql_literal(options.until)} AND date != ''")
    if options.agent:
        clauses.append(_agent_clause(options.agent))
    if options.source:
        # Globs are matched here, against the sources we know, and passed to
        # LanceDB as quoted literals: no user text is ever spliced into SQL.
        matched = sorted(s for s in table.files if fnmatch.fnmatchcase(s, options.source))
        if not matched:
            return "FALSE"
        clauses.append("source IN (" + ", ".join(sql_literal(s) for s in matched) + ")")
    return " AND ".join(clauses) or None


def _agent_clause(agent: str) -> str:
    """Entries under a session heading that names ``agent`` (``Session 14:30 (codex)``, continued or not);
    Claude Code's headings name none."""
    if agent == CLAUDE_CODE:
        return (f"(heading LIKE {sql_literal('%Session __:__%')} AND (heading NOT LIKE {sql_literal('%Session __:__ (%')}"
                f" OR heading LIKE {sql_literal('%Session __:__ (continued)%')}))")
    return f"heading LIKE {sql_literal(f'%Session __:__ ({agent})%')}"


def _today(value: str | None) -> datetime.date | None:
    return datetime.date.fromisoformat(value) if value else None


def _to_hit(row: dict[str, Any], mode: str) -> Hit:
    if mode == "hybrid":
        score = float(row.get("_relevance_score", 0.0))
    elif mode == "vector":
        score = 1.0 - float(row.get("_distance", 1.0)) / 2.0  # cosine distance → similarity in [0, 1]
    else:
        score = float(row.get("_score", 0.0))
    return Hit(
        id=row["id"],
        score=round(score, 6),
        **{name: row[name] for name in RESULT_COLUMNS if name not in ("id",)},
    )


def search_table(table: ChunkTable, embedder, query: str, options: SearchOptions,
                 root: Path | None = None, *, query_vector: list[float] | None = None) -> list[Hit]:
    """Run one query against an open table; with ``root`` (the memory root), hits carry windows.
    ``query_vector``: the stripped query's vector when the caller embedded it already."""
    query = checked_query(query)
    options.validate()
    where = build_where(table, options)
    if where == "FALSE":
        return []  # an empty table needs no check of its own: each query mode finds nothing in it
    # A long section can yield several chunks; fetch a little extra so that
    # collapsing them still leaves k distinct sections.
    windows = root is not None and options.window_chars > 0
    fetch = max(options.k + options.k // 2, options.candidate_depth)
    if windows:
        fetch = max(fetch, windows_mod.DEPTH)
    tbl = table.table
    section_scores = None
    vectors: dict[str, list[float]] | None = {} if options.mode != "text" else None  # the top hits', for assess
    if options.mode == "text":
        query_vector = None
    elif query_vector is None:
        query_vector = embedder.embed_query(query)
    if windows and options.mode == "hybrid" and windows_mod.SECTION_FUSION:
        vector = table.ann.tune(  # ANN probe settings, only once the ANN index exists
            tbl.search(query_vector, query_type="vector").distance_type("cosine"))
        text = tbl.search(fts_query(query), query_type="fts", fts_columns="fts_text")
        hits, section_scores = windows_mod.fuse_sections(
            [[_to_hit(r, mode) for r in _rows(tbl, b, where, fetch)] for b, mode in ((vector, "vector"), (text, "text"))])
    elif options.mode == "hybrid" and fusion.OWN_FUSION:
        hits = _fused_hits(table, embedder, query, query_vector, where, fetch, vectors)
    else:
        builder = _one_query(table, query, query_vector, options.mode)
        hits = [_to_hit(r, options.mode) for r in _rows(tbl, builder, where, fetch, vectors, MATCH_TOP)]
    match = assess(table, query, query_vector, hits, vectors).to_dict() if hits else None
    if windows:
        dates = find_range(query, _today(options.today))
        # In hybrid a section is its best unit, not that unit plus a share of its other chunks (an entry's
        # evidence counted once, services/recall/fusion.py).
        own = options.mode == "hybrid" and fusion.OWN_FUSION and not windows_mod.SECTION_FUSION
        window_options = WindowOptions(max_chars=options.window_chars, rest_share=fusion.REST_SHARE if own else -1.0)
        shown = rank_windows(hits, root, table.files, options.k, window_options, dates,
                             section_scores)
        if asks_what_came_next(query):
            shown = _what_came_next(table, root, shown, options)
    else:
        shown = collapse_sections(hits)[: options.k]
    for hit in shown:
        hit.match = match
    return shown


def _one_query(table: ChunkTable, query: str, query_vector: list[float] | None, mode: str):
    """The LanceDB query of one mode (hybrid: LanceDB's own RRF, when fusion.OWN_FUSION is off)."""
    tbl = table.table
    if mode == "text":
        return tbl.search(fts_query(query), query_type="fts", fts_columns="fts_text")
    if mode == "vector":
        builder = tbl.search(query_vector, query_type="vector").distance_type("cosine")
    else:
        from lancedb.rerankers import RRFReranker

        builder = (tbl.search(query_type="hybrid", fts_columns="fts_text").vector(query_vector).text(fts_query(query))
                   .distance_type("cosine").rerank(RRFReranker()))
    return table.ann.tune(builder)  # ANN probe settings, only once the ANN index exists


def _fused_hits(table: ChunkTable, embedder, query: str, query_vector: list[float], where: str | None, fetch: int,
                vectors: dict[str, list[float]] | None) -> list[Hit]:
    """Hybrid units: each retriever's list, fused here (services/recall/fusion.py says why not LanceDB's RRF)."""
    tbl = table.table
    vector = table.ann.tune(tbl.search(query_vector, query_type="vector").distance_type("cosine"))
    by_vector = [_to_hit(r, "vector") for r in _rows(tbl, vector, where, fetch, vectors, MATCH_TOP)]
    try:
        text = tbl.search(fts_query(query), query_type="fts", fts_columns="fts_text")
        by_text = [_to_hit(r, "text") for r in _rows(tbl, text, where, fetch)]
    except ValueError:  # no searchable term in the query (LanceDB's word for it): the vectors alone
        by_text = []
    english_only = not fusion.multilingual(getattr(embedder, "model_id", ""))
    readable = known_word_share(query) if english_only else 1.0  # how much of the query the model can read
    weights = [fusion.TEXT_WEIGHT, fusion.vector_weight(query, english_only, readable)]
    return fusion.fuse([by_text, by_vector], weights, query)


def _what_came_next(table: ChunkTable, root: Path, shown: list[Hit], options: SearchOptions) -> list[Hit]:
    """"What did we do right after X": the entry after the best hit's first (services/recall/sequence.py)."""
    def hit_at(source: str, start: int) -> Hit | None:
        rows = (table.table.search().where(f"source = {sql_literal(source)} AND section_start = {int(start)}")
                .select(RESULT_COLUMNS).limit(50).to_list())
        if not rows:
            return None
        rows.sort(key=lambda r: r["start_line"])
        hits = rank_windows([_to_hit(rows[0], "text")], root, table.files, 1,
                            WindowOptions(max_chars=options.window_chars))
        return hits[0] if hits else None

    return follow_on(shown, options.k, day_files(table.files), windows_mod.line_reader(root, table.files), hit_at)


def _rows(tbl, builder, where: str | None, limit: int, vectors: dict[str, list[float]] | None = None,
          top: int = 0) -> list[dict[str, Any]]:
    """The ranked rows with RESULT_COLUMNS and their scores; ``vectors`` (when given) receives the
    vectors of the first ``top`` rows, taken with them (assess reads them: no query of its own).

    The ranking reads ids only, and the columns of the rows it picked are then taken by row id: at
    1M rows, materialising all columns inside a hybrid query (for both retrievers' candidates) cost
    a third of its CPU. Row ids move when another process compacts the table in between; then the
    rows taken are not the rows ranked, and the query is run again in one go (without vectors).
    """
    if where:
        builder = builder.where(where, prefilter=True)
    ranked = builder.select(["id"]).with_row_id(True).limit(limit).to_list()
    if not ranked:
        return []
    columns = RESULT_COLUMNS + ["vector"] if vectors is not None and top else RESULT_COLUMNS
    try:
        batch = tbl.take_row_ids([r["_rowid"] for r in ranked]).select(columns).to_arrow()
    except (RuntimeError, OSError, ValueError):  # a compacted-away fragment (LanceDB has no error classes of its own)
        batch = None
    found = batch.select(RESULT_COLUMNS).to_pylist() if batch is not None else []
    taken = {row["id"]: row for row in found}
    if taken.keys() != {r["id"] for r in ranked}:
        return builder.select(RESULT_COLUMNS).limit(limit).to_list()
    if columns is not RESULT_COLUMNS:  # only the top rows' vectors become Python floats (384 each)
        wanted = {r["id"] for r in ranked[:top]}
        column = batch.column("vector")
        vectors.update((row["id"], column[i].as_py()) for i, row in enumerate(found) if row["id"] in wanted)
    return [{**taken[r["id"]], **r} for r in ranked]


def collapse_sections(hits: list[Hit]) -> list[Hit]:
    """Keep the best-ranked hit of each section: `expand` shows the whole section,
    so a second hit from it only takes a slot from another entry."""
    seen: set[tuple[str, int]] = set()
    kept: list[Hit] = []
    for hit in hits:
        key = (hit.source, hit.section_start)
        if key not in seen:
            seen.add(key)
            kept.append(hit)
    return kept


# A vector hit counts as a concept match only above this cosine similarity;
# otherwise every chunk "matches" every concept through the vector side.
CONCEPT_MIN_COSINE = 0.45


def concept_search(table: ChunkTable, embedder, concepts: list[str], options: SearchOptions) -> list[ConceptMatch]:
    """Sessions (or files, for entries without a session) where every concept matches.

    A chunk matches a concept when the full-text index finds the concept in it
    or its vector is close (cosine ≥ CONCEPT_MIN_COSINE). Groups missing any
    concept are dropped; the rest rank by the mean of each concept's best
    hybrid score.
    """
    concepts = [c.strip() for c in concepts if c.strip()]
    if len(concepts) < 2:
        raise UsageError("multi-concept search needs at least two --concept values")
    deep = asdict(options) | {"k": max(50, options.k * 5)}
    per_concept: list[dict[str, Hit]] = []
    for concept in concepts:
        text_ids = {h.id for h in search_table(table, embedder, concept, SearchOptions(**deep | {"mode": "text"}))}
        close_ids = {
            h.id
            for h in search_table(table, embedder, concept, SearchOptions(**deep | {"mode": "vector"}))
            if 2 * h.score - 1 >= CONCEPT_MIN_COSINE  # score = (1 + cosine) / 2
        }
        best: dict[str, Hit] = {}
        for hit in search_table(table, embedder, concept, SearchOptions(**deep | {"mode": "hybrid"})):
            if hit.id not in text_ids and hit.id not in close_ids:
                continue
            group = f"session:{hit.session}" if hit.session else f"file:{hit.source}"
            if group not in best or hit.score > best[group].score:
                best[group] = hit
        per_concept.append(best)
    common = set(per_concept[0]).intersection(*per_concept[1:])
    matches = [
        ConceptMatch(
            group=group,
            score=round(sum(pc[group].score for pc in per_concept) / len(per_concept), 6),
            hits=[pc[group] for pc in per_concept],
        )
        for group in common
    ]
    matches.sort(key=lambda m: (-m.score, m.group))
    return matches[: options.k]
