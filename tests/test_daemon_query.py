"""The daemon's query side and index writer without a socket or threads:
requests are answered by the same service the in-process CLI calls, and the
writer indexes through the shared Memory under the shared lock."""
from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from memdown.api import Memory
from memdown.config import load_config
from memdown.daemon.index_writer import IndexWriter
from memdown.daemon.query import QueryHandler
from memdown.daemon.state import SharedIndex
from memdown.daemon.watcher import ChangeQueue
from memdown.services.recall.queries import run_query


@pytest.fixture
def shared(memory_root: Path, fake_embedder) -> SharedIndex:
    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-01-01.md").write_text("# 2026-01-01\n\n## Notes\n\nredis cache ttl is 300 seconds\n")
    (memory_root / "memory" / "2026-01-02.md").write_text("# 2026-01-02\n\n## Notes\n\npostgres vacuum tuned\n")
    mem = Memory(memory_root.resolve(), config=load_config(memory_root), embedder=fake_embedder)
    return SharedIndex(memory_root.resolve(), mem, logging.getLogger("memdown.test.query"))


def writer_for(shared: SharedIndex) -> IndexWriter:
    import threading

    return IndexWriter(shared, ChangeQueue(), threading.Event(), on_root_gone=lambda: None)


def request(op: str, params: dict | None = None, **extra) -> bytes:
    return json.dumps({"v": 1, "op": op, "params": params or {}, **extra}).encode()


def test_writer_indexes_and_queries_answer_as_in_process(shared: SharedIndex, memory_root: Path,
                                                         fake_embedder) -> None:
    writer = writer_for(shared)
    writer.apply(None)
    assert shared.counters["index_passes"] == 1 and writer.last_index["files_indexed"] == 2
    handler = QueryHandler(shared, status=lambda: {"alive": True})
    params = {"query": "redis cache", "k": 2, "mode": "hybrid"}
    reply = handler.handle_line(request("search", params))
    in_process = run_query(Memory.open(memory_root, embedder=fake_embedder), "search", params)
    assert reply["ok"] and reply["result"] == json.loads(json.dumps(in_process))
    assert reply["result"][0]["source"] == "memory/2026-01-01.md"
    assert handler.handle_line(request("stats"))["result"]["files"] == 2
    assert handler.handle_line(request("ping")) == {"ok": True, "result": {"alive": True}, "notices": []}
    assert shared.counters["requests"] == 2


def test_requests_refused_before_any_query(shared: SharedIndex) -> None:
    queried: list[str] = []
    handler = QueryHandler(shared, status=dict, before_query=lambda: queried.append("q"))
    assert handler.handle_line(b"\xff garbage")["exit_code"] == 2
    assert handler.handle_line(b"[1]")["error"] == "bad request: expected a JSON object"
    assert handler.handle_line(request("search", None, v=2))["fallback"] is True
    assert handler.handle_line(request("stats", root="/elsewhere"))["fallback"] is True
    assert handler.handle_line(request("drop_table"))["error"] == "unknown query 'drop_table'"
    bad_k = handler.handle_line(request("search", {"query": "x", "k": "many"}))
    assert bad_k == {"ok": False, "error": "-k must be an integer", "exit_code": 2, "notices": []}
    assert shared.counters["bad_requests"] == 3
    assert queried == ["q"]  # only the request that reached the query code


def test_unexpected_error_asks_the_client_to_answer_itself(shared: SharedIndex, monkeypatch) -> None:
    writer_for(shared).apply(None)
    monkeypatch.setattr(shared.mem, "stats", lambda: 1 / 0)
    reply = QueryHandler(shared, status=dict).handle_line(request("stats"))
    assert reply["fallback"] is True and reply["exit_code"] == 1
    assert shared.last_error.startswith("stats: ZeroDivisionError")
