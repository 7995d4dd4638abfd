"""One full-text document per ``###`` entry beside its chunks (issue #26): an entry is scored whole, as a
BM25 over entries does, and its evidence counts once (real LanceDB, FakeEmbedder)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import FakeEmbedder
from memdown import paths
from memdown.api import Memory
from memdown.index.textprep import fts_query
from memdown.services.recall import fusion
from memdown.store.chunker import CHUNKER_VERSION

# Entry 10:00 is long: the chunker splits it (250-character units), the words "staging deploy" open it and
# the flag closes it. No other entry holds both.
DAY = """\
# 2026-05-04

## Session 09:00
<!-- session:sess-a turn:t-0 transcript:/tmp/a.jsonl -->

### 09:10
<!-- session:sess-a turn:t-1 transcript:/tmp/a.jsonl -->
- The staging deploy was slow again today; the staging deploy waits on the image build and the staging deploy queue.

### 10:00
<!-- session:sess-a turn:t-2 transcript:/tmp/a.jsonl -->
- The staging deploy kept installing different package versions than CI did, so two runs of the same commit behaved differently.
- We looked at caching node_modules between jobs, at a private registry mirror, and at vendoring the packages into the repository.
- Caching hid the drift instead of fixing it, the mirror needs someone to run it, and vendoring makes every review unreadable.
- Settled: every install runs `pnpm install --frozen-lockfile`, so a lockfile out of date fails the job instead of resolving anew.

### 10:30
<!-- session:sess-a turn:t-3 transcript:/tmp/a.jsonl -->
- Someone asked whether `--frozen-lockfile` also applies to the docs site build; it has no lockfile of its own yet.
"""


@dataclass
class Unit:
    id: str
    score: float
    section_start: int = 1
    source: str = "memory/2026-05-04.md"
    text: str = ""


@pytest.fixture
def entries_on(monkeypatch):
    """The entry documents in hybrid fusion (fusion.ENTRY_SHARE, off by default since the dev halves did not gain)."""
    monkeypatch.setattr(fusion, "ENTRY_SHARE", 0.5)


@pytest.fixture
def mem(memory_root: Path) -> Memory:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-05-04").write_text(DAY)
    m.index()
    return m


def _entry_rows(m: Memory, query: str) -> list[dict]:
    tbl = m.table.table
    return (tbl.search(fts_query(query), query_type="fts", fts_columns="entry_fts")
            .select(["id", "start_line", "section_start", "heading", "entry_fts"]).limit(10).to_list())


def test_an_entry_is_one_document_with_its_whole_body_and_never_its_neighbours(mem: Memory):
    rows = mem.table.table.search().where("heading LIKE '%10:00'").select(
        ["id", "start_line", "section_start", "entry_fts"]).limit(None).to_list()
    assert len(rows) >= 3  # the entry is several chunks
    first = min(rows, key=lambda r: r["start_line"])
    assert [r["id"] for r in rows if r["entry_fts"]] == [first["id"]]  # the document lives on the first chunk only
    # Words from its first and its last chunk meet in that one document; words of the entries around it do not.
    found = _entry_rows(mem, "staging deploy frozen-lockfile")
    assert found[0]["id"] == first["id"]
    assert "frozen-lockfile" in first["entry_fts"] and "staging deploy" in first["entry_fts"]
    assert "image build" not in first["entry_fts"] and "docs site" not in first["entry_fts"]


def test_search_reaches_an_entry_by_a_flag_that_only_its_body_holds(mem: Memory, entries_on):
    hits = mem.search("staging deploy --frozen-lockfile", mode="hybrid", k=3)
    assert hits[0].heading.endswith("10:00")
    keys = [(h.source, h.section_start) for h in hits]
    assert len(keys) == len(set(keys))  # the entry's document and its chunks are one hit, not two


def test_an_entry_counts_once_its_document_and_its_chunk_are_averaged_not_summed(entries_on):
    text = [Unit("a1", 10.0), Unit("b1", 9.0, 9), Unit("z", 1.0, 20)]
    entries = [Unit("a1", 10.0), Unit("b1", 5.0, 9), Unit("z", 1.0, 20)]
    fused = {h.id: h.score for h in fusion.fuse([text, []], [1.0, 1.0], "plain words", entries, {})}
    assert fused["a1"] == pytest.approx(1.0)  # first in both views of full text: one piece of evidence, not two
    assert fused["b1"] == pytest.approx(round(0.5 * 8 / 9 + 0.5 * 4 / 9, 6))


def test_an_entry_found_only_whole_joins_as_its_first_chunk(entries_on):
    text = [Unit("a1", 3.0), Unit("a2", 1.0)]
    entries = [Unit("c1", 7.0, 40), Unit("a1", 1.0)]
    fused = {h.id: h.score for h in fusion.fuse([text, []], [1.0, 1.0], "plain words", entries, {})}
    assert fused["c1"] == pytest.approx(0.5)


def test_names_spread_over_an_entry_move_it_up_as_one_spelled_in_one_unit(entries_on):
    text = [Unit("d1", 10.0, 30), Unit("a1", 6.0), Unit("z", 1.0, 50)]
    entries = [Unit("d1", 10.0, 30), Unit("a1", 6.0), Unit("z", 1.0, 50)]
    query = "pnpm --frozen-lockfile with settings.local.json"
    held = {"a1": "- pnpm install --frozen-lockfile\n- copied settings.local.json"}  # two chunks, one entry
    assert [h.id for h in fusion.fuse([text, []], [1.0, 1.0], query, entries, held)][0] == "a1"


LONG = "\n".join(f"- Chunk {n} of a long planning entry about many things, the retry budget among them, and the "
                 f"deploy calendar, the hiring plan, the offsite and the roadmap for the quarter number {n}."
                 for n in range(1, 6))


def test_in_hybrid_a_long_entry_of_middling_chunks_does_not_pass_the_entry_that_answers(memory_root: Path):
    """A section is its best unit in hybrid: a long entry's other chunks are not added on top of its best one."""
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    day = ("# 2026-05-05\n\n## Session 09:00\n\n### 09:00\n<!-- session:s turn:t-1 -->\n" + LONG + "\n\n"
           "### 09:30\n<!-- session:s turn:t-2 -->\n- The retry budget is three attempts per job.\n")
    paths.daily_file(memory_root, "2026-05-05").write_text(day)
    m.index()
    hits = m.search("retry budget attempts per job", mode="hybrid", k=2)
    assert hits[0].heading.endswith("09:30")


def _age_meta(m: Memory, **changes) -> None:
    meta_path = paths.index_dir(m.root) / "meta.json"
    meta = json.loads(meta_path.read_text())
    for name, (old, new) in changes.items():
        meta[name] = meta[name].replace(old, new) if isinstance(meta[name], str) else new
    meta_path.write_text(json.dumps(meta))


@pytest.mark.parametrize("changes", [
    {"schema_version": (None, 1)},  # the table before the entry_fts column (SCHEMA_VERSION 2)
    {"fts_config": (f"chunk{CHUNKER_VERSION}:", "chunk3:")},  # chunks before entry_text (CHUNKER_VERSION 4)
], ids=["schema", "chunker"])
def test_an_index_from_before_entry_documents_is_rebuilt(mem: Memory, changes):
    _age_meta(mem, **changes)
    report = Memory.open(mem.root, embedder=FakeEmbedder()).index()
    assert report.rebuilt, report


def test_index_rebuild_restores_the_entry_documents(mem: Memory):
    mem.table.table.drop_columns(["entry_fts"])
    again = Memory.open(mem.root, embedder=FakeEmbedder())
    assert again.index(rebuild=True).rebuilt
    assert "entry_fts" in again.table.table.schema.names
    assert _entry_rows(again, "staging deploy frozen-lockfile")[0]["heading"].endswith("10:00")
