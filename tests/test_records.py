"""files.json has one reader, one stat diff and one row comparison (memdown.index.records)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memdown.api import Memory
from memdown.daemon.watcher import diff_targets, indexed_files
from memdown.index.records import (
    FileRecord, RecordsDamaged, chunk_key, load_records, read_records, row_key, save_records, stat_diff,
)
from memdown.services.upkeep.indexing import changed_sources, chunk_options
from memdown.store import automemory
from memdown.store.chunker import chunk_markdown


def day(n: int, *lines: str) -> str:
    body = "\n".join(f"- {line}" for line in lines)
    return f"# 2026-03-{n:02d}\n\n## Session 10:00\n\n### 10:00\n{body}\n"


@pytest.mark.parametrize("content", ["[]", "{\"a.md\": []}", "not json", "{\"a.md\": {\"size\": 1}}",
                                     json.dumps({"a.md": {"size": True, "mtime_ns": 1, "sha256": "", "chunks": 1}}),
                                     json.dumps({"a.md": {"size": 1, "mtime_ns": 1, "sha256": "", "chunks": -1}})])
def test_damaged_records_are_one_clear_error(tmp_path: Path, content: str) -> None:
    (tmp_path / "files.json").write_text(content)
    with pytest.raises(RecordsDamaged) as caught:
        load_records(tmp_path)
    assert "\n" not in str(caught.value) and "files.json" in str(caught.value)
    assert read_records(tmp_path) is None  # cheap checks: "not fresh", never a crash


def test_records_round_trip_and_missing_file(tmp_path: Path) -> None:
    assert load_records(tmp_path) == {} and read_records(tmp_path) is None
    records = {"memory/b.md": FileRecord(3, 4, "ab", 2), "memory/a.md": FileRecord(1, 2, "", 0)}
    save_records(tmp_path, records)
    assert load_records(tmp_path) == records
    assert list(json.loads((tmp_path / "files.json").read_text())) == ["memory/a.md", "memory/b.md"]


def test_stat_diff_finds_new_changed_and_deleted(tmp_path: Path) -> None:
    keep, change, new = (tmp_path / n for n in ("keep.md", "change.md", "new.md"))
    for f in (keep, change, new):
        f.write_text("x\n")
    records = {}
    for f in (keep, change):
        st = f.stat()
        records[f.name] = FileRecord(st.st_size, st.st_mtime_ns, "", 1)
    records["gone.md"] = FileRecord(1, 1, "", 1)
    os.utime(change, ns=(1, 1))
    diff = stat_diff(records, [(f.name, f) for f in (keep, change, new)])
    assert diff.changed == [change, new] and diff.deleted == ["gone.md"] and not diff.clean
    del records["gone.md"]
    assert stat_diff(records, [(f.name, f) for f in (keep,)]).deleted == ["change.md"]
    st = change.stat()
    records["change.md"] = FileRecord(st.st_size, st.st_mtime_ns, "", 1)
    assert stat_diff(records, [(f.name, f) for f in (keep, change)]).clean


def test_indexer_and_verify_read_rows_alike(memory_root: Path, fake_embedder) -> None:
    """Rows read back from the table compare equal to the chunks that made them."""
    (memory_root / "memory").mkdir(parents=True)
    text = day(1, "alpha caches are warm", "beta queue retries") + "\n## Session 11:00\n\n- more words\n"
    (memory_root / "memory" / "2026-03-01.md").write_text(text)
    mem = Memory.open(memory_root, embedder=fake_embedder)
    mem.index()
    rows = {r["id"]: r for r in mem.table.rows_for_source("memory/2026-03-01.md")}
    chunks = chunk_markdown("memory/2026-03-01.md", text, chunk_options(mem.config))
    assert len(chunks) == len(rows) > 1
    assert all(row_key(rows[c.id]) == chunk_key(c) for c in chunks)
    moved = chunks[0]
    moved.start_line += 1
    assert row_key(rows[moved.id]) != chunk_key(moved)


def test_full_pass_keeps_auto_memory_notes(isolate_paths: Path, fake_embedder) -> None:
    """The daemon's full pass sees Claude Code's notes like the indexer does (it used to drop them)."""
    root = isolate_paths / ".memdown"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "2026-03-01.md").write_text(day(1, "alpha caches are warm"))
    folder = automemory.memory_dir(root)
    folder.mkdir(parents=True)
    note = folder / "use-pnpm.md"
    note.write_text("---\nname: use-pnpm\ndescription: pnpm\nmetadata:\n  type: feedback\n---\nUse pnpm, never npm.\n")
    mem = Memory.open(root, embedder=fake_embedder)
    mem.index()
    assert indexed_files(root) == 2 and not changed_sources(root)
    assert diff_targets(root) == []
    note.write_text(note.read_text() + "Also for scripts.\n")
    assert diff_targets(root) == [note] and changed_sources(root)
    report = mem.index(diff_targets(root))
    assert report.files_indexed == 1 and report.files_removed == 0
    assert "automemory/use-pnpm.md" in mem.table.files
    note.unlink()
    targets = diff_targets(root)
    assert targets == [note]
    assert mem.index(targets).files_removed == 1 and "automemory/use-pnpm.md" not in mem.table.files


def test_chunk_key_reads_a_missing_field_as_row_key_does() -> None:
    from types import SimpleNamespace

    from memdown.index.records import ROW_FIELDS

    values = {name: f"v-{name}" for name in ROW_FIELDS} | {"start_line": 3, "end_line": 9}
    assert chunk_key(SimpleNamespace(**values)) == row_key(values) == tuple(values.values())
    values |= {"session": None, "section_end": None}
    assert chunk_key(SimpleNamespace(**values)) == row_key(values)
    assert row_key(values)[ROW_FIELDS.index("session")] == ""
