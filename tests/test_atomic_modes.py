"""``fsutil.atomic_write_*`` file modes: a replaced file keeps its mode, a new one follows the umask,
an explicit mode (0600 for what may hold secrets) wins, and the data is never wider open than that."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from memdown import fsutil


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask():
    """Set the process umask for one test, restored after."""
    saved = os.umask(0o022)
    os.umask(saved)

    def set_to(value: int) -> None:
        os.umask(value)

    yield set_to
    os.umask(saved)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_follows_the_umask(tmp_path: Path, umask, mask: int, expected: int) -> None:
    umask(mask)
    target = tmp_path / "notes.md"
    fsutil.atomic_write_text(target, "x\n")
    assert _mode(target) == expected


@pytest.mark.parametrize("existing", [0o600, 0o640, 0o664, 0o755])
def test_a_replaced_file_keeps_its_mode(tmp_path: Path, umask, existing: int) -> None:
    umask(0o022)
    target = tmp_path / "2026-11-22.md"
    target.write_text("old\n")
    target.chmod(existing)
    fsutil.atomic_write_text(target, "new\n")
    assert _mode(target) == existing and target.read_text() == "new\n"


def test_an_explicit_mode_wins_and_the_temp_file_is_never_wider(tmp_path: Path, umask, monkeypatch) -> None:
    umask(0o000)  # the widest umask: only the explicit mode keeps a secret private
    target = tmp_path / "archive.jsonl.gz"
    seen: list[int] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:  # the moment the data is on disk, before the rename
        if stat.S_ISREG(os.fstat(fd).st_mode):
            seen.append(stat.S_IMODE(os.fstat(fd).st_mode))
        real_fsync(fd)

    monkeypatch.setattr(fsutil.os, "fsync", spy)
    fsutil.atomic_write_bytes(target, b"secret", mode=0o600)
    assert _mode(target) == 0o600 and seen == [0o600]
    target.chmod(0o644)
    fsutil.atomic_write_bytes(target, b"secret 2", mode=0o600)  # explicit beats "keep the old mode"
    assert _mode(target) == 0o600


def test_memdown_processes_create_private_files(memory_root: Path) -> None:
    """The CLI runs with a private umask (paths.private_umask), so a new daily file is not world-readable."""
    code = ("import os; os.umask(0o022)\n"
            "import sys; sys.argv = ['memdown', 'init']\n"
            "from memdown.entry import main; main()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    made = [p for p in memory_root.rglob("*") if p.is_file() and ".lock" not in p.name]
    assert made and all(_mode(p) & 0o077 == 0 for p in made), {str(p): oct(_mode(p)) for p in made}
