"""``memdown verify [--repair]`` against real damage to a real LanceDB index."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import run_memdown
from memdown.api import Memory
from memdown.services.upkeep.repair import repair
from memdown.services.upkeep.verify import verify


def day(n: int, *sections: str) -> str:
    body = "\n\n".join(f"## Part {i}\n\n{text}" for i, text in enumerate(sections))
    return f"# 2026-01-{n:02d}\n\n{body}\n"


@pytest.fixture
def built(memory_root: Path, fake_embedder) -> Memory:
    mem_dir = memory_root / "memory"
    mem_dir.mkdir(parents=True)
    for n in range(1, 7):
        (mem_dir / f"2026-01-{n:02d}.md").write_text(day(n, f"alpha caches {n}", f"beta queues {n}"))
    mem = Memory.open(memory_root, embedder=fake_embedder)
    mem.index()
    # A second commit touching one file, so there is a "newest manifest" worth losing.
    (mem_dir / "2026-01-06.md").write_text(day(6, "changed alpha", "gamma section", "delta section"))
    mem.index()
    return mem


def snapshot(mem: Memory) -> list[tuple[str, str, int, int]]:
    rows = mem.table.table.search().select(["id", "source", "start_line", "end_line"]).limit(None).to_list()
    return sorted((r["id"], r["source"], r["start_line"], r["end_line"]) for r in rows)


def fresh(root: Path, fake_embedder) -> Memory:
    return Memory.open(root, embedder=fake_embedder)


def markdown_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def lance_dir(root: Path) -> Path:
    return root / "index" / "chunks.lance"


def repaired_ok(root: Path, fake_embedder, expected_rows) -> None:
    before = markdown_bytes(root)
    mem = fresh(root, fake_embedder)
    report = verify(mem)
    assert not report.ok
    after = repair(mem, report)
    assert after.ok, after.problems
    assert after.repaired
    assert markdown_bytes(root) == before  # markdown is never touched
    check = fresh(root, fake_embedder)
    check.table.open()
    assert snapshot(check) == expected_rows
    assert verify(check).ok


def test_healthy_index_verifies(built: Memory, fake_embedder) -> None:
    report = verify(fresh(built.root, fake_embedder))
    assert report.ok and report.index_state == "ok" and report.problems == []
    assert report.rows == report.chunks_expected == 13
    assert report.markdown_files == 6


def test_verify_reports_counts_as_it_goes(built: Memory, fake_embedder) -> None:
    """`verify` on a big memory says how far it is: files read, then rows checked, each up to its total."""
    heard: list[tuple[str, int, int]] = []
    report = verify(fresh(built.root, fake_embedder), lambda stage, done, total: heard.append((stage, done, total)))
    assert report.ok, report.problems
    for stage, total in (("reading the markdown", report.markdown_files), ("checking every row", report.rows)):
        counts = [(done, of) for s, done, of in heard if s == stage]
        assert counts and all(of == total for _done, of in counts), (stage, counts)
        assert [done for done, _of in counts] == sorted(done for done, _of in counts)
        assert counts[0][0] == 0 and counts[-1][0] == total
    stages = [s for s, _d, _t in heard]
    assert stages.index("checking every row") > max(i for i, s in enumerate(stages) if s == "reading the markdown")


def test_deleted_data_file(built: Memory, fake_embedder) -> None:
    expected = snapshot(built)
    victim = sorted((lance_dir(built.root) / "data").iterdir())[0]
    victim.unlink()
    report = verify(fresh(built.root, fake_embedder))
    assert report.index_state == "corrupted" and report.rows is None
    assert any("unreadable" in p for p in report.corrupted)
    repaired_ok(built.root, fake_embedder, expected)


def test_truncated_data_file(built: Memory, fake_embedder) -> None:
    expected = snapshot(built)
    for data in (lance_dir(built.root) / "data").iterdir():
        with open(data, "r+b") as handle:
            handle.truncate(data.stat().st_size // 2)
    report = verify(fresh(built.root, fake_embedder))
    assert report.index_state == "corrupted"
    repaired_ok(built.root, fake_embedder, expected)


def _manifest_version(path: Path) -> int:
    number = int(path.stem)
    return (1 << 64) - 1 - number if number > (1 << 63) else number  # lance's "V2" names count down


def test_deleted_newest_manifest_is_caught_by_the_counts(built: Memory, fake_embedder) -> None:
    expected = snapshot(built)
    manifests = sorted((lance_dir(built.root) / "_versions").glob("*.manifest"), key=_manifest_version)
    manifests[-1].unlink()
    # LanceDB opens the previous version without a word…
    mem = fresh(built.root, fake_embedder)
    mem.table.open(verify_count=False)
    assert snapshot(mem) != expected
    # …but verify compares with the markdown.
    report = verify(fresh(built.root, fake_embedder))
    assert report.index_state == "inconsistent"
    assert report.outdated == ["memory/2026-01-06.md"]
    # The update deleted the file's 2 changed rows, then appended its 3 new ones: the lost
    # manifest is the append, leaving 10 rows.
    assert report.count_mismatch and report.rows == 10 and report.chunks_expected == 13
    repaired_ok(built.root, fake_embedder, expected)
    # The partial repair re-indexed one file, it did not rebuild.
    assert not any("rebuilt" in a for a in repair(fresh(built.root, fake_embedder)).repaired)


def test_deleted_index_folder(built: Memory, fake_embedder) -> None:
    expected = snapshot(built)
    shutil.rmtree(built.root / "index")
    report = verify(fresh(built.root, fake_embedder))
    assert report.index_state == "missing" and not report.ok
    repaired_ok(built.root, fake_embedder, expected)


def test_not_indexed_outdated_and_orphaned(built: Memory, fake_embedder) -> None:
    root = built.root
    (root / "memory" / "2026-01-07.md").write_text(day(7, "brand new"))  # not indexed
    (root / "memory" / "2026-01-02.md").write_text(day(2, "rewritten alpha"))  # outdated
    (root / "memory" / "2026-01-03.md").unlink()  # orphaned
    report = verify(fresh(root, fake_embedder))
    assert report.not_indexed == ["memory/2026-01-07.md"]
    assert report.outdated == ["memory/2026-01-02.md"]
    assert report.orphaned == ["memory/2026-01-03.md"] and report.orphaned_chunks == 2
    after = repair(fresh(root, fake_embedder), report)
    assert after.ok, after.problems
    assert any("orphaned" in a for a in after.repaired) and not any("rebuilt" in a for a in after.repaired)
    mem = fresh(root, fake_embedder)
    hits = mem.search("rewritten", mode="text")
    assert [h.source for h in hits] == ["memory/2026-01-02.md"]
    assert not mem.search("alpha caches 3", mode="text", source="memory/2026-01-03.md")


def test_model_mismatch_rebuilds(built: Memory, fake_embedder) -> None:
    class OtherModel(type(fake_embedder)):
        model_id = "fake/other-model"

    report = verify(Memory.open(built.root, embedder=OtherModel()))
    assert report.model_mismatch and report.index_state == "incompatible"
    assert report.model == {"configured": "fake/other-model", "index": "fake/hashing-64"}
    after = repair(Memory.open(built.root, embedder=OtherModel()), report)
    assert after.ok and any("rebuilt" in a for a in after.repaired)


def test_stale_sidecar_record(built: Memory, fake_embedder) -> None:
    files = built.root / "index" / "files.json"
    records = json.loads(files.read_text())
    records["memory/2026-01-04.md"]["sha256"] = "0" * 64
    files.write_text(json.dumps(records))
    report = verify(fresh(built.root, fake_embedder))
    assert report.outdated == ["memory/2026-01-04.md"] and not report.count_mismatch
    assert repair(fresh(built.root, fake_embedder), report).ok


@pytest.mark.integration
def test_cli_verify_and_repair(memory_root: Path) -> None:
    (memory_root / "memory").mkdir(parents=True)
    for n in range(1, 4):
        (memory_root / "memory" / f"2026-02-{n:02d}.md").write_text(day(n, f"note {n} about caching", "more"))
    assert run_memdown("index").returncode == 0
    ok = run_memdown("verify", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["ok"] is True
    for data in (lance_dir(memory_root) / "data").iterdir():
        data.unlink()
    bad = run_memdown("verify")
    assert bad.returncode == 5 and "corrupted" in bad.stdout and "--repair" in bad.stderr
    fixed = run_memdown("verify", "--repair", "--json")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    data = json.loads(fixed.stdout)
    assert data["ok"] is False and data["after"]["ok"] is True and data["repaired"]
    assert data["after"]["rows"] == data["after"]["chunks_expected"] > 0
    assert run_memdown("verify").returncode == 0
    hits = json.loads(run_memdown("search", "caching", "--json").stdout)
    assert hits and os.path.basename(hits[0]["source"]).startswith("2026-02")
