"""The real thing: `memdown watch` as a detached subprocess with the packaged
model, real watchdog events and a real Unix socket."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import time
from pathlib import Path

import pytest

from conftest import run_memdown, wait_for
from memdown import paths
from memdown.live import lifecycle
from memdown.live.client import ask_daemon

pytestmark = pytest.mark.integration

CORPUS = {
    "memory/2026-03-02.md": """# 2026-03-02

## Session 09:10

Fixed the redis cache TTL bug: quotes expired after 900 seconds because REDIS_CACHE_TTL
was reused as the fallback in cache_set. Set an explicit ttl of 300 seconds.

## Session 14:00

Postgres vacuum settings tuned for the shipments table; autovacuum_vacuum_scale_factor 0.02.
""",
    "memory/2026-03-03.md": """# 2026-03-03

## Session 10:00

Deploy pipeline: the staging deploy failed on a missing migration; alembic upgrade head fixed it.

## Session 16:30

Decided to keep celery for background jobs instead of moving to RQ; retries with backoff.
""",
    "learnings.md": """# Learnings

## Caching

Always pass an explicit ttl to cache_set; the global default is shared.

## Testing

Integration tests need the docker compose stack; run `make test-int`.
""",
}


def write_corpus(root: Path) -> None:
    for rel, text in CORPUS.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)



def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not running
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return True


def memdown_processes(root: Path) -> list[int]:
    """Live processes whose command line names this memory root."""
    found = []
    needle = str(root).encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in cmdline and b"memdown" in cmdline and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def assert_gone(root: Path) -> None:
    assert wait_for(lambda: not memdown_processes(root), 10), memdown_processes(root)
    assert not lifecycle.lock_held(root)
    assert not paths.pid_file(root).exists()
    assert not paths.socket_path(root).exists()


def ping(root: Path) -> dict | None:
    return lifecycle.ping(root)


@pytest.fixture
def root(memory_root: Path) -> Path:
    assert run_memdown("init").returncode == 0
    write_corpus(memory_root)
    return memory_root


@pytest.fixture
def cleanup(root: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMDOWN_WATCH_ENABLED", "1")  # even if the suite turns auto-start off
    yield
    lifecycle.stop(root, timeout=5)
    for pid in memdown_processes(root):
        os.kill(pid, signal.SIGKILL)


QUERIES = [
    ["search", "redis cache ttl", "--json"],
    ["search", "why did staging deploy fail", "-k", "3"],
    ["search", "vacuum", "--mode", "text", "--kind", "summary", "--json"],
    ["search", "--concept", "cache ttl", "--concept", "redis", "--json"],
    ["stats", "--json"],
    ["search", "anything", "-k", "0"],  # an error: same message and exit code both ways
]


def run_all(root: Path, expand_id: str) -> list[tuple[int, str, str]]:
    out = []
    for argv in QUERIES + [["expand", expand_id, "--json"]]:
        proc = run_memdown(*argv)
        out.append((proc.returncode, proc.stdout, proc.stderr.strip()))
    return out


def test_live_daemon_end_to_end(root: Path, cleanup) -> None:
    assert run_memdown("index").returncode == 0
    hits = json.loads(run_memdown("search", "redis cache ttl", "--json").stdout)
    expand_id = hits[0]["id"][:12]
    cold = run_all(root, expand_id)  # no daemon: answered in-process

    started = run_memdown("watch")
    assert started.returncode == 0 and "started" in started.stdout, started.stderr
    again = run_memdown("watch")
    assert again.returncode == 0 and "already running" in again.stdout
    foreground = run_memdown("watch", "--foreground")
    assert foreground.returncode == 0 and "already running" in foreground.stderr
    status = json.loads(run_memdown("watch", "--status", "--json").stdout)
    assert status["running"] and status["responding"] and status["pid"] == lifecycle.running_pid(root)
    assert wait_for(lambda: (p := ping(root)) and p["warm"], 90), "daemon never warmed up"

    before = ping(root)["requests"]
    warm = run_all(root, expand_id)
    assert ping(root)["requests"] >= before + len(QUERIES)  # really answered by the daemon
    for (argv, c, w) in zip(QUERIES + [["expand"]], cold, warm):
        assert c == w, f"{argv}: in-process and daemon output differ"
    assert cold[-2][0] == 2 and "-k must be between" in cold[-2][2]

    # A file written while the daemon runs becomes searchable without any command
    # (bench/bench_live.py measures how fast: ~1.6 s; tests assert no timings).
    note = root / "memory" / "2026-03-04.md"
    note.write_text("# 2026-03-04\n\n## Session 11:00\n\nThe zanzibar quokka flag guards the new rate shopper.\n")

    def found() -> bool:
        reply = ask_daemon(root, "search", {"query": "zanzibar quokka", "mode": "text"})
        return bool(reply and reply["ok"] and reply["result"])

    assert wait_for(found, 30), "new file never became searchable"
    note.unlink()
    assert wait_for(lambda: not found(), 30)

    # Garbage on the socket: an error reply and a log line, and the daemon carries on.
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(str(paths.socket_path(root)))
        s.sendall(b"GET / HTTP/1.1\r\n\r\n")
        reply = json.loads(s.recv(65536))
    assert reply["ok"] is False
    # Another writer takes the same lock and waits its turn; it does not fail.
    assert run_memdown("index").returncode == 0
    assert run_memdown("search", "redis", "--json").returncode == 0
    assert "garbage on the socket" in lifecycle.log_file(root).read_text()

    stopped = run_memdown("watch", "--stop")
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    assert_gone(root)
    status = json.loads(run_memdown("watch", "--status", "--json").stdout)
    assert status["running"] is False and status["stale_files"] == []
    log = lifecycle.log_file(root).read_text()
    assert "signal SIGTERM" in log and "Traceback" not in log
    # After stopping, the in-process path answers again, exactly as the daemon did.
    after = run_memdown(*QUERIES[0])
    assert (after.returncode, after.stdout) == warm[0][:2]


def test_killed_daemon_is_detected_and_replaced(root: Path, cleanup) -> None:
    assert run_memdown("index").returncode == 0
    pid = lifecycle.start_detached(root)
    assert lifecycle.wait_until_ready(root, pid)
    os.kill(pid, signal.SIGKILL)
    assert wait_for(lambda: not alive(pid) and not lifecycle.lock_held(root), 10)
    lifecycle.stop(root)  # reaps our child; nothing to stop
    status = lifecycle.status(root)
    assert not status["running"]
    assert set(status["stale_files"]) == {str(paths.pid_file(root)), str(paths.socket_path(root))}
    assert ask_daemon(root, "stats", {}) is None  # a dead socket is refused at once
    fallback = run_memdown("stats", "--json")
    assert fallback.returncode == 0 and json.loads(fallback.stdout)["files"] == 3
    replaced = run_memdown("watch")
    assert replaced.returncode == 0 and "started" in replaced.stdout
    new_pid = lifecycle.running_pid(root)
    assert new_pid and new_pid != pid
    assert lifecycle.read_pid_file(root)["pid"] == new_pid
    assert "replacing a stale pid file" in lifecycle.log_file(root).read_text()
    assert lifecycle.stop(root) == new_pid
    assert_gone(root)


def test_idle_exit_in_a_deeply_nested_project(isolate_paths: Path, monkeypatch: pytest.MonkeyPatch, cleanup) -> None:
    deep = isolate_paths
    for n in range(6):
        deep = deep / (f"nested-{n}-" + "d" * 40)
    root = deep / ".memdown"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "2026-03-05.md").write_text("# 2026-03-05\n\n## Notes\n\nDeep project pangolin notes.\n")
    monkeypatch.setenv("MEMDOWN_DIR", str(root))
    assert len(str(root)) > 250
    proc = run_memdown("watch", "--idle-seconds", "6")
    assert proc.returncode == 0, proc.stderr
    pid = lifecycle.running_pid(root)
    assert pid is not None, proc.stdout

    def warm_hit():
        reply = ask_daemon(root, "search", {"query": "pangolin", "mode": "text"})
        return reply and reply["ok"] and reply["result"]

    # The daemon does not idle-exit while it warms up or writes (the old race: a warm-up slower
    # than the idle timeout on a loaded machine, and the daemon was gone before the first query).
    assert wait_for(warm_hit, 90), "deep project got no warm daemon"
    assert alive(pid)

    def done_working():  # ping is not activity: asking does not postpone the idle exit
        status = ping(root)
        return status is None or (status["warm"] and not status["writing"] and not status["pending_files"])

    assert wait_for(done_working, 120), ping(root)
    assert wait_for(lambda: not alive(pid), 120), "daemon did not exit when idle"  # 6 s after its last work
    assert_gone(root)
    assert "idle for 6s" in lifecycle.log_file(root).read_text()


def test_memory_root_deleted_under_the_daemon(root: Path, cleanup) -> None:
    assert run_memdown("index").returncode == 0
    pid = lifecycle.start_detached(root)
    assert lifecycle.wait_until_ready(root, pid)
    assert wait_for(lambda: (p := ping(root)) and p["warm"], 90)
    for _ in range(20):  # the daemon may log while we delete: retry until it is gone
        shutil.rmtree(root, ignore_errors=True)
        if not root.exists():
            break
        time.sleep(0.1)
    assert wait_for(lambda: not alive(pid) and not memdown_processes(root), 10), "daemon outlived its root"
    lifecycle.stop(root)  # reap
    assert not paths.socket_path(root).exists()


def test_hundred_start_stop_cycles(root: Path, cleanup) -> None:
    for rel in CORPUS:
        (root / rel).unlink()
    assert run_memdown("index").returncode == 0  # an empty, current index: starting costs no model
    pids = set()
    for n in range(100):
        if n % 25 == 0:  # now and then through the CLI, the rest through the functions the hooks use
            assert "started" in run_memdown("watch").stdout
            pid = lifecycle.running_pid(root)
            assert "stopped" in run_memdown("watch", "--stop").stdout
        else:
            assert lifecycle.ensure_daemon(root) == "started"
            assert wait_for(lambda: lifecycle.ping(root, timeout=0.25), 10)
            pid = lifecycle.running_pid(root)
            assert pid is not None
            assert lifecycle.ensure_daemon(root) == "running"
            assert lifecycle.stop(root) == pid
        pids.add(pid)
        assert not lifecycle.lock_held(root)
    assert len(pids) == 100
    assert_gone(root)
    assert not any(alive(pid) for pid in pids)
    log = lifecycle.log_file(root).read_text()
    assert "Traceback" not in log and log.count("stopped: signal SIGTERM") == 100


def test_racing_starts_leave_one_daemon(root: Path, cleanup) -> None:
    assert run_memdown("index").returncode == 0
    states = [lifecycle.ensure_daemon(root) for _ in range(3)]  # before the first one holds the lock
    assert states[0] == "started"
    assert wait_for(lambda: lifecycle.running_pid(root), 10)
    # The losers notice the lock and exit 0.
    assert wait_for(lambda: len(memdown_processes(root)) == 1, 10), memdown_processes(root)
    assert memdown_processes(root) == [lifecycle.running_pid(root)]
    lifecycle.stop(root)
    assert_gone(root)
