"""A fresh clone, end to end with the real packaged model, real LanceDB and the real detached filler:
`memdown index` returns with vectors pending, search finds entries by full text and says so, a filler
killed with SIGKILL mid-way is resumed by the next search, and once complete vector search finds them."""
from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from conftest import run_memdown, wait_for
from memdown import paths
from memdown.index.table import ChunkTable
from memdown.services.upkeep.text_first import filler_running, pending_vectors

ANIMALS = ["okapi", "walrus", "heron", "lynx", "otter", "tapir", "ibis", "marmot", "gecko", "bison"]


def _memory(root: Path, days: int = 20, sections: int = 8) -> None:
    (root / "memory").mkdir(parents=True)
    for d in range(1, days + 1):
        body = "".join(
            f"## Session {8 + s}:00\n\n- The {ANIMALS[(d + s) % len(ANIMALS)]} service on day {d} needed "
            f"retry number {s}; we kept the queue depth at {d * s} and wrote it down.\n\n"
            for s in range(sections))
        (root / "memory" / f"2026-03-{d:02d}.md").write_text(f"# 2026-03-{d:02d}\n\n{body}")
    # One old entry that only this test's query matches.
    with open(root / "memory" / "2026-03-01.md", "a") as handle:
        handle.write("## Session 19:00\n\n- The zeppelin hangar lease was renegotiated with the harbour board.\n")


def _table(root: Path) -> ChunkTable:
    table = ChunkTable(paths.index_dir(root))
    table.open()
    return table


def _filler_pid(root: Path) -> int:
    text = paths.lock_file(root, "vector-fill").read_text().strip()
    return int(text) if text.isdigit() else 0


def test_fresh_clone_text_first_then_vectors_in_the_background(memory_root: Path) -> None:
    _memory(memory_root)
    env = {"MEMDOWN_INDEX_DEFER_VECTORS_ABOVE": "5", "MEMDOWN_VECTOR_FILL_BATCH": "16",
           "MEMDOWN_WATCH_START_ON_QUERY": "0", "MEMDOWN_INDEX_ANN_MIN_ROWS": "0"}
    done = run_memdown("index", "--dir", str(memory_root), env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "vectors pending" in done.stderr
    total = _table(memory_root).count()
    assert total > 150 and 0 < pending_vectors(memory_root) <= total
    records = (paths.index_dir(memory_root) / "files.json").read_text()

    # The filler started by `index` commits a first batch; kill -9 it there.
    log = paths.logs_dir(memory_root) / "vector-fill.log"
    assert wait_for(lambda: log.exists() and " filled, " in log.read_text(), timeout=300), \
        log.read_text() if log.exists() else "no filler log"
    pid = _filler_pid(memory_root)
    assert pid
    os.kill(pid, signal.SIGKILL)
    assert wait_for(lambda: not filler_running(memory_root), timeout=30)
    left = pending_vectors(memory_root)
    assert 0 < left < total  # part done, nothing lost
    table = _table(memory_root)  # opens with the row-count and table-file checks
    assert table.count() == total and table.table.count_rows("vector IS NULL") == left

    # Search works now, by full text, says so, and resumes the filler.
    found = run_memdown("search", "zeppelin hangar lease", "--dir", str(memory_root), "--json", env=env, timeout=300)
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert any("zeppelin" in h["text"] for h in hits)  # its row has no vector yet: found by full text
    assert hits[0]["partial_vectors"]["total"] == total
    assert "chunks embedded, filling newest first" in found.stderr

    assert wait_for(lambda: pending_vectors(memory_root) == 0 and not filler_running(memory_root), timeout=600), \
        log.read_text()
    table = _table(memory_root)
    assert table.count() == total and table.table.count_rows("vector IS NULL") == 0
    assert (paths.index_dir(memory_root) / "files.json").read_text() == records
    vector = run_memdown("search", "zeppelin hangar lease", "--mode", "vector", "--dir", str(memory_root),
                         "--json", env=env, timeout=300)
    assert vector.returncode == 0, vector.stderr
    hits = json.loads(vector.stdout)
    assert hits and "zeppelin" in hits[0]["text"] and hits[0]["partial_vectors"] is None
    assert "filling" not in vector.stderr
    checked = run_memdown("verify", "--dir", str(memory_root), env=env, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
