"""Indexing with a FakeEmbedder: incremental runs, content-addressed ids, the
embedding cache, model changes, damage recovery and compaction."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import FakeEmbedder
from memdown import paths
from memdown.api import Memory
from memdown.config import load_config
from memdown.errors import InputFileError, NotInitializedError


class OtherModel(FakeEmbedder):
    model_id = "fake/other-model"


def fifty_sections(day: str = "2026-03-14", n: int = 50) -> str:
    return f"# {day}\n\n## Session 09:00\n\n" + "".join(
        f"### 10:{i:02d}\n<!-- session:s-{day} turn:t{i:02d} -->\n- worked on item{i} in module{i % 7}\n"
        f"- decided something about widget{i}\n\n"
        for i in range(n)
    )


def tree_digest(root: Path) -> dict[str, str]:
    """sha256 of every file outside the index folder (the markdown and config)."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and "index" not in path.relative_to(root).parts and not path.name.startswith("."):
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def mem(memory_root: Path) -> Memory:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    return m


def reopen(root: Path, embedder=None) -> Memory:
    return Memory.open(root, embedder=embedder or FakeEmbedder())


def daily(root: Path, day: str) -> Path:
    return paths.daily_file(root, day)


def rows(m: Memory) -> list[dict]:
    return m.table.table.search().select(["id", "source", "heading", "start_line", "end_line", "text"]).limit(
        None).to_list()


def test_first_run_builds_and_reports(mem: Memory):
    daily(mem.root, "2026-03-14").write_text(fifty_sections())
    report = mem.index()
    d = report.to_dict()
    for key in ("files_indexed", "chunks_added", "chunks_removed", "embedded", "seconds"):
        assert key in d
    assert report.rebuilt and "no index" in report.rebuild_reason
    assert (report.files_indexed, report.chunks_added, report.embedded, report.chunks_total) == (1, 50, 50, 50)
    assert mem.table.count() == 50
    again = reopen(mem.root).index()
    assert not again.rebuilt
    assert (again.files_indexed, again.files_unchanged, again.embedded, again.chunks_added) == (0, 1, 0, 0)


def test_append_one_section_embeds_exactly_one(mem: Memory):
    f = daily(mem.root, "2026-03-14")
    f.write_text(fifty_sections())
    mem.index()
    with open(f, "a") as handle:
        handle.write("### 11:30\n<!-- session:s-new turn:tnew -->\n- appended: switched the queue to NATS\n")
    m2 = reopen(mem.root)
    report = m2.index()
    assert report.embedded == 1
    assert (report.chunks_added, report.chunks_removed, report.files_indexed) == (1, 0, 1)
    assert m2.table.count() == 51
    hit = m2.search("switched the queue to NATS", mode="text", k=1)[0]
    assert hit.session == "s-new" and hit.turn == "tnew"


@pytest.mark.parametrize("prefix", ["\n\n", "<!-- imported from the old wiki\n     keep this note -->\n"])
def test_insert_at_top_embeds_nothing_but_moves_lines(mem: Memory, prefix: str):
    f = daily(mem.root, "2026-03-14")
    f.write_text(fifty_sections())
    mem.index()
    before = {r["id"]: r for r in rows(mem)}
    f.write_text(prefix + f.read_text())
    m2 = reopen(mem.root)
    report = m2.index()
    assert report.embedded == 0
    assert (report.chunks_added, report.chunks_removed) == (0, 0)
    after = {r["id"]: r for r in rows(m2)}
    assert set(after) == set(before)
    assert all(after[i]["start_line"] == before[i]["start_line"] + 2 for i in after)
    assert all(after[i]["end_line"] == before[i]["end_line"] + 2 for i in after)
    hit = m2.search("widget17", mode="text", k=1)[0]
    lines = f.read_text().split("\n")
    assert "widget17" in "\n".join(lines[hit.start_line - 1 : hit.end_line])
    exp = m2.expand(hit.id)
    assert exp.text == "\n".join(lines[exp.start_line - 1 : exp.end_line])
    assert exp.text.startswith("### 10:17") and not exp.stale


def test_only_changed_files_are_touched(mem: Memory):
    for d in range(1, 6):
        daily(mem.root, f"2026-03-0{d}").write_text(fifty_sections(f"2026-03-0{d}", 5))
    assert mem.index().chunks_total == 25
    target = daily(mem.root, "2026-03-03")
    target.write_text(target.read_text().replace("widget2", "gadget2"))
    report = reopen(mem.root).index()
    assert (report.files_indexed, report.files_unchanged, report.embedded) == (1, 4, 1)
    assert (report.chunks_added, report.chunks_removed) == (1, 1)
    # a touched but identical file is recognised by its hash
    os.utime(daily(mem.root, "2026-03-01"), ns=(1, 1))
    report = reopen(mem.root).index()
    assert (report.files_indexed, report.files_unchanged, report.embedded) == (0, 5, 0)
    # ...and the new mtime is remembered (the next run does not even hash it)
    m = reopen(mem.root)
    m.index()
    assert m.table.files["memory/2026-03-01.md"].mtime_ns == 1


def test_deleted_files_and_sections_are_removed(mem: Memory):
    for d in (1, 2):
        daily(mem.root, f"2026-03-0{d}").write_text(fifty_sections(f"2026-03-0{d}", 4))
    mem.index()
    daily(mem.root, "2026-03-02").unlink()
    report = reopen(mem.root).index()
    assert (report.files_removed, report.chunks_removed, report.chunks_total) == (1, 4, 4)
    m = reopen(mem.root)
    assert m.search("item1", mode="text", source="memory/2026-03-02.md") == []
    # remove one section from the remaining file
    f = daily(mem.root, "2026-03-01")
    text = f.read_text()
    start = text.index("### 10:02")
    end = text.index("### 10:03")
    f.write_text(text[:start] + text[end:])
    report = reopen(mem.root).index()
    assert (report.chunks_removed, report.chunks_added, report.embedded, report.chunks_total) == (1, 0, 0, 3)
    m = reopen(mem.root)
    assert all("widget2" not in h.text for h in m.search("widget2", mode="text"))
    assert m.table.count() == 3


def test_rebuild_flag(mem: Memory):
    daily(mem.root, "2026-03-14").write_text(fifty_sections(n=6))
    mem.index()
    report = reopen(mem.root).index(rebuild=True)
    assert report.rebuilt and report.rebuild_reason == "rebuild requested"
    assert report.embedded == 0  # every vector came from the cache
    assert report.chunks_added == 6 and report.files_indexed == 1


def test_deleting_the_index_re_embeds_nothing(mem: Memory):
    daily(mem.root, "2026-03-14").write_text(fifty_sections(n=12))
    assert mem.index().embedded == 12
    shutil.rmtree(paths.index_dir(mem.root))
    fake = FakeEmbedder()
    report = reopen(mem.root, fake).index()
    assert report.rebuilt and report.embedded == 0 and report.chunks_total == 12
    assert fake.embedded_count == 0
    assert paths.embedding_cache_file().is_file()


def test_model_change_rebuilds_and_says_so(mem: Memory):
    daily(mem.root, "2026-03-14").write_text(fifty_sections(n=8))
    mem.index()
    other = OtherModel()
    m2 = reopen(mem.root, other)
    report = m2.index()
    assert report.rebuilt
    assert "model" in report.rebuild_reason and "fake/other-model" in report.rebuild_reason
    assert report.embedded == 8 and other.embedded_count == 16  # 8 units, and their 8 headings mixed in
    assert m2.table.meta.model_id == "fake/other-model"
    # switching back finds the first model's vectors in the cache
    back = reopen(mem.root).index()
    assert back.rebuilt and back.embedded == 0


def test_model_change_is_noticed_by_search(mem: Memory):
    daily(mem.root, "2026-03-14").write_text(fifty_sections(n=3))
    mem.index()
    m2 = reopen(mem.root, OtherModel())
    assert m2.search("widget1", k=1)
    assert len(m2.notices) == 1 and "model" in m2.notices[0]


def test_chunking_setting_change_rebuilds(mem: Memory, monkeypatch):
    daily(mem.root, "2026-03-14").write_text(fifty_sections(n=3))
    mem.index()
    monkeypatch.setenv("MEMDOWN_CHUNKING_MAX_CHARS", "400")
    report = Memory.open(mem.root, embedder=FakeEmbedder(), config=load_config(mem.root)).index()
    assert report.rebuilt and "chunking" in report.rebuild_reason


def test_explicit_targets(mem: Memory):
    a, b = daily(mem.root, "2026-03-01"), daily(mem.root, "2026-03-02")
    a.write_text(fifty_sections("2026-03-01", 3))
    b.write_text(fifty_sections("2026-03-02", 3))
    mem.index()
    a.write_text(a.read_text() + "### 12:00\n- new in a\n")
    b.write_text(b.read_text() + "### 12:00\n- new in b\n")
    report = reopen(mem.root).index([a])
    assert report.files_indexed == 1 and report.embedded == 1
    b.unlink()
    report = reopen(mem.root).index([b])  # a deleted file named explicitly
    assert report.chunks_removed == 3 and reopen(mem.root).index().chunks_total == 4
    with pytest.raises(InputFileError):
        reopen(mem.root).index([mem.root.parent / "outside.md"])


def test_no_memory_root(tmp_path: Path):
    with pytest.raises(NotInitializedError):
        Memory.open(tmp_path / "nowhere", embedder=FakeEmbedder()).index()


def test_indexing_never_modifies_markdown(mem: Memory):
    for d in range(1, 4):
        daily(mem.root, f"2026-03-0{d}").write_text(fifty_sections(f"2026-03-0{d}", 5))
    (mem.root / "learnings.md").write_text("---\ntitle: l\n---\n# Learnings\n- always run tests\n")
    (mem.root / "notes").mkdir()
    (mem.root / "notes" / "crlf.md").write_bytes(b"# CRLF\r\n\r\nsome text\r\n")
    before = tree_digest(mem.root)
    mem.index()
    reopen(mem.root).index(rebuild=True)
    shutil.rmtree(paths.index_dir(mem.root) / "chunks.lance" / "_versions")
    m = reopen(mem.root)
    m.search("tests")
    assert tree_digest(mem.root) == before


# --- damage -----------------------------------------------------------------

@pytest.fixture
def built(mem: Memory) -> Memory:
    for d in range(1, 4):
        daily(mem.root, f"2026-03-0{d}").write_text(fifty_sections(f"2026-03-0{d}", 6))
    mem.index()
    return mem


def lance_dir(m: Memory) -> Path:
    return paths.index_dir(m.root) / "chunks.lance"


def damage_data(m: Memory) -> None:
    for p in (lance_dir(m) / "data").iterdir():
        p.unlink()


def damage_versions(m: Memory) -> None:
    shutil.rmtree(lance_dir(m) / "_versions")


def damage_meta(m: Memory) -> None:
    (paths.index_dir(m.root) / "meta.json").write_text("{not json")


def damage_schema(m: Memory) -> None:
    meta_path = paths.index_dir(m.root) / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["schema_version"] = 999
    meta_path.write_text(json.dumps(meta))


def damage_truncate(m: Memory) -> None:
    for p in (lance_dir(m) / "data").iterdir():
        p.write_bytes(p.read_bytes()[:64])


def damage_gone(m: Memory) -> None:
    shutil.rmtree(paths.index_dir(m.root))


@pytest.mark.parametrize("damage", [damage_data, damage_versions, damage_meta, damage_schema, damage_truncate,
                                    damage_gone])
def test_damaged_index_is_rebuilt_on_search(built: Memory, damage):
    before = tree_digest(built.root)
    damage(built)
    m = reopen(built.root)
    hits = m.search("widget3", mode="text", k=3)
    assert hits and "widget3" in hits[0].text
    assert m.table.count() == 18
    assert len(m.notices) == 1, m.notices  # one line, not a traceback or a chatter
    assert "\n" not in m.notices[0]
    assert tree_digest(built.root) == before
    assert reopen(built.root).index().embedded == 0


def test_damaged_index_is_rebuilt_by_index(built: Memory):
    damage_versions(built)
    report = reopen(built.root).index()
    assert report.rebuilt and "corrupt" in report.rebuild_reason
    assert report.chunks_total == 18 and report.embedded == 0


def test_rolled_back_table_is_detected(built: Memory):
    f = daily(built.root, "2026-03-01")
    f.write_text(f.read_text() + "### 13:00\n- the newest entry about kiwis\n")
    reopen(built.root).index()
    manifests = sorted(p for p in (lance_dir(built) / "_versions").iterdir() if p.suffix == ".manifest")
    # Lance names manifests so that the newest sorts first.
    newest = min(manifests, key=lambda p: p.name)
    newest.unlink()
    m = reopen(built.root)
    hits = m.search("kiwis", mode="text", k=1)
    assert hits and "kiwis" in hits[0].text
    assert m.notices and "rolled back" in m.notices[0]


# --- compaction -------------------------------------------------------------

def test_table_is_compacted_every_n_merges(mem: Memory, monkeypatch):
    monkeypatch.setenv("MEMDOWN_INDEX_OPTIMIZE_EVERY", "50")
    (mem.root / "notes").mkdir()
    (mem.root / "notes" / "seed.md").write_text("# seed\nstart\n")
    mem.index()
    m = Memory.open(mem.root, embedder=FakeEmbedder(), config=load_config(mem.root))
    for i in range(120):
        (mem.root / "notes" / f"n{i:03d}.md").write_text(f"# note {i}\n- single entry number {i}\n")
        assert m.index().files_indexed == 1
    stats = m.table.table.stats()
    fragments = stats["fragment_stats"]["num_fragments"]
    assert m.table.meta.merges_since_optimize == 20  # optimized at 50 and 100
    assert fragments <= 25, fragments  # without compaction: ~121
    assert m.table.count() == 121
    assert m.search("single entry number 77", mode="text", k=1)[0].source == "notes/n077.md"
