"""Change-sized incremental work: an appended section writes only its chunks; a no-op index loads nothing heavy."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import REPO_ROOT
from memdown.api import Memory
from memdown.index.table import ChunkTable
from memdown.services.upkeep.verify import verify


def day(n: int, *sections: str) -> str:
    body = "".join(f"## Session {10 + i}:00\n\n- {text}\n\n" for i, text in enumerate(sections))
    return f"# 2026-04-{n:02d}\n\n{body}"


def test_appended_section_writes_only_its_own_rows(memory_root: Path, fake_embedder, monkeypatch) -> None:
    (memory_root / "memory").mkdir(parents=True)
    log = memory_root / "memory" / "2026-04-01.md"
    log.write_text(day(1, "alpha caches warm up", "beta queue retries twice", "gamma deploy on friday"))
    mem = Memory.open(memory_root, embedder=fake_embedder)
    before = mem.index().chunks_total
    first = fake_embedder.embedded_count
    calls: list[tuple[str, set, int]] = []
    replaced: list[str] = []
    real_update = ChunkTable.update_source
    monkeypatch.setattr(ChunkTable, "update_source",
                        lambda self, s, drop, rows: (calls.append((s, set(drop), len(rows))), real_update(self, s, drop, rows)))
    monkeypatch.setattr(ChunkTable, "replace_source", lambda self, s, rows: replaced.append(s))
    with open(log, "a") as handle:
        handle.write("## Session 14:00\n\n- delta zebra notes appended later\n")
    report = Memory.open(memory_root, embedder=fake_embedder).index()
    assert report.files_indexed == 1 and report.chunks_added == 1 and report.chunks_removed == 0
    assert calls == [("memory/2026-04-01.md", set(), 1)] and not replaced  # nothing rewritten
    assert report.chunks_total == before + 1
    assert fake_embedder.embedded_count == first + 2  # only the new chunk (its text and its heading) reached the model
    hits = Memory.open(memory_root, embedder=fake_embedder).search("delta zebra", k=1, mode="text")
    assert hits and "zebra" in hits[0].text
    # An edited section: its old row goes, its new one comes, the others stay.
    log.write_text(log.read_text().replace("beta queue retries twice", "beta queue retries three times"))
    calls.clear()
    report = Memory.open(memory_root, embedder=fake_embedder).index()
    assert report.chunks_added == 1 and report.chunks_removed == 1
    assert len(calls) == 1 and len(calls[0][1]) == 1 and calls[0][2] == 1
    monkeypatch.undo()
    assert verify(Memory.open(memory_root, embedder=fake_embedder)).ok


def test_line_shift_rewrites_rows_but_reuses_vectors(memory_root: Path, fake_embedder) -> None:
    (memory_root / "memory").mkdir(parents=True)
    log = memory_root / "memory" / "2026-04-02.md"
    log.write_text(day(2, "alpha caches warm up", "beta queue retries twice"))
    Memory.open(memory_root, embedder=fake_embedder).index()
    embedded = fake_embedder.embedded_count
    log.write_text("<!-- a comment shifts every line -->\n" + log.read_text())
    report = Memory.open(memory_root, embedder=fake_embedder).index()
    assert report.files_indexed == 1 and fake_embedder.embedded_count == embedded
    assert verify(Memory.open(memory_root, embedder=fake_embedder)).ok  # line numbers were rewritten


def test_noop_index_loads_neither_lancedb_nor_the_model(memory_root: Path, fake_embedder) -> None:
    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-04-03.md").write_text(day(3, "alpha caches warm up"))
    assert Memory.open(memory_root).index().files_indexed == 1  # the packaged model
    code = textwrap.dedent(f"""
        import sys
        from memdown.api import Memory
        mem = Memory.open({str(memory_root)!r})
        report = mem.index()
        assert report.files_unchanged == 1 and report.chunks_total == 1, report
        assert "lancedb" not in sys.modules and "fastembed" not in sys.modules, "a no-op index loaded them"
        hits = mem.search("alpha caches", k=1, mode="text")  # the table opens when it is needed
        assert hits, hits
        """)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "LANCEDB_LOG": "error"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def test_verify_checks_unchanged_files_by_fingerprint(memory_root: Path, fake_embedder, monkeypatch) -> None:
    import memdown.services.upkeep.verify as verify_module

    (memory_root / "memory").mkdir(parents=True)
    for n in (4, 5):
        (memory_root / "memory" / f"2026-04-{n:02d}.md").write_text(day(n, f"alpha caches {n}", f"beta queue {n}"))
    Memory.open(memory_root, embedder=fake_embedder).index()
    chunked: list[str] = []
    real_chunk = verify_module.chunk_markdown
    monkeypatch.setattr(verify_module, "chunk_markdown",
                        lambda source, *a, **kw: (chunked.append(source), real_chunk(source, *a, **kw))[1])
    assert verify(Memory.open(memory_root, embedder=fake_embedder)).ok
    assert chunked == []  # unchanged bytes: the fingerprint stands in for re-chunking
    # A row whose text changed inside the table (the file did not) is still caught.
    mem = Memory.open(memory_root, embedder=fake_embedder)
    mem.table.open()
    mem.table.table.update(where="source = 'memory/2026-04-05.md' AND text LIKE '%beta%'",
                           values={"text": "- beta queue rotted"})
    report = verify(Memory.open(memory_root, embedder=fake_embedder))
    assert report.outdated == ["memory/2026-04-05.md"] and chunked == []
    # A changed file is chunked again.
    (memory_root / "memory" / "2026-04-04.md").write_text(day(4, "alpha caches changed"))
    report = verify(Memory.open(memory_root, embedder=fake_embedder))
    assert chunked == ["memory/2026-04-04.md"] and set(report.outdated) == {"memory/2026-04-04.md", "memory/2026-04-05.md"}


def test_rows_without_vectors_are_found_by_text_in_hybrid_search(memory_root: Path, fake_embedder) -> None:
    """A row whose vector is missing (not yet embedded) is still found: hybrid degrades to text for it."""
    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-04-06.md").write_text(day(6, "alpha caches warm up", "beta queue retries"))
    (memory_root / "memory" / "2026-04-07.md").write_text(day(7, "okapi deploy retried"))
    mem = Memory.open(memory_root, embedder=fake_embedder)
    mem.index()
    mem.table.table.update(where="text LIKE '%okapi%'", values_sql={"vector": "NULL"})
    assert mem.table.table.count_rows("vector IS NULL") == 1
    hits = Memory.open(memory_root, embedder=fake_embedder).search("okapi deploy", k=3, refresh=False)
    assert any("okapi" in h.text for h in hits)
    vector_only = Memory.open(memory_root, embedder=fake_embedder).search("okapi deploy", k=3, mode="vector",
                                                                          refresh=False)
    assert all("okapi" not in h.text for h in vector_only)  # no vector, no vector hit: and no crash
