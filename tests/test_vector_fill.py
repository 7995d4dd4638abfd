"""Text-first builds (issue #13 item 4): rows written without vectors past index.defer_vectors_above,
searchable by full text at once, filled in newest first by the filler (services/upkeep/vector_fill.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from memdown import paths
from memdown.api import Memory
from memdown.config import load_config
from memdown.errors import VectorsPendingError
from memdown.index.table import ChunkTable
from memdown.services.upkeep import text_first as vector_fill
from memdown.services.upkeep.text_first import pending_vectors
from memdown.services.upkeep.vector_fill import fill_vectors
from memdown.services.upkeep.vector_index import ann_due
from memdown.services.upkeep.repair import repair
from memdown.services.upkeep.verify import verify

WORDS = ["alpha", "beta", "gamma", "delta", "okapi", "zebra", "walrus", "heron", "lynx", "otter"]


def day(n: int, sections: int = 3) -> str:
    body = "".join(f"## Session {10 + i}:00\n\n- {WORDS[(n + i) % len(WORDS)]} note {n} part {i} about caches "
                   f"and queues\n\n" for i in range(sections))
    return f"# 2026-04-{n:02d}\n\n{body}"


def write_days(root: Path, days: range) -> None:
    (root / "memory").mkdir(parents=True, exist_ok=True)
    for n in days:
        (root / "memory" / f"2026-04-{n:02d}.md").write_text(day(n))


def config(root: Path, limit: int = 4):
    cfg = load_config(root)
    cfg.values["index"]["defer_vectors_above"] = limit
    return cfg


@pytest.fixture
def started(monkeypatch) -> list[Path]:
    """Background fillers the code asked for (recorded, not spawned: unit tests fill in process)."""
    calls: list[Path] = []
    monkeypatch.setattr(vector_fill, "start_filler", lambda root: calls.append(root))
    return calls


def open_mem(root: Path, embedder, limit: int = 4) -> Memory:
    return Memory.open(root, embedder=embedder, config=config(root, limit))


def table_of(root: Path) -> ChunkTable:
    table = ChunkTable(paths.index_dir(root))
    table.open()
    return table


def nulls(root: Path) -> int:
    return table_of(root).table.count_rows("vector IS NULL")


def test_text_first_build_is_searchable_by_text_at_once(memory_root: Path, fake_embedder, started) -> None:
    write_days(memory_root, range(1, 9))
    mem = open_mem(memory_root, fake_embedder)
    report = mem.index()
    assert report.vectors_pending == report.chunks_total == 24 and report.embedded == 0
    assert fake_embedder.embedded_count == 0  # the model was not used at all
    assert nulls(memory_root) == 24 == pending_vectors(memory_root)
    assert started == [memory_root]  # the filler was asked for
    hits = open_mem(memory_root, fake_embedder).search("okapi note", k=3, mode="text", refresh=False)
    assert hits and "okapi" in hits[0].text
    hybrid_mem = open_mem(memory_root, fake_embedder)
    hybrid = hybrid_mem.search("okapi note", k=3, refresh=False)
    assert hybrid and "okapi" in hybrid[0].text
    assert hybrid[0].partial_vectors == {"embedded": 0, "total": 24}
    assert any(n.startswith("vectors: 0 of 24 chunks embedded") for n in hybrid_mem.notices)
    assert len(started) == 2  # the index run and the hybrid search (no filler runs here) asked for one
    stats = open_mem(memory_root, fake_embedder).stats()
    assert stats["vectors"]["filling"] and stats["vectors"]["embedded"] == 0
    table = table_of(memory_root)
    assert not ann_due(table, 1)  # no ANN training on a half-filled table
    result = verify(open_mem(memory_root, fake_embedder))
    assert result.ok and result.vectors_pending == 24 and result.bad_vectors == 0
    with pytest.raises(VectorsPendingError):
        open_mem(memory_root, fake_embedder).export_snapshot(memory_root.parent / "snap.tar")


def test_filler_fills_newest_first_and_matches_a_full_build(memory_root: Path, fake_embedder, started,
                                                             tmp_path: Path) -> None:
    write_days(memory_root, range(1, 9))
    open_mem(memory_root, fake_embedder).index()
    table = table_of(memory_root)
    date_of = {r["id"]: r["date"] for r in table.table.search().select(["id", "date"]).limit(None).to_list()}
    order: list[str] = []
    real_embed = fake_embedder.embed

    def embed(texts):
        order.extend(texts)
        return real_embed(texts)

    fake_embedder.embed = embed
    mem = open_mem(memory_root, fake_embedder)
    progress: list[tuple[int, int]] = []
    result = fill_vectors(memory_root, mem.config, mem.embedder, batch=5, on_commit=lambda f, m: progress.append((f, m)))
    assert result.filled == 24 and result.missing == 0 and result.skipped == 0
    assert progress[0] == (5, 19) and progress[-1] == (24, 0)  # recorded as it goes
    days = [int(t.split(" note ")[1].split()[0]) for t in order if " note " in t]  # not the mixed-in headings
    assert set(days[:5]) == {8, 7} and 1 in days[-3:] and set(days[-3:]) <= {1, 2}  # newest file first
    assert nulls(memory_root) == 0 and pending_vectors(memory_root) == 0
    assert len(date_of) == table_of(memory_root).count() == 24
    # The filled vectors are the ones a build that embeds everything writes.
    other = tmp_path / "other"
    write_days(other, range(1, 9))
    Memory.open(other, embedder=fake_embedder, config=config(other, 0)).index()
    vectors = lambda root: {r["id"]: r["vector"] for r in  # noqa: E731
                            table_of(root).table.search().select(["id", "vector"]).limit(None).to_list()}
    assert vectors(memory_root) == vectors(other)
    after = verify(open_mem(memory_root, fake_embedder))
    assert after.ok and after.vectors_pending == 0
    mem = open_mem(memory_root, fake_embedder)
    hits = mem.search("walrus note", k=2, mode="vector", refresh=False)
    assert hits and "walrus" in hits[0].text and hits[0].partial_vectors is None and not mem.notices


def test_cached_vectors_are_written_at_once(memory_root: Path, fake_embedder, started) -> None:
    write_days(memory_root, range(1, 5))
    open_mem(memory_root, fake_embedder, limit=0).index()  # 0: embed everything (fills the cache)
    write_days(memory_root, range(5, 9))
    report = open_mem(memory_root, fake_embedder).index(rebuild=True)
    assert report.vectors_pending == 12  # only the new days wait; the cached ones have their vectors
    missing = {r["source"] for r in table_of(memory_root).table.search().where("vector IS NULL")
               .select(["source"]).limit(None).to_list()}
    assert missing == {f"memory/2026-04-0{n}.md" for n in range(5, 9)}


def test_small_builds_embed_everything_as_before(memory_root: Path, fake_embedder, started) -> None:
    write_days(memory_root, range(1, 3))
    report = open_mem(memory_root, fake_embedder, limit=6).index()
    assert report.vectors_pending == 0 and report.embedded == 6 and nulls(memory_root) == 0 and not started


def test_index_runs_while_filling_keep_count_and_rows(memory_root: Path, fake_embedder, started) -> None:
    write_days(memory_root, range(1, 9))
    open_mem(memory_root, fake_embedder).index()
    log = memory_root / "memory" / "2026-04-03.md"
    log.write_text(log.read_text().replace("part 1", "part one, edited") + "## Session 15:00\n\n- heron appended\n")
    shifted = memory_root / "memory" / "2026-04-05.md"  # lines shift: its rows are rewritten, same ids and texts
    shifted.write_text(shifted.read_text().replace("# 2026-04-05\n", "# 2026-04-05\n\n\n\n", 1))
    report = open_mem(memory_root, fake_embedder).index()
    assert report.files_indexed == 2 and report.chunks_total == 25
    changed = table_of(memory_root).table.search().where("source = 'memory/2026-04-03.md'").select(
        ["text", "vector"]).limit(None).to_list()
    written = [r for r in changed if "edited" in r["text"] or "heron" in r["text"]]
    assert len(written) == 2 and all(r["vector"] is not None for r in written)  # new rows get vectors as before
    rewritten = table_of(memory_root).table.search().where("source = 'memory/2026-04-05.md'").select(
        ["vector"]).limit(None).to_list()
    assert len(rewritten) == 3 and all(r["vector"] is not None for r in rewritten)
    assert pending_vectors(memory_root) == nulls(memory_root) == 20  # recounted: unchanged rows still wait
    records = (paths.index_dir(memory_root) / "files.json").read_text()
    mem = open_mem(memory_root, fake_embedder)
    result = fill_vectors(memory_root, mem.config, mem.embedder)
    assert result.filled == 20 and nulls(memory_root) == 0 and table_of(memory_root).count() == 25
    assert (paths.index_dir(memory_root) / "files.json").read_text() == records
    assert verify(open_mem(memory_root, fake_embedder)).ok


def test_filler_leaves_rows_changed_meanwhile_to_the_indexer(memory_root: Path, fake_embedder, started) -> None:
    write_days(memory_root, range(1, 9))
    open_mem(memory_root, fake_embedder).index()
    mem = open_mem(memory_root, fake_embedder)
    edited: list[bool] = []

    def edit_between_batches(filled: int, missing: int) -> None:
        if not edited:  # a person edits an old day while the filler works, then an index run sees it
            log = memory_root / "memory" / "2026-04-01.md"
            log.write_text(log.read_text().replace("note 1 part 0", "note 1 part zero rewritten"))
            open_mem(memory_root, fake_embedder).index()
            edited.append(True)

    result = fill_vectors(memory_root, mem.config, mem.embedder, batch=3, on_commit=edit_between_batches)
    assert result.missing == 0 and nulls(memory_root) == 0 and table_of(memory_root).count() == 24
    assert verify(open_mem(memory_root, fake_embedder)).ok  # every vector is the one of its row's text


def test_a_filler_stopped_mid_way_resumes_losing_nothing(memory_root: Path, fake_embedder, started) -> None:
    write_days(memory_root, range(1, 9))
    open_mem(memory_root, fake_embedder).index()
    records = (paths.index_dir(memory_root) / "files.json").read_text()
    mem = open_mem(memory_root, fake_embedder)

    class Killed(Exception):
        pass

    def die(filled: int, missing: int) -> None:
        raise Killed

    with pytest.raises(Killed):
        fill_vectors(memory_root, mem.config, mem.embedder, batch=4, on_commit=die)
    assert nulls(memory_root) == pending_vectors(memory_root) == 20  # the committed batch stays
    assert vector_fill.ensure_filler(memory_root) and started == [memory_root, memory_root]
    result = fill_vectors(memory_root, mem.config, mem.embedder)
    assert result.filled == 20 and nulls(memory_root) == 0 and table_of(memory_root).count() == 24
    assert (paths.index_dir(memory_root) / "files.json").read_text() == records
    assert not vector_fill.ensure_filler(memory_root)  # complete: nothing to start


def test_one_filler_per_memory(memory_root: Path, fake_embedder, started) -> None:
    from memdown.fsutil import file_lock

    write_days(memory_root, range(1, 9))
    open_mem(memory_root, fake_embedder).index()
    mem = open_mem(memory_root, fake_embedder)
    with file_lock(paths.lock_file(memory_root, "vector-fill"), timeout=0):
        assert vector_fill.filler_running(memory_root)
        assert not vector_fill.ensure_filler(memory_root)
        assert fill_vectors(memory_root, mem.config, mem.embedder).outcome == "another filler is running"
    assert nulls(memory_root) == 24


def test_null_vectors_outside_a_fill_are_damage(memory_root: Path, fake_embedder, started) -> None:
    write_days(memory_root, range(1, 3))
    open_mem(memory_root, fake_embedder, limit=0).index()
    table_of(memory_root).table.update(where="text LIKE '%part 1%'", values_sql={"vector": "NULL"})
    report = verify(open_mem(memory_root, fake_embedder))
    assert not report.ok and report.bad_vectors == 2 and report.vectors_pending == 0
    fixed = repair(open_mem(memory_root, fake_embedder, limit=0), report)
    assert fixed.ok and nulls(memory_root) == 0


def test_rows_of_a_file_edited_before_its_turn_are_left_to_the_indexer(memory_root: Path, fake_embedder,
                                                                        started) -> None:
    write_days(memory_root, range(1, 9))
    long_a = "- " + "the okapi keeper rotated the feeding schedule and logged every change " * 3
    long_b = "- " + "the walrus pool filter was replaced after the pump failed twice in a row " * 3
    (memory_root / "memory" / "2026-04-09.md").write_text(f"# 2026-04-09\n\n## Session 9:00\n\n{long_a}\n{long_b}\n")
    open_mem(memory_root, fake_embedder).index()
    before = {r["id"]: r["embed_hash"] for r in table_of(memory_root).table.search()
              .where("source = 'memory/2026-04-09.md'").select(["id", "embed_hash"]).limit(None).to_list()}
    assert len(before) == 2
    # Edited, not indexed yet: the first unit keeps its id, but its neighbour context (what the model reads) changed.
    log = memory_root / "memory" / "2026-04-09.md"
    log.write_text(log.read_text().replace("pump failed twice", "pump failed three times"))
    mem = open_mem(memory_root, fake_embedder)
    result = fill_vectors(memory_root, mem.config, mem.embedder)
    assert result.skipped == 2 and result.missing == 2 and nulls(memory_root) == 2  # no vector of another text
    open_mem(memory_root, fake_embedder).index()
    assert nulls(memory_root) == 0 == pending_vectors(memory_root)
    assert verify(open_mem(memory_root, fake_embedder)).ok
