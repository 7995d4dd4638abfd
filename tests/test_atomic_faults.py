"""``fsutil.atomic_write_*`` under injected faults: readers see the old file or the new one, never a mix.

Faults land at known steps (an exception or ``os._exit`` at each fsync,
chmod and rename, a SIGXFSZ kill in the middle of the data write), so each
case is tested every run instead of hoping a timed kill lands mid-write.
"""
from __future__ import annotations

import errno
import io
import os
import signal
from pathlib import Path

import pytest

from faults import count_calls, files_holding, kill_points, run_killed, run_size_limited
from memdown import fsutil

OLD = "old line\n" * 4000
NEW = "new line, longer than the old one\n" * 6000

SETUP = "from pathlib import Path\nfrom memdown.fsutil import atomic_write_text\n"
WRITE = "atomic_write_text(Path(ARGS['path']), ARGS['text'])\n"


@pytest.fixture
def target(tmp_path: Path) -> Path:
    folder = tmp_path / "folder"
    folder.mkdir()
    path = folder / "notes.md"
    path.write_text(OLD)
    return path


def _disk_full(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, "No space left on device (injected)")


@pytest.mark.parametrize("step", ["write", "fsync", "chmod", "replace"])
def test_a_failing_step_leaves_the_old_file_and_no_temp(target: Path, monkeypatch: pytest.MonkeyPatch, step: str):
    if step == "write":
        real_fdopen = os.fdopen

        class HalfWriter(io.FileIO):
            def write(self, data):  # the disk fills up half way through the data
                super().write(bytes(data)[: len(data) // 2])
                _disk_full()

        def fdopen(fd, *args, **kwargs):
            return HalfWriter(fd, "wb") if "b" in (args[0] if args else kwargs.get("mode", "r")) \
                else real_fdopen(fd, *args, **kwargs)

        monkeypatch.setattr(os, "fdopen", fdopen)
    else:
        monkeypatch.setattr(os, step, _disk_full)
    with pytest.raises(OSError) as info:
        fsutil.atomic_write_text(target, NEW)
    assert info.value.errno == errno.ENOSPC
    monkeypatch.undo()
    assert target.read_text() == OLD
    assert sorted(p.name for p in target.parent.iterdir()) == ["notes.md"]  # the temp file was removed


def test_kill_at_every_step_leaves_old_or_new(target: Path):
    args = {"path": str(target), "text": NEW}
    counts = count_calls(SETUP, WRITE, args)
    assert counts.get("fsync", 0) >= 1 and counts.get("replace", 0) + counts.get("rename", 0) >= 1, counts
    seen = set()
    for func, nth, when in kill_points(counts):
        target.write_text(OLD)
        run_killed(SETUP, WRITE, args, func, nth, when)
        content = target.read_text()
        assert content in (OLD, NEW), (func, nth, when, len(content))
        seen.add(content == NEW)
        for leftover in target.parent.glob(".*.tmp"):
            leftover.unlink()
    assert seen == {False, True}  # the kill points fall on both sides of the rename


def test_kill_in_the_middle_of_the_data_write_leaves_the_old_file(target: Path):
    size = len(NEW.encode())
    for limit in (1, 4096, size // 2, size - 1):
        target.write_text(OLD)
        code = run_size_limited(SETUP, WRITE, {"path": str(target), "text": NEW}, limit)
        assert code == -signal.SIGXFSZ, (limit, code)
        assert target.read_text() == OLD, limit


def test_a_reader_holding_the_old_file_keeps_reading_the_old_bytes(target: Path):
    """The new content arrives as a new inode renamed into place, never written over the old one."""
    with open(target, "rb") as reader:
        fsutil.atomic_write_text(target, NEW)
        assert reader.read() == OLD.encode()
    assert target.read_text() == NEW


def test_data_is_fsynced_before_the_rename_and_the_folder_after(target: Path, monkeypatch: pytest.MonkeyPatch):
    """Durability on power loss: nothing can observe it in a test, so check the protocol itself."""
    events: list[tuple[str, str]] = []
    real_fsync, real_replace, real_rename = os.fsync, os.replace, os.rename

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd if isinstance(fd, int) else fd.fileno()}")))
        return real_fsync(fd)

    def moved(real):
        def move(src, dst, *a, **k):
            events.append(("rename", f"{os.fspath(src)} -> {os.fspath(dst)}"))
            return real(src, dst, *a, **k)
        return move

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", moved(real_replace))
    monkeypatch.setattr(os, "rename", moved(real_rename))
    fsutil.atomic_write_text(target, NEW)
    monkeypatch.undo()
    # names relative to the folder's fd (the file layer never walks a path twice)
    renames = [n for n, (kind, what) in enumerate(events) if kind == "rename" and what.endswith(f"-> {target.name}")]
    assert len(renames) == 1, events
    rename = renames[0]
    temp = str(target.parent / events[rename][1].split(" -> ")[0])
    assert ("fsync", temp) in events[:rename], events  # the data reached the disk before it became visible
    assert ("fsync", str(target.parent)) in events[rename + 1:], events  # and the rename itself is durable
    assert target.read_text() == NEW and files_holding(target.parent, NEW.encode()) == [target]
