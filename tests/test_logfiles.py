"""Logs under ``logs/`` are rotated by size, keep a few generations, and stay whole with several writers.

Real processes write at once (as hooks, workers, the vector filler and the daemon do); no
timing is asserted, only what ends up in the files.
"""
from __future__ import annotations

import re
import stat
import subprocess
import sys
from pathlib import Path

from memdown import paths
from memdown.fsutil import append_line
from memdown.logfiles import BACKUPS

LINE = re.compile(r"^\S+ \S+ \d+ w(\d) INFO line (\d+) x{60}$")


def _generations(log: Path) -> list[Path]:
    return sorted(log.parent.glob(log.name + "*"))


def _writer(log: Path, name: str, lines: int, max_bytes: int, *, stdout_to_log: bool = False) -> subprocess.Popen:
    code = (
        "import logging, sys\n"
        "from pathlib import Path\n"
        "from memdown.logfiles import log_to_file\n"
        f"log_to_file(Path({str(log)!r}), max_bytes={max_bytes})\n"
        f"w = logging.getLogger({name!r})\n"
        f"for n in range({lines}):\n"
        "    w.info('line %d %s', n, 'x' * 60)\n"
        "    print(f'printed {n}', flush=True)\n"
    )
    out = open(log, "ab") if stdout_to_log else subprocess.DEVNULL  # how spawn_detached starts a child
    try:
        return subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=subprocess.PIPE)
    finally:
        if stdout_to_log:
            out.close()


def test_several_processes_rotate_one_log_without_growing_or_tearing_lines(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "worker.log"
    max_bytes = 20_000
    procs = [_writer(log, f"w{n}", 1500, max_bytes) for n in range(4)]
    for proc in procs:
        assert proc.wait(timeout=600) == 0, proc.stderr.read().decode()[-2000:]
    files = _generations(log)
    names = {p.name for p in files}
    assert names == {"worker.log", *(f"worker.log.{n}" for n in range(1, BACKUPS + 1))}, names
    for path in files:
        assert path.stat().st_size <= max_bytes + 200, (path.name, path.stat().st_size)  # one line over at most
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
        for line in path.read_text().splitlines():
            assert LINE.match(line) or "writes this log" in line, (path.name, line)  # no torn or interleaved line
    newest = [LINE.match(line) for line in log.read_text().splitlines()]
    assert any(m and m.group(2) == "1499" for m in newest) or any(
        m and m.group(2) == "1499" for m in (LINE.match(x) for x in (log.parent / "worker.log.1").read_text().splitlines()))


def test_stdout_started_on_the_log_follows_each_rotation(tmp_path: Path) -> None:
    """A detached child's stdout/stderr point at its log: after a rotation they write the new file."""
    log = tmp_path / "logs" / "vector-fill.log"
    log.parent.mkdir()
    proc = _writer(log, "w1", 400, 5_000, stdout_to_log=True)
    assert proc.wait(timeout=300) == 0, proc.stderr.read().decode()[-2000:]
    current = log.read_text()
    assert "printed 399" in current  # not in worker.log.1, where the descriptor pointed before the rotation
    assert log.stat().st_size <= 5_000 + 400
    assert len(_generations(log)) == BACKUPS + 1


def test_hook_log_appends_rotate_through_the_same_generations(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "hooks.log"
    log.parent.mkdir()
    for n in range(400):
        append_line(log, f"2026-11-22T10:00:00 Stop line {n} {'y' * 40}\n", rotate_at=2_000)
    names = {p.name for p in _generations(log)}
    assert names == {"hooks.log", "hooks.log.1", "hooks.log.2", "hooks.log.3"}, names
    assert log.read_text().splitlines()[-1].startswith("2026-11-22T10:00:00 Stop line 399 ")
    kept = "".join((log.parent / name).read_text() for name in ("hooks.log.3", "hooks.log.2", "hooks.log.1", "hooks.log"))
    numbers = [int(m) for m in re.findall(r"Stop line (\d+) ", kept)]
    assert numbers == list(range(numbers[0], 400))  # the newest lines, in order, none lost between generations
    assert all(p.stat().st_size <= 2_000 + 100 for p in _generations(log))


def test_the_worker_logs_to_its_rotated_file(memory_root: Path) -> None:
    (memory_root / "memory").mkdir(parents=True)
    log = paths.logs_dir(memory_root) / "worker.log"
    log.parent.mkdir()
    log.write_text("old line\n" * 120_000)  # over 1 MB, from workers before rotation existed
    proc = subprocess.run([sys.executable, "-m", "memdown", "worker", "--dir", str(memory_root)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (log.parent / "worker.log.1").read_text().startswith("old line\n")
    assert "writes this log" in log.read_text() and "old line" not in log.read_text()


def test_the_daemon_rotates_its_stderr_log_at_start(memory_root: Path) -> None:
    """A detached daemon's stderr is appended to watch.stderr.log: rotated when it starts, stderr following."""
    logs = paths.logs_dir(memory_root)
    logs.mkdir(parents=True)
    stderr_log = logs / "watch.stderr.log"
    stderr_log.write_text("old crash\n" * 500)  # 5,000 bytes, over the 2,000 below
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from memdown.daemon.logs import setup_logging, close_logging\n"
        f"setup_logging(Path({str(memory_root)!r}), max_bytes=2000)\n"
        "print('native warning after start', file=sys.stderr, flush=True)\n"
        "close_logging()\n"
    )
    with open(stderr_log, "ab") as err:  # how lifecycle.start_detached starts the daemon
        proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=err, timeout=120)
    assert proc.returncode == 0
    assert "native warning after start" in stderr_log.read_text() and "old crash" not in stderr_log.read_text()
    assert (logs / "watch.stderr.log.1").read_text().startswith("old crash\n")
