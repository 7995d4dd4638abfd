"""Pieces of the watch daemon that need no running daemon: event filtering,
debouncing, the stat diff, the lock/pid lifecycle, the log, the wire rules."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from memdown import paths
from memdown.live import lifecycle
from memdown.live.client import ask_daemon
from memdown.daemon.logs import close_logging, log_file, setup_logging
from memdown.daemon.watcher import STORM_EVENTS, ChangeQueue, classify, diff_targets


def test_classify_keeps_markdown_and_folders_only(tmp_path: Path) -> None:
    root = str(tmp_path)
    j = lambda *p: os.path.join(root, *p)  # noqa: E731
    assert classify(root, j("memory", "2026-01-01.md"), is_directory=False) == "file"
    assert classify(root, j("notes.md"), is_directory=False) == "file"
    assert classify(root, j("memory"), is_directory=True) == "dir"
    for ignored in (
        j("index", "chunks.lance", "data", "x.lance"),
        j("index", "files.json"),
        j("logs", "watch.log"),
        j("state", "x.md"),
        j("backups", "old.md"),
        j(".watch.lock"),
        j(".watch.pid"),
        j("memory", ".2026-01-01.md.abc.tmp"),
        j("memory", "2026-01-01.md.tmp"),
        j("memory", "x.md.swp"),
        j(".git", "x.md"),
        j("config.toml"),
        root,
        os.path.join(os.path.dirname(root), "elsewhere.md"),
    ):
        assert classify(root, ignored, is_directory=False) is None, ignored
    assert classify(root, j("index"), is_directory=True) is None
    assert classify(root, j(".hidden"), is_directory=True) is None


def test_queue_debounces_and_caps_the_delay() -> None:
    queue = ChangeQueue()
    assert queue.due(1.0, 5.0) is None
    queue.add(Path("/r/a.md"))
    due = queue.due(1.0, 5.0)
    assert due is not None and 0.9 < due <= 1.0
    queue.first_event -= 10  # a stream of events that never pauses still gets indexed
    assert queue.due(1.0, 5.0) == 0.0
    paths_, full, _ = queue.take()
    assert paths_ == [Path("/r/a.md")] and not full
    assert queue.due(1.0, 5.0) is None


def test_queue_turns_a_storm_into_a_full_pass() -> None:
    queue = ChangeQueue()
    for n in range(STORM_EVENTS + 1):
        queue.add(Path(f"/r/{n}.md"), reason="many files changed")
    _, full, reasons = queue.take()
    assert full and reasons == ["many files changed"]
    queue.add(None, full=True, reason="folder created")
    assert queue.take()[1]


def test_diff_targets_finds_new_changed_and_deleted(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "memory").mkdir(parents=True)
    (root / "index").mkdir()
    keep, change, new = (root / "memory" / n for n in ("keep.md", "change.md", "new.md"))
    for f in (keep, change):
        f.write_text("# x\n\ntext\n")
    records = {}
    for f in (keep, change):
        st = f.stat()
        records[f"memory/{f.name}"] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": "", "chunks": 1}
    records["memory/gone.md"] = {"size": 1, "mtime_ns": 1, "sha256": "", "chunks": 1}
    (root / "index" / "files.json").write_text(json.dumps(records))
    assert diff_targets(root) == [root / "memory" / "gone.md"]
    change.write_text("# x\n\nchanged text\n")
    new.write_text("# new\n")
    assert sorted(diff_targets(root)) == sorted([change, new, root / "memory" / "gone.md"])
    (root / "index" / "files.json").unlink()
    assert diff_targets(root) is None  # no index: everything


def test_lock_is_exclusive_and_dies_with_its_process(memory_root: Path) -> None:
    memory_root.mkdir(parents=True)
    assert not lifecycle.lock_held(memory_root)
    # Another process takes the lock, then is killed: the lock goes with it.
    code = (
        "import sys,time; from pathlib import Path; from memdown.live.lifecycle import DaemonLock;"
        "l=DaemonLock(Path(sys.argv[1])); assert l.acquire(); print('held', flush=True); time.sleep(60)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(memory_root)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        assert lifecycle.lock_held(memory_root)
        assert not lifecycle.DaemonLock(memory_root).acquire(timeout=0.2)
    finally:
        proc.kill()
        proc.wait()
    assert not lifecycle.lock_held(memory_root)
    mine = lifecycle.DaemonLock(memory_root)
    assert mine.acquire(timeout=0.2)
    assert lifecycle.lock_held(memory_root)
    mine.release()
    assert not lifecycle.lock_held(memory_root)


def test_pid_file_round_trip_and_stale_status(memory_root: Path) -> None:
    memory_root.mkdir(parents=True)
    assert lifecycle.read_pid_file(memory_root) is None
    lifecycle.write_pid_file(memory_root, socket=paths.socket_path(memory_root))
    info = lifecycle.read_pid_file(memory_root)
    assert info["pid"] == os.getpid()
    # Nobody holds the lock: the pid file is stale, whoever it names.
    assert lifecycle.running_pid(memory_root, wait=0) is None
    status = lifecycle.status(memory_root)
    assert not status["running"] and str(paths.pid_file(memory_root)) in status["stale_files"]
    lifecycle.remove_pid_file(memory_root, pid=os.getpid() + 1)  # names someone else: kept
    assert paths.pid_file(memory_root).exists()
    lifecycle.remove_pid_file(memory_root, pid=os.getpid())
    assert not paths.pid_file(memory_root).exists()
    paths.pid_file(memory_root).write_text("garbage")
    assert lifecycle.read_pid_file(memory_root) is None
    assert lifecycle.stop(memory_root) is None  # nothing to stop; nothing killed


def test_ensure_daemon_disabled_cases(memory_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert lifecycle.ensure_daemon(memory_root) == "disabled"  # no root yet
    memory_root.mkdir(parents=True)
    monkeypatch.setenv("MEMDOWN_WATCH_ENABLED", "false")
    assert lifecycle.ensure_daemon(memory_root) == "disabled"
    monkeypatch.setenv("MEMDOWN_WATCH_ENABLED", "maybe")  # unreadable config: never start anything
    assert lifecycle.ensure_daemon(memory_root) == "disabled"


def test_ensure_daemon_is_stdlib_only() -> None:
    code = (
        "import sys; import memdown.live.lifecycle, memdown.live.client;"
        "bad=[m for m in ('lancedb','fastembed','numpy','pyarrow','click','watchdog','memdown.api') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_stale_socket_file_means_no_daemon(memory_root: Path) -> None:
    memory_root.mkdir(parents=True)
    sock_path = paths.socket_path(memory_root)
    sock_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(sock_path))
    dead.close()  # the file stays, nobody listens (a crashed daemon)
    assert ask_daemon(memory_root, "stats", {}) is None  # refused at once: nobody listens


def test_log_rotates(memory_root: Path) -> None:
    memory_root.mkdir(parents=True)
    log = setup_logging(memory_root, max_bytes=2000, backups=2)
    try:
        for n in range(200):
            log.info("line %d %s", n, "x" * 40)
    finally:
        close_logging()
    logs = sorted(p.name for p in log_file(memory_root).parent.iterdir())
    assert {"watch.log", "watch.log.1", "watch.log.2"} <= set(logs)
    assert "watch.log.3" not in logs
    assert (log_file(memory_root).parent / ".gitignore").read_text() == "*\n"
    assert log_file(memory_root).stat().st_size <= 2000
