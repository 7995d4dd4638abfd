"""Index snapshots: export, verified import, only the difference embedded after, refusals leave the index alone."""
from __future__ import annotations

import hashlib
import io
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from conftest import FakeEmbedder, run_memdown
from memdown import paths
from memdown.api import Memory
from memdown.errors import SnapshotError, SnapshotMismatchError
from memdown.services.upkeep.indexing import index_identity
from memdown.services.upkeep.quickcheck import report_if_current


class OtherModel(FakeEmbedder):
    model_id = "fake/other-model"


def day(name: str, n: int, topic: str) -> str:
    return f"# {name}\n\n## Session 09:00\n\n" + "".join(
        f"### 10:{i:02d}\n<!-- session:s-{name} turn:t{i:02d} -->\n- {topic} item{i} in module{i % 5}\n"
        f"- decided something about {topic}{i}\n\n"
        for i in range(n)
    )


def write_days(root: Path) -> None:
    folder = paths.daily_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "2026-03-01.md").write_text(day("2026-03-01", 12, "redis"))
    (folder / "2026-03-02.md").write_text(day("2026-03-02", 12, "postgres"))


def folder_digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def team(tmp_path: Path, memory_root: Path):
    """CI's memory (indexed, exported) and a teammate's clone of the same markdown."""
    ci = Memory.open(memory_root, embedder=FakeEmbedder())
    ci.init()
    write_days(memory_root)
    ci.index()
    snap = tmp_path / "out" / "team.snapshot"
    info = ci.export_snapshot(snap)
    clone_root = tmp_path / "clone" / ".memdown"
    Memory.open(clone_root, embedder=FakeEmbedder()).init()
    for md in paths.daily_dir(memory_root).glob("*.md"):
        shutil.copy(md, paths.daily_dir(clone_root) / md.name)  # new mtimes, same content
    return ci, snap, info, clone_root


def test_import_then_index_embeds_nothing_and_answers_like_the_source(team):
    ci, snap, info, clone_root = team
    assert info.rows == ci.table.count() and info.files == 2 and snap.is_file()
    counting = FakeEmbedder()
    clone = Memory.open(clone_root, embedder=counting)
    imported = clone.import_snapshot(snap)
    assert imported.rows == info.rows and not imported.replaced
    # the clone's files are byte-equal to the snapshot's: the next index is a no-op by stat alone
    assert report_if_current(clone_root, counting.model_id, index_identity(clone.embedder, clone.config)) is not None
    report = clone.index()
    assert not report.rebuilt
    assert counting.embedded_count == 0, counting.calls
    assert report.chunks_total == info.rows
    want = [h.id for h in ci.search("postgres module3", k=5, refresh=False)]
    assert want and [h.id for h in clone.search("postgres module3", k=5)] == want


def test_after_import_only_changed_and_local_files_are_embedded(team):
    _ci, snap, _info, clone_root = team
    folder = paths.daily_dir(clone_root)
    edited = folder / "2026-03-02.md"
    edited.write_text(edited.read_text() + "### 11:59\n- a brand new local note about kafka\n")
    (folder / "2026-03-03.md").write_text(day("2026-03-03", 3, "kafka"))
    counting = FakeEmbedder()
    clone = Memory.open(clone_root, embedder=counting)
    clone.import_snapshot(snap)
    report = clone.index()
    embedded = [t for call in counting.calls for t in call]
    assert report.files_indexed == 2 and report.files_unchanged == 1
    assert 0 < len(embedded) < report.chunks_total
    assert all("redis" not in t for t in embedded)  # the untouched file kept the snapshot's vectors
    assert any("kafka" in h.text for h in clone.search("kafka", k=3))


def test_a_different_model_is_refused_and_the_index_is_untouched(team):
    _ci, snap, _info, clone_root = team
    local = Memory.open(clone_root, embedder=OtherModel())
    local.index()
    before = folder_digest(paths.index_dir(clone_root))
    with pytest.raises(SnapshotMismatchError) as caught:
        Memory.open(clone_root, embedder=OtherModel()).import_snapshot(snap)
    assert caught.value.exit_code == 10 and "fake/hashing-64" in str(caught.value)
    assert folder_digest(paths.index_dir(clone_root)) == before


def _rewrite(snap: Path, out: Path, change) -> None:
    """Copy the snapshot tar member by member, letting ``change(name, data)`` alter a member's bytes."""
    with tarfile.open(snap) as src, tarfile.open(out, "w") as dst:
        for member in src.getmembers():
            data = src.extractfile(member).read() if member.isfile() else None
            if data is not None:
                data = change(member.name, data)
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data) if data is not None else None)


def _flip_data_byte(name: str, data: bytes) -> bytes:
    if name.endswith(".lance") and "/data/" in name:
        return data[:100] + bytes([data[100] ^ 0xFF]) + data[101:]
    return data


def _rot_a_vector(name: str, data: bytes) -> bytes:
    """Bit rot inside a stored vector (found by its float32 bytes): LanceDB reads it back without error."""
    if name.endswith(".lance") and "/data/" in name:
        from array import array

        for word in ("redis", "postgres"):
            needle = array("f", FakeEmbedder().embed_query(f"{word} item3 in module3\n- decided something about {word}3")).tobytes()[:16]
            at = data.find(needle)
            if at >= 0:
                break
        at = at if at >= 0 else len(data) // 2
        return data[:at] + array("f", [7.5, -3.25]).tobytes() + data[at + 8:]
    return data


def _other_manifest_model(name: str, data: bytes) -> bytes:
    if name == "snapshot.json":
        manifest = json.loads(data)
        manifest["rows"] += 1
        return json.dumps(manifest).encode()
    return data


@pytest.mark.parametrize("damage", ["flipped byte", "rotted vector", "truncated", "not a tar", "row count lie", "path escape"])
def test_a_corrupt_snapshot_is_rejected_without_touching_the_index(team, tmp_path, damage):
    _ci, snap, _info, clone_root = team
    clone = Memory.open(clone_root, embedder=FakeEmbedder())
    clone.index()
    before = folder_digest(paths.index_dir(clone_root))
    bad = tmp_path / "bad.snapshot"
    if damage == "flipped byte":
        _rewrite(snap, bad, _flip_data_byte)
    elif damage == "rotted vector":
        _rewrite(snap, bad, _rot_a_vector)
    elif damage == "truncated":
        bad.write_bytes(snap.read_bytes()[: snap.stat().st_size // 2])
    elif damage == "not a tar":
        bad.write_text("hello")
    elif damage == "row count lie":
        _rewrite(snap, bad, _other_manifest_model)
    else:
        shutil.copy(snap, bad)
        with tarfile.open(bad, "a") as tar:
            payload = b"owned"
            member = tarfile.TarInfo("index/../../escaped.txt")
            member.size = len(payload)
            tar.addfile(member, io.BytesIO(payload))
    with pytest.raises(SnapshotError):
        Memory.open(clone_root, embedder=FakeEmbedder()).import_snapshot(bad)
    assert folder_digest(paths.index_dir(clone_root)) == before
    assert not (clone_root.parent / "escaped.txt").exists() and not (tmp_path / "escaped.txt").exists()
    assert not [p for p in clone_root.iterdir() if p.name.startswith((".import-", ".index.replaced"))]
    assert Memory.open(clone_root, embedder=FakeEmbedder()).search("redis", k=3)


def test_cli_refuses_a_mismatched_snapshot_in_one_line(team, tmp_path):
    _ci, snap, _info, clone_root = team  # embedded by fake/hashing-64; the CLI uses the packaged model
    result = run_memdown("index", "--import", str(snap), "--dir", str(clone_root))
    assert result.returncode == 10, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "fake/hashing-64" in lines[0] and "Traceback" not in result.stderr
    assert not paths.index_dir(clone_root).exists()

    junk = tmp_path / "junk.snapshot"
    junk.write_bytes(b"\x00" * 1000)
    result = run_memdown("index", "--import", str(junk), "--dir", str(clone_root))
    assert result.returncode == 7 and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_cli_import_rejects_other_options(team):
    _ci, snap, _info, clone_root = team
    result = run_memdown("index", "--import", str(snap), "--rebuild", "--dir", str(clone_root))
    assert result.returncode == 2 and "--import" in result.stderr
