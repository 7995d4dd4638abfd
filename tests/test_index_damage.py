"""Every kind of index and embedding-cache damage heals: search, verify, verify --repair,
index and the watch daemon each end with a correct index, say so in one clean
line, and never raise anything but memdown's typed errors (which the CLI prints
as one line). Real LanceDB; FakeEmbedder in-process, the packaged model through
the real CLI."""
from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import pytest

from conftest import run_memdown, wait_for
from index_damage import DAMAGE, SILENT, clean_lines, second_commit, write_corpus
from memdown import paths
from memdown.api import Memory
from memdown.live.client import ask_daemon
from memdown.daemon.server import Daemon
from memdown.services.upkeep.repair import repair
from memdown.services.upkeep.verify import verify

CASES = sorted(DAMAGE)


@pytest.fixture
def built(memory_root: Path, fake_embedder) -> Path:
    write_corpus(memory_root)
    Memory.open(memory_root, embedder=fake_embedder).index()
    second_commit(memory_root)  # a newest version worth losing
    Memory.open(memory_root, embedder=fake_embedder).index()
    assert verify(Memory.open(memory_root, embedder=fake_embedder)).ok
    return memory_root


def damage(root: Path, case: str) -> None:
    DAMAGE[case](root, paths.embedding_cache_file())


def rows(root: Path, fake_embedder) -> list[tuple[str, str, str]]:
    mem = Memory.open(root, embedder=fake_embedder)
    mem.table.open()
    got = mem.table.table.search().select(["id", "source", "text"]).limit(None).to_list()
    return sorted((r["id"], r["source"], r["text"]) for r in got)


def assert_healed(root: Path, fake_embedder, expected: list) -> None:
    report = verify(Memory.open(root, embedder=fake_embedder))
    assert report.ok, report.problems
    assert rows(root, fake_embedder) == expected
    cache = Memory.open(root, embedder=fake_embedder).embedder.cache
    assert cache is not None and cache.check() is None


def assert_clean(lines: list[str]) -> None:
    for line in lines:
        assert "\n" not in line and len(line) < 300, line
    assert not clean_lines("\n".join(lines)), lines
    assert not any("/" in line and ".lance" in line for line in lines), lines  # no internal paths


@pytest.mark.parametrize("case", CASES)
def test_search_heals(built: Path, fake_embedder, case: str) -> None:
    expected = rows(built, fake_embedder)
    damage(built, case)
    mem = Memory.open(built, embedder=fake_embedder)
    hits = mem.search("zebra3 redis cache", k=3)
    assert hits and "zebra3" in hits[0].text
    assert mem.notices, "a healed damage is reported"
    assert_clean(mem.notices)
    assert_healed(built, fake_embedder, expected)


@pytest.mark.parametrize("case", CASES)
def test_verify_reports_and_repair_heals(built: Path, fake_embedder, case: str) -> None:
    expected = rows(built, fake_embedder)
    markdown = {p: p.read_bytes() for p in built.rglob("*.md")}
    damage(built, case)
    report = verify(Memory.open(built, embedder=fake_embedder))
    assert not report.ok and report.problems
    assert_clean(report.problems)
    after = repair(Memory.open(built, embedder=fake_embedder), report)
    assert after.ok, after.problems
    assert after.repaired
    assert_clean(after.repaired)
    assert {p: p.read_bytes() for p in built.rglob("*.md")} == markdown  # markdown is only read
    assert_healed(built, fake_embedder, expected)


@pytest.mark.parametrize("case", CASES)
def test_index_heals(built: Path, fake_embedder, case: str) -> None:
    expected = rows(built, fake_embedder)
    damage(built, case)
    mem = Memory.open(built, embedder=fake_embedder)
    report = mem.index()
    notes = mem.notices + ([report.rebuild_reason] if report.rebuilt else [])
    assert notes, "the damage is noticed"
    assert_clean(notes)
    assert_healed(built, fake_embedder, expected)


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []
        self.warnings: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))
        if record.levelno >= logging.WARNING:
            self.warnings.append(record.getMessage())


@pytest.mark.parametrize("case", CASES)
def test_daemon_heals_without_spinning(built: Path, fake_embedder, case: str) -> None:
    log = logging.getLogger(f"memdown.test.damage.{case}")
    log.setLevel(logging.DEBUG)
    handler = _Lines()
    log.addHandler(handler)
    d = Daemon(built, embedder=fake_embedder, debounce_ms=100, idle_seconds=0, warmup_delay=0.0,
               reconcile_seconds=0.5, logger=log)
    d.start()
    runner = threading.Thread(target=d.run_until_stopped, daemon=True)
    runner.start()
    try:
        assert wait_for(lambda: d.warm, 20)
        with d.lock:  # damage between two queries, as a crash or a stray tool would
            damage(built, case)
        reply = ask_daemon(built, "search", {"query": "zebra3 redis cache", "k": 3})
        assert reply is not None
        if reply["ok"]:
            assert "zebra3" in reply["result"][0]["text"]
            late = ask_daemon(built, "search", {"query": "ibis6", "k": 1, "mode": "text"})
            assert late["ok"] and "ibis6" in late["result"][0]["text"], "stale rows served"
        # New memory arrives while the index or cache is damaged: nothing of it is lost.
        with open(built / "memory" / "2026-01-07.md", "a") as handle:
            handle.write("# 2026-01-07\n\n## Late\n\nThe okapi deploy needed a second try.\n")
        assert wait_for(lambda: verify(Memory.open(built, embedder=fake_embedder)).ok, 40), handler.lines[-5:]
        hits = ask_daemon(built, "search", {"query": "okapi deploy", "k": 1, "mode": "text"})
        assert hits["ok"] and "okapi" in hits["result"][0]["text"]
        passes = d.counters["index_passes"]
        wait_for(lambda: False, 2.0)  # four health checks later
        assert d.counters["index_passes"] - passes <= 1, "the daemon keeps re-indexing"
    finally:
        d.request_stop("test over")
        runner.join(5)
        d.shutdown()
        log.removeHandler(handler)
    assert not any("Traceback" in line or ".lance" in line for line in handler.lines), handler.lines
    assert handler.warnings, "the healing is logged"
    assert_clean(handler.warnings)
    assert Memory.open(built, embedder=fake_embedder).embedder.cache.check() is None


@pytest.mark.parametrize("case", sorted(SILENT))
def test_daemon_health_check_heals_silent_damage_untriggered(built: Path, fake_embedder, case: str) -> None:
    """No query, no file change: the periodic check alone notices damage LanceDB reads without error."""
    expected = rows(built, fake_embedder)
    d = Daemon(built, embedder=fake_embedder, debounce_ms=100, idle_seconds=0, warmup_delay=0.0,
               reconcile_seconds=0.3)
    d.start()
    runner = threading.Thread(target=d.run_until_stopped, daemon=True)
    runner.start()
    try:
        assert wait_for(lambda: d.warm, 20)
        with d.lock:
            damage(built, case)
        assert wait_for(lambda: d.counters["index_passes"] >= 1 and not d.writing, 30)
    finally:
        d.request_stop("test over")
        runner.join(5)
        d.shutdown()
    assert_healed(built, fake_embedder, expected)


def test_verify_catches_vectors_the_model_did_not_make(built: Path, fake_embedder) -> None:
    """Text intact, vectors wrong (written by a bug or another model): only the vector check sees it."""
    mem = Memory.open(built, embedder=fake_embedder)
    mem.table.open()
    mem.table.table.update(where="source = 'memory/2026-01-03.md'", values={"vector": [0.5] * 64})
    report = verify(Memory.open(built, embedder=fake_embedder))
    assert report.bad_vectors == 2 and report.index_state == "corrupted"
    after = repair(Memory.open(built, embedder=fake_embedder), report)
    assert after.ok and after.bad_vectors == 0


def test_rolled_back_version_with_the_same_row_count_is_caught(built: Path, fake_embedder) -> None:
    """An edit that keeps the chunk count: only the recorded table version tells old from new."""
    mem = Memory.open(built, embedder=fake_embedder)
    (built / "memory" / "2026-01-02.md").write_text(
        (built / "memory" / "2026-01-02.md").read_text().replace("yak2", "walrus2"))
    mem.index()
    expected = rows(built, fake_embedder)
    damage(built, "newest_manifest_deleted")
    hits = Memory.open(built, embedder=fake_embedder).search("walrus2", mode="text")
    assert hits and "walrus2" in hits[0].text  # the stale "yak2" row is never served
    assert rows(built, fake_embedder) == expected


def test_damaged_cache_vectors_count_as_misses(built: Path, fake_embedder) -> None:
    """Garbage rows inside a sound SQLite file are re-embedded, not served."""
    import sqlite3

    db = sqlite3.connect(paths.embedding_cache_file())
    db.execute("UPDATE vectors SET vector = X'0000803F0000803F'")  # two floats: a vector of the wrong length
    db.commit()
    db.close()
    mem = Memory.open(built, embedder=fake_embedder)
    before = fake_embedder.embedded_count
    report = mem.index(rebuild=True)
    assert report.embedded == report.chunks_total and fake_embedder.embedded_count > before
    assert verify(Memory.open(built, embedder=fake_embedder)).ok


@pytest.mark.integration
@pytest.mark.parametrize("case", ["cache_garbage", "index_path_is_a_file", "newest_manifest_deleted"])
def test_cli_heals_with_the_packaged_model(memory_root: Path, case: str) -> None:
    """The real CLI and model: one clean line on stderr, exit 0, the right hit, no traceback."""
    write_corpus(memory_root)
    assert run_memdown("index").returncode == 0
    second_commit(memory_root)
    assert run_memdown("index").returncode == 0
    damage(memory_root, case)
    found = run_memdown("search", "zebra3 redis cache", "--json")
    assert found.returncode == 0, found.stderr
    assert not clean_lines(found.stdout + found.stderr), found.stderr
    assert "zebra3" in json.loads(found.stdout)[0]["text"]
    assert found.stderr.strip() and all(line.startswith("memdown: ") for line in found.stderr.strip().splitlines())
    checked = run_memdown("verify")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert case not in SILENT or "rebuilt" in found.stderr or "corrupted" in found.stderr or "rolled back" in found.stderr
