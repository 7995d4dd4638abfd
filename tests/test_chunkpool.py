"""Chunking a build in a process pool: same chunks in the same order, and every failure falls back.

Real worker processes (spawned); each test starts at most one small pool.
"""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from conftest import FakeEmbedder
from memdown.api import Memory
from memdown.store import chunkpool
from memdown.store.chunker import ChunkOptions, chunk_markdown
from memdown.store.chunkpool import ChunkAhead, Chunked, chunk_files
from memdown.store.reader import read_memory_file, walk_markdown

chunkpool_pooled = chunkpool._pooled

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "chunker"
FIELDS = ("id", "source", "kind", "heading", "start_line", "end_line", "section_start", "section_end", "date",
          "session", "turn", "transcript", "text", "embed_text", "embed_hash")


def _key(chunks) -> list[tuple]:
    return [tuple(getattr(c, f) for f in FIELDS) for c in chunks]


def test_pooled_chunks_equal_in_process_chunks_in_order(monkeypatch):
    monkeypatch.setattr(chunkpool, "GROUP_BYTES", 4096)  # several tasks, so order across tasks is tested
    items = [(rel, path) for path, rel, _link in walk_markdown(FIXTURES)]
    options = ChunkOptions(max_chars=120, context_chars=30)
    got = list(chunk_files(FIXTURES, items, options, max_bytes=10**7, workers=2, min_bytes=0))
    assert [r.source for r in got] == [rel for rel, _path in items]
    for (rel, path), result in zip(items, got):
        mfile = read_memory_file(FIXTURES, Path(path), max_bytes=10**7)
        assert result.digest == hashlib.sha256(mfile.raw_bytes).hexdigest()
        assert _key(result.chunks) == _key(chunk_markdown(rel, mfile.text, options)), rel


def test_a_file_a_worker_cannot_read_is_left_to_the_indexer(tmp_path):
    (tmp_path / "ok.md").write_text("# A\n\nbody text\n")
    (tmp_path / "blob.md").write_bytes(b"\x00\x01binary")
    items = [("ok.md", tmp_path / "ok.md"), ("blob.md", tmp_path / "blob.md"), ("gone.md", tmp_path / "gone.md")]
    got = list(chunk_files(tmp_path, items, ChunkOptions(), max_bytes=10**7, workers=2, min_bytes=0))
    assert [(r.source, r.chunks is None) for r in got] == [("ok.md", False), ("blob.md", True), ("gone.md", True)]


class _ExplodesInTheWorker:
    """Unpickling it raises, which kills the worker process that receives it (a pool that died)."""

    def __reduce__(self):
        return (int, ("not a number",))


def test_a_dead_pool_hands_every_file_back_to_the_indexer(tmp_path):
    items = [(f"f{i}.md", str(tmp_path / f"f{i}.md")) for i in range(5)]
    for _source, path in items:
        Path(path).write_text("# H\n\ntext\n")
    got = list(chunkpool._pooled(str(tmp_path), [items[:2], items[2:4], items[4:]], _ExplodesInTheWorker(), 10**7, 2))
    assert got == [Chunked(source, "", None) for source, _path in items]


def test_chunk_ahead_uses_a_worker_result_only_for_the_same_bytes(tmp_path, monkeypatch):
    text = "# A\n\nfirst version\n"
    (tmp_path / "a.md").write_text(text)
    (tmp_path / "b.md").write_text("# B\n\nother file\n")
    files = [("a.md", tmp_path / "a.md"), ("b.md", tmp_path / "b.md")]
    stale = [Chunked("a.md", "digest of other bytes", chunk_markdown("a.md", "# A\n\nstale\n")),
             Chunked("b.md", "db", chunk_markdown("b.md", "# B\n\nfrom the worker\n"))]
    monkeypatch.setattr(chunkpool, "_pooled", lambda *args: iter(stale))
    ahead = ChunkAhead(tmp_path, files, ChunkOptions(), max_bytes=10**7, min_bytes=0)
    assert [c.text for c in ahead.chunks("a.md", text, "real digest")] == ["first version"]  # re-chunked here
    assert [c.text for c in ahead.chunks("b.md", "ignored", "db")] == ["from the worker"]
    assert [c.text for c in ahead.chunks("c.md", "# C\n\nnot ahead\n", "x")] == ["not ahead"]


def test_prepared_rows_are_handed_over_only_for_the_same_bytes(tmp_path, monkeypatch):
    text = "# A\n\nfirst version\n"
    results = [Chunked("a.md", "digest of other bytes", None, "rows of stale bytes"),
               Chunked("b.md", "db", None, "rows of b"), Chunked("c.md", "", None)]
    monkeypatch.setattr(chunkpool, "_pooled", lambda *args: iter(results))
    files = [(name, tmp_path / name) for name in ("a.md", "b.md", "c.md")]
    for _name, path in files:
        path.write_text(text)
    ahead = ChunkAhead(tmp_path, files, ChunkOptions(), max_bytes=10**7, min_bytes=0, prepare=len)
    chunks, prepared = ahead.chunked("a.md", text, "real digest")  # re-chunked here, the worker's rows unused
    assert ([c.text for c in chunks], prepared) == (["first version"], None)
    assert ahead.chunked("b.md", "ignored", "db") == (None, "rows of b")
    chunks, prepared = ahead.chunked("c.md", text, "")  # the worker failed on it
    assert ([c.text for c in chunks], prepared) == (["first version"], None)


def test_workers_send_what_prepare_makes_instead_of_the_chunks(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\none\n\n# B\n\ntwo\n")
    got = chunkpool.chunk_group(str(tmp_path), [("a.md", str(tmp_path / "a.md"))], ChunkOptions(), 10**7, len)
    assert (got[0].chunks, got[0].prepared) == (None, 2)
    assert chunkpool.chunk_group(str(tmp_path), [("a.md", str(tmp_path / "a.md"))], ChunkOptions(), 10**7)[0].prepared is None


def test_small_builds_start_no_pool(tmp_path, monkeypatch):
    (tmp_path / "a.md").write_text("# A\n\nbody\n")
    monkeypatch.setattr(chunkpool, "_pooled", lambda *args: pytest.fail("a pool for 12 bytes"))
    ahead = ChunkAhead(tmp_path, [("a.md", tmp_path / "a.md")], ChunkOptions(), max_bytes=10**7)
    assert [c.text for c in ahead.chunks("a.md", "# A\n\nbody\n", "d")] == ["body"]


def _table(m: Memory) -> list[dict]:
    rows = m.table.table.search().select(["id", "source", "heading", "start_line", "end_line", "section_start",
                                          "section_end", "text", "fts_text", "embed_hash", "session",
                                          "vector"]).limit(None)
    return sorted(rows.to_list(), key=lambda r: r["id"])


def test_a_pooled_build_writes_the_same_index_and_reports_the_same_skips(memory_root, monkeypatch):
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    shutil.copytree(FIXTURES / "memory", memory_root / "memory", dirs_exist_ok=True)
    shutil.copytree(FIXTURES / "notes", memory_root / "notes")
    (memory_root / "notes" / "blob.md").write_bytes(b"\x00binary")
    serial = m.index(rebuild=True)
    want = _table(m)
    monkeypatch.setattr(chunkpool, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(chunkpool, "GROUP_BYTES", 8192)
    monkeypatch.setattr(m.embedder, "cache", None)  # the model reads the workers' embed texts, not the cache
    served: list[Chunked] = []
    monkeypatch.setattr(chunkpool, "_pooled", lambda *args: (r for r in chunkpool_pooled(*args) if not served.append(r)))
    pooled = m.index(rebuild=True)
    assert len(served) > 20  # the pool did serve this build, with rows it prepared instead of chunks
    assert all(r.chunks is None and r.prepared.rows.num_rows == len(r.prepared.embed_texts)
               for r in served if r.digest)
    assert _table(m) == want and len(want) == serial.chunks_added > 100
    assert (pooled.skipped, pooled.warnings) == (serial.skipped, serial.warnings)
    assert [s["source"] for s in pooled.skipped] == ["notes/blob.md"]
    assert any("invalid UTF-8" in w for w in pooled.warnings)


UNGUARDED_SCRIPT = """
import sys
from pathlib import Path
with open(sys.argv[2], "a") as ran:  # no __main__ guard: a spawned worker that ran this would append too
    ran.write("ran\\n")
from memdown.store.chunker import ChunkOptions
from memdown.store.chunkpool import chunk_files
root = Path(sys.argv[1])
items = [(p.name, p) for p in sorted(root.glob("*.md"))]
got = list(chunk_files(root, items, ChunkOptions(), max_bytes=10**7, workers=2, min_bytes=0))
print(sum(r.chunks is not None for r in got))
"""


def test_workers_do_not_rerun_an_unguarded_calling_script(tmp_path):
    import subprocess
    import sys

    for i in range(4):
        (tmp_path / f"f{i}.md").write_text(f"# H{i}\n\nbody {i}\n")
    script, ran = tmp_path / "script.py", tmp_path / "ran.txt"
    script.write_text(UNGUARDED_SCRIPT)
    out = subprocess.run([sys.executable, str(script), str(tmp_path), str(ran)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "4"  # every file chunked by a worker
    assert ran.read_text() == "ran\n"  # and the script ran once, here
