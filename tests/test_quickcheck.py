"""A no-op `index` answers from stat and JSON alone, and steps aside whenever there is work or doubt."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import REPO_ROOT, FakeEmbedder
from memdown import paths
from memdown.api import Memory
from memdown.services.upkeep.indexing import index_identity
from memdown.services.upkeep.quickcheck import report_if_current


def build(root: Path) -> Memory:
    mem = Memory.open(root, embedder=FakeEmbedder())
    mem.init()
    folder = paths.daily_dir(root)
    for n in range(3):
        (folder / f"2026-05-0{n + 1}.md").write_text(
            f"# 2026-05-0{n + 1}\n\n## Session 09:00\n\n### 10:00\n- worked on thing{n}\n- and on other{n}\n")
    mem.index()
    return mem


def quick(root: Path):
    mem = Memory.open(root, embedder=FakeEmbedder())
    return report_if_current(root, mem.embedder.model_id, index_identity(mem.embedder, mem.config))


def test_unchanged_memory_is_current_and_every_change_is_not(memory_root: Path):
    build(memory_root)
    report = quick(memory_root)
    assert report is not None and report.files_unchanged == 3 and report.chunks_total > 0
    day = paths.daily_dir(memory_root) / "2026-05-02.md"
    os.utime(day, ns=(5, 5))
    assert quick(memory_root) is None  # touched: the full pass decides by hash
    Memory.open(memory_root, embedder=FakeEmbedder()).index()
    assert quick(memory_root) is not None
    (paths.daily_dir(memory_root) / "2026-05-09.md").write_text("# 2026-05-09\n\n- new\n")
    assert quick(memory_root) is None  # a new file


def test_other_model_or_settings_are_not_current(memory_root: Path):
    build(memory_root)
    mem = Memory.open(memory_root, embedder=FakeEmbedder())
    assert report_if_current(memory_root, "fake/other", index_identity(mem.embedder, mem.config)) is None
    assert report_if_current(memory_root, mem.embedder.model_id, "other-identity") is None


def test_table_damage_or_rollback_is_not_current(memory_root: Path):
    build(memory_root)
    lance = paths.index_dir(memory_root) / "chunks.lance"
    manifests = sorted((lance / "_versions").glob("*.manifest"), key=lambda p: int(p.stem))
    newest = manifests[0]  # Lance's V2 names count down: the smallest name is the newest version
    saved = newest.read_bytes()
    newest.unlink()
    assert quick(memory_root) is None
    newest.write_bytes(saved)
    data = max((lance / "data").glob("*.lance"), key=lambda p: p.stat().st_size)
    st = data.stat()
    with open(data, "r+b") as handle:
        handle.seek(st.st_size // 2)
        handle.write(b"\xff")
    assert quick(memory_root) is None  # rewritten: mtime moved


def test_a_noop_index_imports_neither_lancedb_nor_the_model_nor_the_markdown_parser(memory_root: Path):
    build(memory_root)
    code = textwrap.dedent(f"""
        import sys, json
        from memdown.api import Memory
        report = Memory.open({str(memory_root)!r}).index()
        print("@@" + json.dumps({{"heavy": sorted(m for m in ("lancedb", "fastembed", "onnxruntime", "pyarrow",
                                                             "numpy", "markdown_it", "yaml", "frontmatter")
                                                   if m in sys.modules), "unchanged": report.files_unchanged}}))
    """)
    # build() used the fake model: point the real config at an index made by the packaged model's id.
    meta_path = paths.index_dir(memory_root) / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["model_id"] = Memory.open(memory_root).embedder.model_id
    meta_path.write_text(json.dumps(meta))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@")]
    assert line, proc.stderr
    assert json.loads(line[0][2:]) == {"heavy": [], "unchanged": 3}
