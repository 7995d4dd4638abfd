"""The daemon run in-process (FakeEmbedder), with real watchdog events, a real
Unix socket and a real LanceDB table: file changes of every kind end in a
correct index, and bad input never takes it down."""
from __future__ import annotations

import json
import os
import shutil
import stat
import threading
import time
from pathlib import Path

import pytest

from conftest import wait_for
from daemon_wire import raw_request

from memdown import paths
from memdown.fsutil import safe as fsutil_safe
from memdown.api import Memory
from memdown.live.client import ask_daemon
from memdown.live.protocol import MAX_REQUEST_BYTES
from memdown.daemon.server import Daemon
from memdown.daemon.transport import DaemonError, prepare_socket_dir
from memdown.services.upkeep.verify import verify



def entry(title: str, body: str) -> str:
    return f"# {title}\n\n## Notes\n\n{body}\n"


@pytest.fixture
def root(memory_root: Path) -> Path:
    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-01-01.md").write_text(entry("2026-01-01", "redis cache ttl is 300 seconds"))
    (memory_root / "memory" / "2026-01-02.md").write_text(entry("2026-01-02", "postgres vacuum settings tuned"))
    return memory_root


@pytest.fixture
def daemon(root: Path, fake_embedder):
    d = Daemon(root, embedder=fake_embedder, debounce_ms=150, idle_seconds=0, warmup_delay=0.0)
    d.start()
    runner = threading.Thread(target=d.run_until_stopped, daemon=True)
    runner.start()
    assert wait_for(lambda: d.warm, 90), "daemon never warmed up"
    yield d
    d.request_stop("test over")
    runner.join(5)
    d.shutdown()


def search(root: Path, query: str, **params) -> list[dict]:
    reply = ask_daemon(root, "search", {"query": query, "mode": "text", **params})
    assert reply is not None and reply["ok"], reply
    return reply["result"]


def sources(root: Path, query: str) -> set[str]:
    return {h["source"] for h in search(root, query, k=50)}


def settled(d: Daemon) -> bool:
    return not d.queue.pending() and not d.writing


def assert_consistent(root: Path, fake_embedder) -> None:
    report = verify(Memory.open(root, embedder=fake_embedder))
    assert report.ok, report.problems


def test_start_builds_the_index_and_answers(daemon: Daemon, root: Path) -> None:
    assert sources(root, "redis") == {"memory/2026-01-01.md"}
    reply = ask_daemon(root, "stats", {})
    assert reply["ok"] and reply["result"]["files"] == 2
    ping = ask_daemon(root, "ping", {})
    assert ping["ok"] and ping["result"]["pid"] == os.getpid() and ping["result"]["warm"]


def test_socket_folder_and_file_are_private(daemon: Daemon, root: Path) -> None:
    sock_path = paths.socket_path(root)
    assert stat.S_IMODE(os.stat(sock_path.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(sock_path).st_mode) == 0o600
    assert stat.S_ISSOCK(os.stat(sock_path).st_mode)


def test_edit_create_delete_rename(daemon: Daemon, root: Path, fake_embedder) -> None:
    mem_dir = root / "memory"
    (mem_dir / "new.md").write_text(entry("new", "the quokka protocol"))
    # No timing assert (bench/bench_live.py measures write → searchable); a generous bound only.
    assert wait_for(lambda: sources(root, "quokka") == {"memory/new.md"}, 30), "new file never became searchable"
    (mem_dir / "new.md").write_text(entry("new", "the wombat protocol"))
    assert wait_for(lambda: not sources(root, "quokka") and sources(root, "wombat"), 5)
    (mem_dir / "new.md").rename(mem_dir / "renamed.md")
    assert wait_for(lambda: sources(root, "wombat") == {"memory/renamed.md"}, 5)
    (mem_dir / "renamed.md").unlink()
    assert wait_for(lambda: not sources(root, "wombat"), 5)
    # A folder moved in from outside, then renamed: folder events mean a full check.
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "a.md").write_text(entry("a", "capybara notes"))
    shutil.move(str(outside), str(root / "topics"))
    assert wait_for(lambda: sources(root, "capybara") == {"topics/a.md"}, 5)
    (root / "topics").rename(root / "subjects")
    assert wait_for(lambda: sources(root, "capybara") == {"subjects/a.md"}, 5)
    shutil.rmtree(root / "subjects")
    assert wait_for(lambda: not sources(root, "capybara"), 5)
    assert wait_for(lambda: settled(daemon), 5)
    assert_consistent(root, fake_embedder)


def test_atomic_editor_saves_and_ignored_files(daemon: Daemon, root: Path, fake_embedder) -> None:
    target = root / "memory" / "2026-01-01.md"
    tmp = root / "memory" / ".2026-01-01.md.swp"
    tmp.write_text(entry("2026-01-01", "memcached eviction policy"))
    os.replace(tmp, target)  # how editors and atomic_write save
    assert wait_for(lambda: sources(root, "memcached") == {"memory/2026-01-01.md"}, 5)
    passes = daemon.counters["index_passes"]
    (root / "logs").mkdir(exist_ok=True)
    (root / "logs" / "x.md").write_text("# not memory\n")
    (root / "state").mkdir(exist_ok=True)
    (root / "state" / "y.md").write_text("# not memory\n")
    (root / "notes.txt").write_text("not markdown")
    time.sleep(0.6)
    assert daemon.counters["index_passes"] == passes
    assert_consistent(root, fake_embedder)


def test_git_checkout_storm_of_a_thousand_files(daemon: Daemon, root: Path, fake_embedder) -> None:
    bulk = root / "bulk"
    bulk.mkdir()
    for n in range(1000):
        (bulk / f"f{n:04d}.md").write_text(entry(f"f{n}", f"storm note number{n} armadillo"))
    assert wait_for(lambda: settled(daemon) and len(sources(root, "armadillo")) == 50, 60)
    reply = ask_daemon(root, "stats", {})
    assert reply["result"]["files"] == 1002
    # "Switch branch": rewrite half, delete the other half, in one burst.
    for n in range(1000):
        path = bulk / f"f{n:04d}.md"
        if n % 2:
            path.unlink()
        else:
            path.write_text(entry(f"f{n}", f"branch two note number{n} pangolin"))
    assert wait_for(lambda: settled(daemon) and ask_daemon(root, "stats", {})["result"]["files"] == 502, 60)
    assert not sources(root, "armadillo")
    assert_consistent(root, fake_embedder)


def test_permission_denied(daemon: Daemon, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = root / "memory" / "locked.md"
    secret.write_text(entry("locked", "okapi"))
    assert wait_for(lambda: sources(root, "okapi"), 5)
    real_open_file = fsutil_safe.open_file

    def open_file(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(path).name == "locked.md":
            raise PermissionError(13, "Permission denied")
        return real_open_file(path, *args, **kwargs)

    # chmod 0 does not stop root (CI may run as root), so refuse the open itself, where the one file
    # layer opens every file (its read_bytes/read_text/open_stream all go through open_file).
    monkeypatch.setattr(fsutil_safe, "open_file", open_file)
    if os.geteuid() != 0:
        secret.chmod(0)
    secret.write_text(entry("locked", "okapi and more")) if os.geteuid() == 0 else os.utime(secret)
    assert wait_for(lambda: not sources(root, "okapi"), 5)  # dropped and logged, no crash
    assert wait_for(lambda: settled(daemon), 5)
    monkeypatch.setattr(fsutil_safe, "open_file", real_open_file)
    secret.chmod(0o644)
    os.utime(secret, ns=(time.time_ns(), time.time_ns()))
    assert wait_for(lambda: sources(root, "okapi"), 5)
    assert sources(root, "redis") == {"memory/2026-01-01.md"}


def test_file_written_while_read(daemon: Daemon, root: Path, fake_embedder) -> None:
    growing = root / "memory" / "growing.md"
    with open(growing, "w") as handle:
        handle.write("# growing\n\n## Notes\n\n")
        for n in range(30):
            handle.write(f"line {n} about the narwhal migration\n")
            handle.flush()
            time.sleep(0.02)  # slower than the debounce: the daemon reads a half-written file
        handle.write("final word: axolotl\n")
    assert wait_for(lambda: sources(root, "axolotl") == {"memory/growing.md"}, 5)
    assert wait_for(lambda: settled(daemon), 5)
    assert_consistent(root, fake_embedder)


def test_garbage_oversized_and_bad_requests(daemon: Daemon, root: Path) -> None:
    sock_path = str(paths.socket_path(root))

    def raw(payload: bytes, *, shutdown: bool = False) -> dict | None:
        return raw_request(sock_path, payload, shutdown=shutdown)

    garbage = raw(b"\x00\xff not json at all\n")
    assert garbage["ok"] is False and garbage["exit_code"] == 2
    assert raw(b"[1, 2, 3]\n")["ok"] is False
    assert raw(b'{"v": 1, "op": "search", "params": "x"}\n')["ok"] is False
    assert raw(b'{"v": 1, "op": "drop_table", "params": {}}\n')["error"].startswith("unknown query")
    bad_k = raw(b'{"v": 1, "op": "search", "params": {"query": "x", "k": "many"}}\n')
    assert bad_k["ok"] is False and bad_k["exit_code"] == 2
    old = raw(b'{"v": 99, "op": "search", "params": {}}\n')
    assert old["fallback"] is True
    assert ask_daemon(root, "search", {"query": "x"}, timeout=1) is not None  # still fine
    other = raw(json.dumps({"v": 1, "op": "stats", "params": {}, "root": "/somewhere/else"}).encode() + b"\n")
    assert other["fallback"] is True
    big = raw(b"{" + b" " * (MAX_REQUEST_BYTES + 10))
    assert big is None or big["error"] == "request too large"
    assert raw(b"", shutdown=True) is None  # connect and close
    # A usage error from the query code comes back as the CLI would show it.
    reply = ask_daemon(root, "search", {"query": "x", "k": 0})
    assert reply["ok"] is False and reply["exit_code"] == 2 and "-k must be between" in reply["error"]
    reply = ask_daemon(root, "expand", {"id": "zz"})
    assert reply["ok"] is False and reply["exit_code"] == 2
    assert daemon.counters["bad_requests"] >= 4
    assert sources(root, "redis") == {"memory/2026-01-01.md"}


def test_concurrent_queries_during_writes(daemon: Daemon, root: Path, fake_embedder) -> None:
    errors: list[object] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            reply = ask_daemon(root, "search", {"query": "redis", "mode": "hybrid"}, timeout=2)
            if reply is None or not reply["ok"] or not reply["result"]:
                errors.append(reply)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        for n in range(40):
            (root / "memory" / f"w{n}.md").write_text(entry(f"w{n}", f"write {n} gerbil"))
            time.sleep(0.01)
        assert wait_for(lambda: len(sources(root, "gerbil")) == 40, 20)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert errors == []
    assert_consistent(root, fake_embedder)


def test_root_deleted_stops_the_daemon(root: Path, fake_embedder) -> None:
    d = Daemon(root, embedder=fake_embedder, debounce_ms=100, idle_seconds=0, warmup_delay=0.0)
    d.start()
    try:
        assert wait_for(lambda: d.warm and settled(d), 90)
        shutil.rmtree(root)
        reason = d.run_until_stopped()
        assert reason == "memory root deleted"
    finally:
        d.shutdown()
    assert not paths.socket_path(root).exists()


def test_idle_exit(root: Path, fake_embedder) -> None:
    d = Daemon(root, embedder=fake_embedder, idle_seconds=0.5, warmup_delay=30)
    d.start()
    try:
        assert d.run_until_stopped().startswith("idle")
    finally:
        d.shutdown()


def test_no_idle_exit_while_a_query_waits(root: Path, fake_embedder) -> None:
    d = Daemon(root, embedder=fake_embedder, idle_seconds=0.3, warmup_delay=30)
    d.start()
    replies: list[dict | None] = []
    try:
        with d.lock:  # the index writer holds the lock (a long write or a slow warm-up)
            asker = threading.Thread(target=lambda: replies.append(ask_daemon(root, "stats", {}, timeout=5)))
            asker.start()
            assert wait_for(d.queries.busy, 10)
            runner = threading.Thread(target=d.run_until_stopped, daemon=True)
            runner.start()
            runner.join(1.5)  # five idle periods
            assert runner.is_alive(), d.exit_reason
        asker.join(30)
        assert replies and replies[0] is not None and replies[0]["ok"], replies
        runner.join(30)
        assert d.exit_reason.startswith("idle")  # idle once nothing is asked
    finally:
        d.request_stop()
        d.shutdown()


class _SlowWarmUp:
    """Wraps the fake embedder: the warm-up's query embedding blocks until the test lets it go."""

    def __init__(self, inner) -> None:
        self.inner, self.model_id, self.dim = inner, inner.model_id, inner.dim
        self.entered, self.release = threading.Event(), threading.Event()

    def embed(self, texts):
        return self.inner.embed(texts)

    def embed_query(self, text: str):
        if text == "warm up":
            self.entered.set()
            assert self.release.wait(60), "the test never released the warm-up"
        return self.inner.embed_query(text)


def test_no_idle_exit_while_warming_up(root: Path, fake_embedder) -> None:
    """The race behind the flaky deep-project test: a warm-up slower than the idle timeout (a loaded
    machine loading the model) let the daemon exit before the first query could reach it. Idle time
    now counts from the end of the last work: queries, writes and the warm-up."""
    slow = _SlowWarmUp(fake_embedder)
    d = Daemon(root, embedder=slow, idle_seconds=0.3, warmup_delay=0.0)
    d.start()
    try:
        assert slow.entered.wait(60), "the warm-up never started"
        runner = threading.Thread(target=d.run_until_stopped, daemon=True)
        runner.start()
        runner.join(1.5)  # five idle periods while the warm-up works
        assert runner.is_alive(), d.exit_reason
        slow.release.set()
        assert wait_for(lambda: d.writer.warm, 60)
        runner.join(60)
        assert not runner.is_alive() and d.exit_reason.startswith("idle")
    finally:
        slow.release.set()
        d.request_stop()
        d.shutdown()


def test_deep_root_still_gets_a_short_socket(isolate_paths: Path, fake_embedder) -> None:
    deep = isolate_paths
    for n in range(8):
        deep = deep / (f"level{n}-" + "x" * 40)
    root = deep / ".memdown"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "a.md").write_text(entry("a", "deep quokka"))
    assert len(str(root)) > 300
    d = Daemon(root, embedder=fake_embedder, debounce_ms=100, idle_seconds=0, warmup_delay=0.0)
    d.start()
    try:
        assert len(os.fsencode(str(paths.socket_path(root)))) < 100
        assert wait_for(lambda: (r := ask_daemon(root, "search", {"query": "quokka", "mode": "text"})) and r["ok"]
                        and r["result"], 20)
    finally:
        d.request_stop()
        d.shutdown()


def test_stale_socket_replaced_and_foreign_folder_refused(root: Path, fake_embedder, tmp_path: Path) -> None:
    sock_path = paths.socket_path(root)
    sock_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    sock_path.write_text("left over")  # a file left by a crashed daemon
    d = Daemon(root, embedder=fake_embedder, idle_seconds=0, warmup_delay=30)
    d.start()
    try:
        assert stat.S_ISSOCK(os.stat(sock_path).st_mode)
        assert ask_daemon(root, "ping", {})["ok"]
    finally:
        d.request_stop()
        d.shutdown()
    # A world-readable folder of ours is tightened; someone else's is refused.
    loose = tmp_path / "rt" / "memdown-x"
    loose.mkdir(parents=True, mode=0o755)
    os.chmod(loose, 0o755)
    prepare_socket_dir(loose / "a.sock")
    assert stat.S_IMODE(os.stat(loose).st_mode) == 0o700
    if os.geteuid() == 0:
        os.chown(loose, 65534, 65534)
        with pytest.raises(DaemonError, match="owned by uid 65534"):
            prepare_socket_dir(loose / "a.sock")
    link = tmp_path / "rt" / "link"
    link.symlink_to(loose)
    with pytest.raises(DaemonError, match="not a folder"):
        prepare_socket_dir(link / "a.sock")


def test_damaged_index_is_rebuilt_by_the_daemon(daemon: Daemon, root: Path, fake_embedder) -> None:
    # Someone deletes the index folder while the daemon runs; the next query still answers.
    with daemon.lock:
        shutil.rmtree(root / "index")
    assert sources(root, "redis") == {"memory/2026-01-01.md"}
    assert wait_for(lambda: settled(daemon), 5)
    assert_consistent(root, fake_embedder)


def test_config_change_applies_without_restart(daemon: Daemon, root: Path) -> None:
    assert len(search(root, "notes")) == 2
    (root / "config.toml").write_text("[search]\nk = 1\n")
    assert len(search(root, "notes")) == 1  # as the in-process CLI would answer now
    # A committed project file that does not parse is ignored with a notice (committed configuration is
    # data, docs/trust.md), by the CLI and so by the daemon: the defaults answer again.
    (root / "config.toml").write_text("[search]\nk = oops\n")
    assert len(search(root, "notes")) == 2
    # The person's own global file, unreadable: the daemon keeps its last good settings and answers.
    global_file = paths.global_config_file()
    global_file.parent.mkdir(parents=True, exist_ok=True)
    global_file.write_text("[search]\nk = 1\n")
    assert len(search(root, "notes")) == 1
    global_file.write_text("[search]\nk = oops\n")
    assert len(search(root, "notes")) == 1
    assert ask_daemon(root, "ping", {})["ok"]
