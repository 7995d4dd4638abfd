"""What keeps search cheap at a million chunks must not change its answers (real LanceDB, FakeEmbedder):
the bitmap index on ``kind`` exists on every index however it was made, and ``recall`` rows stay
hidden unless asked for, whether or not the filter can be skipped."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import FakeEmbedder
from memdown import paths
from memdown.api import Memory
from memdown.index.table import SCALAR_INDEXES, ChunkTable
from memdown.services.upkeep.verify import verify

DAY = """\
# 2026-03-14

### 09:40
<!-- session:sess-a turn:t-1 -->
- Decided: the kangaroo gateway cache keeps entries for ten minutes.

### 10:10
<!-- session:sess-a turn:t-2 -->
- Unrelated: pinned the ruff version in CI.
"""

RECALL = """\
# 2026-03-20

### 11:00
<!-- session:sess-r turn:t-9 -->
- Recalled the kangaroo gateway cache decision: kangaroo gateway cache ten minutes (memory/2026-03-14.md).
"""


def _recall_file(root: Path) -> Path:
    path = root / "memory" / "recalls" / "2026-03-20.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def mem(memory_root: Path) -> Memory:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-03-14").write_text(DAY)
    m.index()
    return m


def _index_names(mem: Memory) -> set[str]:
    table = ChunkTable(paths.index_dir(mem.root))
    table.open()
    return {idx.name for idx in table.table.list_indices()}


def test_a_new_index_has_the_kind_bitmap_and_a_rebuild_keeps_it(mem: Memory) -> None:
    assert {"kind_idx", "id_idx", "source_idx", "fts_text_idx"} <= _index_names(mem)
    assert SCALAR_INDEXES["kind"] == "BITMAP"
    mem.index(rebuild=True)
    assert "kind_idx" in _index_names(mem)
    assert verify(mem).index_state == "ok"


def test_an_existing_index_without_it_gets_it_on_the_next_index_run(mem: Memory) -> None:
    """An index made before the kind bitmap existed: the next (even no-op) index run adds it, no rebuild."""
    table = ChunkTable(paths.index_dir(mem.root))
    table.open()
    table.table.drop_index("kind_idx")
    table.meta.scalar_indexes = [n for n in table.meta.scalar_indexes if n != "kind_idx"]  # as older versions wrote
    table.save_sidecars()
    assert "kind_idx" not in _index_names(mem)
    report = Memory.open(mem.root, embedder=FakeEmbedder()).index()
    assert not report.rebuilt
    assert "kind_idx" in _index_names(mem)
    assert verify(mem).index_state == "ok"


def test_a_snapshot_carries_the_kind_index(mem: Memory, tmp_path: Path) -> None:
    snapshot = tmp_path / "index.tar"
    mem.export_snapshot(snapshot)
    mem.index(rebuild=True)
    mem.import_snapshot(snapshot)
    assert "kind_idx" in _index_names(mem)


@pytest.mark.parametrize("mode", ["hybrid", "vector", "text"])
@pytest.mark.parametrize("window_chars", [1600, 0])
def test_recall_rows_stay_hidden_unless_asked_for(mem: Memory, memory_root: Path, mode: str,
                                                  window_chars: int) -> None:
    mem.config.values["search"]["window_chars"] = window_chars
    before = mem.search("kangaroo gateway cache", mode=mode, k=5)
    assert before and all(h.kind != "recall" for h in before)
    _recall_file(memory_root).write_text(RECALL)
    mem.index()
    hits = mem.search("kangaroo gateway cache", mode=mode, k=5)
    assert hits and all(h.kind != "recall" for h in hits), [(h.kind, h.source) for h in hits]
    asked = mem.search("kangaroo gateway cache", mode=mode, k=5, kind="recall")
    assert asked and all(h.kind == "recall" for h in asked)
    os.remove(_recall_file(memory_root))
    mem.index()
    assert all(h.kind != "recall" for h in mem.search("kangaroo gateway cache", mode=mode, k=5))
    assert mem.search("kangaroo gateway cache", mode=mode, k=5, kind="recall") == []


def test_recall_rows_written_by_another_process_stay_hidden(mem: Memory, memory_root: Path) -> None:
    """A long-lived reader (the daemon) whose sidecars predate the recall rows must not show them."""
    assert mem.search("kangaroo gateway cache", mode="text", k=5, refresh=False)  # the table is open now
    _recall_file(memory_root).write_text(RECALL)
    Memory.open(memory_root, embedder=FakeEmbedder()).index()  # another writer
    hits = mem.search("kangaroo gateway cache", mode="text", k=5, refresh=False)
    assert hits and all(h.kind != "recall" for h in hits), [(h.kind, h.source) for h in hits]


@pytest.mark.parametrize("mode", ["hybrid", "vector", "text"])
def test_rows_that_moved_between_ranking_and_taking_are_read_again(mem: Memory, monkeypatch: pytest.MonkeyPatch,
                                                                    mode: str) -> None:
    """Search ranks by row id, then takes the rows' columns; a compaction in between moves row ids."""
    mem.config.values["search"]["window_chars"] = 0  # one hit per section: both sections of DAY
    expected = [h.to_dict() for h in mem.search("kangaroo gateway cache ruff version", mode=mode, k=5, refresh=False)]
    assert len({h["id"] for h in expected}) >= 2
    lance_table = type(mem.table.table)
    real = lance_table.take_row_ids
    monkeypatch.setattr(lance_table, "take_row_ids", lambda self, ids: real(self, [ids[-1]] * len(ids)))
    assert [h.to_dict() for h in mem.search("kangaroo gateway cache ruff version", mode=mode, k=5, refresh=False)] == expected

    def gone(self, ids):
        raise RuntimeError("fragment 3 not found")

    monkeypatch.setattr(lance_table, "take_row_ids", gone)
    assert [h.to_dict() for h in mem.search("kangaroo gateway cache ruff version", mode=mode, k=5, refresh=False)] == expected
