"""Search, filters, multi-concept search, expand and stats (FakeEmbedder)."""
from __future__ import annotations

import collections
from pathlib import Path

import pytest

from conftest import FakeEmbedder
from memdown import paths
from memdown.api import Memory
from memdown.errors import AmbiguousIdError, NotFoundError, UsageError
from memdown.index.table import sql_literal
from memdown.services.recall.expand import find_row
from memdown.services.recall.search import SearchOptions

HIT_FIELDS = {"id", "score", "kind", "source", "start_line", "end_line", "heading", "date", "session", "turn",
              "transcript", "text"}

DAY1 = """\
# 2026-03-14

## Session 09:12
<!-- session:sess-aaa turn:t-1 transcript:/tmp/a.jsonl -->

### 09:40
<!-- session:sess-aaa turn:t-1 transcript:/tmp/a.jsonl -->
- Fixed the redis cache ttl bug: quotes expired too late.
- Added QUOTE_CACHE_TTL to settings.

### 09:55
<!-- session:sess-aaa turn:t-2 transcript:/tmp/a.jsonl -->
- Postgres migration 0019 needed the pg_trgm extension.

## Session 14:00

### 14:05
<!-- session:sess-bbb turn:t-9 -->
- Redis connection pool exhausted under load; raised max_connections.
"""

DAY2 = """\
# 2026-04-02

### 10:00
<!-- session:sess-ccc turn:t-3 -->
- Celery worker retries were flooding the dead letter queue.
- Postgres vacuum settings tuned on the shipments table.
"""

LEARNINGS = "# Learnings\n\n- Always pin the ruff version in CI and dev requirements.\n"
QUOTED = "# Quoted file\n\n- This note lives in a file whose name has an apostrophe: kangaroo.\n"


@pytest.fixture
def mem(memory_root: Path) -> Memory:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-03-14").write_text(DAY1)
    paths.daily_file(memory_root, "2026-04-02").write_text(DAY2)
    (memory_root / "learnings.md").write_text(LEARNINGS)
    (memory_root / "it's.md").write_text(QUOTED)
    m.index()
    return m


@pytest.mark.parametrize("mode", ["hybrid", "vector", "text"])
def test_modes_find_the_right_section(mem: Memory, mode: str):
    hits = mem.search("celery worker retries dead letter queue", mode=mode, k=3)
    assert hits[0].heading == "2026-04-02 > 10:00"
    assert hits[0].session == "sess-ccc" and hits[0].date == "2026-04-02"
    assert len(hits) <= 3
    assert all(HIT_FIELDS <= set(h.to_dict()) for h in hits)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)


def test_text_mode_only_returns_matching_chunks(mem: Memory):
    hits = mem.search("kangaroo", mode="text")
    assert [h.source for h in hits] == ["it's.md"]


def test_hit_fields_and_anchor_columns(mem: Memory):
    hit = mem.search("redis cache ttl quotes expired", mode="text", k=1)[0]
    d = hit.to_dict()
    assert HIT_FIELDS <= set(d)
    assert d["heading"] == "2026-03-14 > Session 09:12 > 09:40"
    assert (d["session"], d["turn"], d["transcript"]) == ("sess-aaa", "t-1", "/tmp/a.jsonl")
    assert "<!--" not in d["text"] and d["kind"] == "summary" and d["source"] == "memory/2026-03-14.md"
    lines = DAY1.split("\n")
    assert lines[d["start_line"] - 1].startswith("- Fixed the redis")
    assert lines[d["end_line"] - 1].startswith("- Added QUOTE_CACHE_TTL")


def test_kind_filter(mem: Memory):
    hits = mem.search("ruff version pin", kind="learning")
    assert hits and all(h.kind == "learning" for h in hits)
    assert all(h.kind == "summary" for h in mem.search("ruff version pin", kind="summary"))
    assert mem.search("ruff", kind="reflexion") == []


def test_date_filters(mem: Memory):
    since = mem.search("postgres", since="2026-04-01", mode="hybrid")
    assert since and all(h.date >= "2026-04-01" for h in since)
    until = mem.search("postgres", until="2026-03-31", mode="hybrid")
    assert until and all(h.date and h.date <= "2026-03-31" for h in until)
    assert mem.search("postgres", since="2026-03-14", until="2026-03-14", mode="text")[0].date == "2026-03-14"
    assert mem.search("postgres", since="2027-01-01") == []


@pytest.mark.parametrize("bad", ["yesterday", "2026-3-1", "2026-13-45", "2026-02-30", "2026-03-14' OR '1'='1"])
def test_bad_dates_are_usage_errors(mem: Memory, bad: str):
    with pytest.raises(UsageError, match="YYYY-MM-DD"):
        mem.search("postgres", since=bad)
    with pytest.raises(UsageError):
        mem.search("postgres", until=bad)


def test_source_globs_and_quotes(mem: Memory):
    hits = mem.search("kangaroo apostrophe", source="it's.md")
    assert hits and {h.source for h in hits} == {"it's.md"}
    assert {h.source for h in mem.search("postgres redis", source="memory/*", k=20)} == {
        "memory/2026-03-14.md", "memory/2026-04-02.md"}
    assert {h.source for h in mem.search("postgres", source="memory/2026-04-*")} == {"memory/2026-04-02.md"}
    assert mem.search("postgres", source="nothing/*") == []
    # filter values never reach SQL unquoted
    assert mem.search("postgres", source="x' OR '1'='1") == []
    assert mem.search("postgres", source="*' OR source LIKE '%") == []


def test_invalid_options(mem: Memory):
    with pytest.raises(UsageError):
        mem.search("x", mode="fuzzy")
    with pytest.raises(UsageError):
        mem.search("x", kind="bogus")
    with pytest.raises(UsageError):
        mem.search("x", k=0)
    with pytest.raises(UsageError):
        mem.search("   ")
    with pytest.raises(UsageError):
        SearchOptions(k=5000).validate()


def test_sql_literal():
    assert sql_literal("it's") == "'it''s'"
    with pytest.raises(ValueError):
        sql_literal("a\x00b")


def test_search_sees_edits_without_explicit_index(mem: Memory):
    f = paths.daily_file(mem.root, "2026-04-02")
    f.write_text(f.read_text() + "\n### 11:00\n- Discussed the platypus migration plan.\n")
    m = Memory.open(mem.root, embedder=FakeEmbedder())
    hits = m.search("platypus", mode="text")
    assert hits and "platypus" in hits[0].text
    assert m.notices and "refreshed" in m.notices[0]


# --- multi-concept -------------------------------------------------------

def test_concepts_require_every_concept(mem: Memory):
    matches = mem.search_concepts(["redis", "postgres"])
    groups = [m.group for m in matches]
    # sess-aaa mentions both; sess-bbb only redis; sess-ccc only postgres
    assert groups == ["session:sess-aaa"]
    m = matches[0]
    assert len(m.hits) == 2
    assert "redis" in m.hits[0].text.lower() and "postgres" in m.hits[1].text.lower()
    assert m.to_dict()["hits"][0]["session"] == "sess-aaa"
    both = {m.group for m in mem.search_concepts(["postgres", "celery"])}
    assert both == {"session:sess-ccc"}
    assert mem.search_concepts(["kangaroo", "celery"]) == []


def test_concepts_group_files_without_sessions(mem: Memory):
    (mem.root / "notes").mkdir()
    (mem.root / "notes" / "ops.md").write_text("# Ops\n\n## A\n- zeppelin hangar\n\n## B\n- blimp mooring\n")
    m = Memory.open(mem.root, embedder=FakeEmbedder())
    assert [x.group for x in m.search_concepts(["zeppelin", "blimp"])] == ["file:notes/ops.md"]


def test_concepts_need_two(mem: Memory):
    with pytest.raises(UsageError):
        mem.search_concepts(["redis"])


# --- expand ------------------------------------------------------------------

def test_expand_by_prefix_shows_section_with_anchor(mem: Memory):
    hit = mem.search("pg_trgm extension migration", mode="text", k=1)[0]
    for prefix in (hit.id, hit.id[:8], hit.id[:6].upper()):
        exp = mem.expand(prefix)
        assert exp.id == hit.id
    exp = mem.expand(hit.id[:8])
    lines = DAY1.split("\n")
    assert exp.text.startswith("### 09:55")
    assert "<!-- session:sess-aaa turn:t-2" in exp.text  # anchors are kept in expand output
    assert exp.text == "\n".join(lines[exp.start_line - 1 : exp.end_line])
    assert (exp.session, exp.turn) == ("sess-aaa", "t-2")
    assert exp.chunk_start == hit.start_line and not exp.stale
    d = exp.to_dict()
    assert {"id", "source", "heading", "start_line", "end_line", "text", "session", "turn", "transcript"} <= set(d)


def test_expand_lines_adds_context(mem: Memory):
    hit = mem.search("pg_trgm extension", mode="text", k=1)[0]
    base = mem.expand(hit.id)
    wide = mem.expand(hit.id, lines=2)
    assert wide.start_line == base.start_line - 2
    assert wide.end_line == base.end_line + 2
    lines = DAY1.split("\n")
    assert wide.text == "\n".join(lines[wide.start_line - 1 : wide.end_line])
    huge = mem.expand(hit.id, lines=10_000)
    assert huge.start_line == 1 and huge.end_line == len(lines)


def test_expand_follows_moved_lines_and_flags_stale(mem: Memory):
    hit = mem.search("pg_trgm extension", mode="text", k=1)[0]
    f = paths.daily_file(mem.root, "2026-03-14")
    f.write_text("\n\n\n" + f.read_text())  # not re-indexed: expand reads the file as it is now
    exp = mem.expand(hit.id)
    assert exp.text.startswith("### 09:55") and not exp.stale
    f.write_text(f.read_text().replace("needed the pg_trgm", "required the pg_trgm"))
    assert mem.expand(hit.id).stale


def test_expand_unknown_and_invalid_ids(mem: Memory):
    with pytest.raises(NotFoundError):
        mem.expand("ffffffffffff")
    with pytest.raises(UsageError):
        mem.expand("xyz")
    with pytest.raises(UsageError):
        mem.expand("ab")  # too short to be a prefix


def test_expand_ambiguous_prefix(memory_root: Path):
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    body = "# Many\n\n" + "".join(f"## item {i}\n- fact number {i}\n\n" for i in range(700))
    (memory_root / "many.md").write_text(body)
    m.index()
    ids = [r["id"] for r in m.table.table.search().select(["id"]).limit(None).to_list()]
    by_prefix = collections.defaultdict(list)
    for i in ids:
        by_prefix[i[:4]].append(i)
    prefix, shared = next((p, v) for p, v in sorted(by_prefix.items()) if len(v) > 1)
    with pytest.raises(AmbiguousIdError, match="several chunks") as info:
        find_row(m.table, prefix)
    assert info.value.exit_code == 2
    with pytest.raises(AmbiguousIdError):
        m.expand(prefix)
    assert m.expand(shared[0]).id == shared[0]  # the full id is unique


# --- stats -------------------------------------------------------------------

def test_stats(mem: Memory):
    s = Memory.open(mem.root, embedder=FakeEmbedder()).stats()
    assert s["files"] == 4
    assert s["chunks"] == 6
    assert s["chunks_by_kind"] == {"learning": 1, "note": 1, "summary": 4}
    assert s["index_bytes"] > 0
    assert s["model"] and s["index_model"] == "fake/hashing-64"
    assert s["last_indexed"] and s["index_state"] == "ok"


def test_stats_without_index(memory_root: Path):
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    s = m.stats()
    assert s["chunks"] == 0 and s["last_indexed"] is None and s["index_state"].startswith("unavailable")


def test_the_query_is_embedded_once_before_the_index_is_opened(mem: Memory, monkeypatch: pytest.MonkeyPatch):
    """A cold search embeds the query while LanceDB still imports (services/upkeep/memory.py), and search_table
    uses that vector instead of embedding again."""
    events: list[str] = []
    inner = mem._embedder_inner
    monkeypatch.setattr(inner, "embed_query", lambda text: events.append(f"embed {text}") or FakeEmbedder._one(inner, text))
    opened = mem.ensure_index
    monkeypatch.setattr(mem, "ensure_index", lambda **kw: events.append("open") or opened(**kw))
    assert mem.search("  redis ttl  ", k=2, mode="hybrid")
    assert events == ["embed redis ttl", "open"]


@pytest.mark.parametrize("mode", ["hybrid", "vector", "text"])
def test_an_empty_index_answers_nothing_in_every_mode(memory_root: Path, mode: str):
    """No markdown yet: the index has no rows (and no full-text index); a search finds nothing, without error
    (search_table asks LanceDB no row count first)."""
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    m.index()
    assert m.table.count() == 0
    assert m.search("redis ttl", mode=mode) == []
    assert m.search_concepts(["redis", "ttl"], mode=mode) == []


def test_the_match_reads_the_vectors_taken_with_the_hits(mem: Memory, monkeypatch: pytest.MonkeyPatch):
    """assess's cosine comes from the top hits' vectors taken with their columns: the same figure as
    reading them back from the table (as it did), without that query."""
    expected = mem.search("redis cache ttl", k=3)[0].match
    assert expected["cosine"] is not None
    table = mem.table.table
    search = type(table).search
    plain_scans: list[str] = []

    def spy(self, *args, **kwargs):
        if not args and not kwargs:  # match.best_cosine's own read: table.search().where("id IN ...")
            plain_scans.append("scan")
        return search(self, *args, **kwargs)

    monkeypatch.setattr(type(table), "search", spy)
    assert mem.search("redis cache ttl", k=3, refresh=False)[0].match == expected
    assert plain_scans == []
