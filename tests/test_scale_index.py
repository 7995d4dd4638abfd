"""Scale work (#13): streaming full builds, the background ANN vector index, and
the compact embedding cache. Real LanceDB; the FakeEmbedder stands in for the model."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from conftest import FakeEmbedder, wait_for
from memdown import paths
from memdown.api import Memory
from memdown.index.cache import CachedEmbedder, EmbeddingCache, text_hash
from memdown.services.upkeep import indexing
from memdown.services.upkeep.vector_index import ann_due, build_vector_index


def write_days(root: Path, days: int, entries: int) -> None:
    memdir = root / "memory"
    memdir.mkdir(parents=True, exist_ok=True)
    for d in range(days):
        day = f"2026-02-{d + 1:02d}"
        body = "".join(
            f"### 10:{i:02d}\n<!-- session:s{d} turn:t{i} -->\n- fixed bug{d}x{i} in module{i % 5} with tool{d % 3}"
            f"{' and more detail' * ((i * 7) % 5)}\n\n"  # lengths out of file order: the shortest-first sort moves rows
            for i in range(entries)
        )
        (memdir / f"{day}.md").write_text(f"# {day}\n\n## Session 09:00\n\n{body}")


def table_rows(mem: Memory) -> list[dict]:
    return mem.table.table.search().select(["id", "source", "start_line", "embed_hash", "vector"]).limit(None).to_list()


def test_streaming_build_matches_its_chunks_vector_for_vector(memory_root: Path, monkeypatch) -> None:
    """Tiny batches force many embed/write rounds; every row still carries its own text's vector."""
    write_days(memory_root, 6, 9)
    monkeypatch.setenv("MEMDOWN_CHUNKING_NEIGHBOUR_WEIGHT", "0")  # each row = its own embedded text (no mixing)
    monkeypatch.setattr(indexing, "BUILD_BATCH", 7)
    monkeypatch.setattr(indexing, "WRITE_ROWS", 15)
    fake = FakeEmbedder()
    mem = Memory.open(memory_root, embedder=fake)
    report = mem.index()
    rows = table_rows(mem)
    assert report.rebuilt and report.chunks_total == len(rows) == sum(r.chunks for r in mem.table.files.values())
    assert len({r["id"] for r in rows}) == len(rows)
    embedded = {text_hash(t): t for call in fake.calls for t in call}
    for row in rows:
        expected = fake.embed_query(embedded[row["embed_hash"]])
        assert np.allclose(row["vector"], expected, atol=1e-6), row["id"]
    # A second, incremental run finds nothing to do: the streamed rows are what incremental expects.
    again = Memory.open(memory_root, embedder=fake).index()
    assert again.embedded == 0 and again.files_indexed == 0 and again.chunks_total == len(rows)


def test_streaming_build_equals_one_batch_build(memory_root: Path, monkeypatch) -> None:
    write_days(memory_root, 4, 6)
    mem = Memory.open(memory_root, embedder=FakeEmbedder())
    mem.index()
    one = sorted((r["id"], r["start_line"], r["embed_hash"], tuple(r["vector"])) for r in table_rows(mem))
    monkeypatch.setattr(indexing, "BUILD_BATCH", 3)
    monkeypatch.setattr(indexing, "WRITE_ROWS", 5)
    mem = Memory.open(memory_root, embedder=FakeEmbedder())
    mem.index(rebuild=True)
    many = sorted((r["id"], r["start_line"], r["embed_hash"], tuple(r["vector"])) for r in table_rows(mem))
    assert one == many


def test_small_memory_gets_no_ann_index_and_exact_results(memory_root: Path, monkeypatch) -> None:
    write_days(memory_root, 3, 5)
    mem = Memory.open(memory_root, embedder=FakeEmbedder())
    mem.index()
    assert not ann_due(mem.table, mem.config["index.ann_min_rows"])
    assert mem.table.ann.rows() is None
    builder = object()
    assert mem.table.ann.tune(builder) is builder  # exact search, untouched
    assert not (paths.logs_dir(memory_root) / "vector-index.log").exists()  # no background build started


@pytest.mark.integration
def test_background_ann_build_and_unindexed_rows_stay_searchable(memory_root: Path, monkeypatch) -> None:
    """Past the threshold an index run starts the detached builder; a row added after the
    index was trained is found by vector and hybrid search before optimize folds it in."""
    monkeypatch.setenv("MEMDOWN_INDEX_ANN_MIN_ROWS", "200")
    write_days(memory_root, 12, 30)
    mem = Memory.open(memory_root, embedder=FakeEmbedder())
    report = mem.index()
    assert report.chunks_total >= 200
    log = paths.logs_dir(memory_root) / "vector-index.log"
    assert wait_for(lambda: log.exists() and "built" in log.read_text(), timeout=120), (
        log.read_text() if log.exists() else "no log")
    mem = Memory.open(memory_root, embedder=FakeEmbedder())
    mem.ensure_index(refresh=False)  # opens with the full damage checks: the build recorded its version
    assert mem.notices == []
    indexed, unindexed = mem.table.ann.rows()
    assert indexed == report.chunks_total and unindexed == 0
    assert not ann_due(mem.table, 200)

    day = memory_root / "memory" / "2026-02-12.md"
    day.write_text(day.read_text() + "### 23:59\n<!-- session:s9 turn:late -->\n- quokka zeppelin marmalade\n\n")
    mem.index()
    indexed, unindexed = mem.table.ann.rows()
    assert unindexed >= 1  # not folded in yet
    for mode in ("vector", "hybrid"):
        hits = mem.search("quokka zeppelin marmalade", mode=mode, k=3, refresh=False)
        assert hits and "quokka" in hits[0].text, mode


def test_ann_build_is_refused_below_threshold_and_while_another_runs(memory_root: Path) -> None:
    write_days(memory_root, 2, 5)
    Memory.open(memory_root, embedder=FakeEmbedder()).index()
    assert build_vector_index(memory_root, 10_000) == "not due"
    from memdown.fsutil import file_lock

    with file_lock(paths.lock_file(memory_root, "ann"), timeout=1):
        assert build_vector_index(memory_root, 1) == "another build is running"


# --- the embedding cache ------------------------------------------------------------

def test_cache_keeps_each_models_vector_of_the_same_text(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite3")
    key = text_hash("same text")
    cache.put_many("model-a", {key: [1.0, 0.0]})
    cache.put_many("model-b", {key: [0.0, 1.0]})
    assert cache.get_many("model-a", [key])[key].tolist() == [1.0, 0.0]
    assert cache.get_many("model-b", [key])[key].tolist() == [0.0, 1.0]
    assert cache.get_many("model-c", [key]) == {}


def test_cache_stores_float32_exactly_and_rejects_damaged_rows(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite3")
    vectors = np.random.default_rng(1).standard_normal((3, 8)).astype(np.float32)
    keys = [text_hash(f"t{i}") for i in range(3)]
    cache.put_many("m", dict(zip(keys, vectors)))
    got = cache.get_many("m", keys, 8)
    assert all(np.array_equal(got[k], v) for k, v in zip(keys, vectors))
    db = sqlite3.connect(tmp_path / "c.sqlite3")
    db.execute("UPDATE vectors SET vector = ? WHERE rowid = (SELECT min(rowid) FROM vectors)",
               (np.array([np.nan] * 8, np.float32).tobytes(),))
    db.commit()
    db.close()
    assert len(cache.get_many("m", keys, 8)) == 2  # the NaN row is a miss
    assert len(cache.get_many("m", keys, 4)) == 0  # wrong length for this model: misses


def test_cache_reads_rows_of_the_first_layout(tmp_path: Path) -> None:
    """A cache filled by an older memdown (hex keys in ``embeddings``) still answers."""
    path = tmp_path / "c.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE embeddings (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))")
    key = text_hash("old text")
    db.execute("INSERT INTO embeddings VALUES (?, ?, ?)", ("m", key, np.array([0.5, 0.25], np.float32).tobytes()))
    db.commit()
    db.close()
    fake = FakeEmbedder()
    embedder = CachedEmbedder(fake, EmbeddingCache(path))
    assert EmbeddingCache(path).get_many("m", [key])[key].tolist() == [0.5, 0.25]
    assert embedder.embed_array(["x"]).shape == (1, fake.dim) and fake.embedded_count == 1


def test_cached_embedder_returns_rows_in_input_order_with_duplicates(tmp_path: Path) -> None:
    fake = FakeEmbedder()
    embedder = CachedEmbedder(fake, EmbeddingCache(tmp_path / "c.sqlite3"))
    texts = ["a longer text here", "b", "a longer text here", "c c"]
    first = embedder.embed_array(texts)
    assert fake.embedded_count == 3  # the duplicate is embedded once
    for row, text in zip(first, texts):
        assert np.allclose(row, fake.embed_query(text), atol=1e-6)
    again = embedder.embed_array(texts[::-1])
    assert fake.embedded_count == 3 and np.array_equal(again, first[::-1])
