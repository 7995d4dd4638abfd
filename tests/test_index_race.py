"""A search that finds the markdown newer than the index, waits for the writer already indexing it
(a Stop job, the daemon's catch-up, another client's capture), and then has nothing left to do, must
answer from the index that writer built: it failed with "index is not open" (the quick no-op pass
leaves the table closed)."""
from __future__ import annotations

from pathlib import Path

import pytest

import memdown.services.upkeep.memory as memory_module
from memdown.api import Memory

pytestmark = pytest.mark.integration


def test_a_search_after_another_writer_indexed_the_change_answers(memory_root: Path, monkeypatch) -> None:
    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-11-20.md").write_text(
        "# 2026-11-20\n\n## Session 09:00\n\n### 09:10\n- Chose Redis for the session cache over Memcached.\n")
    Memory.open(memory_root).index()  # the other writer, done by the time this search holds the lock
    searcher = Memory.open(memory_root)
    monkeypatch.setattr(memory_module, "changed_sources", lambda root: ["memory/2026-11-20.md"])  # seen before it finished
    hits = searcher.search("session cache redis", mode="text")
    assert hits and "Redis" in hits[0].text


def test_full_text_terms_of_a_long_separator_run_take_linear_time() -> None:
    """A day with a long '-----' or 'ab:ab:…' line hung `memdown index` (the identifier pattern backtracked
    cubically): the terms come from one linear scan."""
    from memdown.index.textprep import fts_text, joined_identifiers

    assert joined_identifiers("see a.b_c/d-e.ts and settings.local.json, x- y") == [
        "abcdets", "abc", "dets", "settingslocaljson"]
    for line in ("a" + "-" * 200_000, "a" * 200_000 + "-", "ab:" * 70_000):
        fts_text("h", line)  # seconds per call before; a timeout-free test is the point: it returns
