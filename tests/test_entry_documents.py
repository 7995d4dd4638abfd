"""What stays of session 8's entry documents (issue #26; the documents themselves were taken out, cost
without gain: docs/retrieval.md "Session 8"). In hybrid an entry's evidence counts once (a section is its
best unit), and an index built with the documents (SCHEMA_VERSION 2, CHUNKER_VERSION 4) rebuilds without
them (real LanceDB, FakeEmbedder)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FakeEmbedder
from memdown import paths
from memdown.api import Memory
from memdown.index.table import SCHEMA_VERSION
from memdown.store.chunker import CHUNKER_VERSION, chunk_markdown

LONG = "\n".join(f"- Chunk {n} of a long planning entry about many things, the retry budget among them, and the "
                 f"deploy calendar, the hiring plan, the offsite and the roadmap for the quarter number {n}."
                 for n in range(1, 6))
DAY = ("# 2026-05-05\n\n## Session 09:00\n\n### 09:00\n<!-- session:s turn:t-1 -->\n" + LONG + "\n\n"
       "### 09:30\n<!-- session:s turn:t-2 -->\n- The retry budget is three attempts per job.\n")


@pytest.fixture
def mem(memory_root: Path) -> Memory:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-05-05").write_text(DAY)
    m.index()
    return m


def test_in_hybrid_a_long_entry_of_middling_chunks_does_not_pass_the_entry_that_answers(mem: Memory):
    """A section is its best unit in hybrid: a long entry's other chunks are not added on top of its best one."""
    hits = mem.search("retry budget attempts per job", mode="hybrid", k=2)
    assert hits[0].heading.endswith("09:30")


def test_an_entry_first_chunk_id_covers_only_that_chunk():
    """CHUNKER_VERSION 5: an edit to an entry's later chunk leaves its first chunk's id (and row) as it is."""
    before = chunk_markdown("memory/2026-05-05.md", DAY)
    after = chunk_markdown("memory/2026-05-05.md", DAY.replace("quarter number 5.", "quarter number five."))
    assert len(before) > 2 and before[0].id == after[0].id and before[-2].id != after[-2].id
    assert not hasattr(before[0], "entry_text")


def _age_meta(m: Memory, schema_version: int, chunker_version: int) -> None:
    meta_path = paths.index_dir(m.root) / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["schema_version"] = schema_version
    meta["fts_config"] = meta["fts_config"].replace(f"chunk{CHUNKER_VERSION}:", f"chunk{chunker_version}:")
    meta_path.write_text(json.dumps(meta))


@pytest.mark.parametrize("versions", [(2, CHUNKER_VERSION), (SCHEMA_VERSION, 4), (2, 4)],
                         ids=["schema", "chunker", "both"])
def test_an_index_built_with_entry_documents_is_rebuilt_without_them(mem: Memory, versions):
    mem.table.table.add_columns({"entry_fts": "text"})  # the column session 8's index carried
    _age_meta(mem, *versions)
    again = Memory.open(mem.root, embedder=FakeEmbedder())
    assert again.index().rebuilt
    assert "entry_fts" not in again.table.table.schema.names
    assert {i.name for i in again.table.table.list_indices()} >= {"fts_text_idx"}
    assert "entry_fts_idx" not in {i.name for i in again.table.table.list_indices()}
    assert again.search("retry budget attempts per job", mode="hybrid", k=1)[0].heading.endswith("09:30")
