"""The freshness check trusts the watch daemon only for what its watcher has seen and indexed.

A real `memdown watch` subprocess (packaged model, real watchdog/inotify), asked
through live/barrier.py right after each kind of change, with no sleep in
between: an in-place edit of the same size, a file replaced by rename, a new
file, a deleted file. Each must make the daemon answer "not clean" and the
check report a change; once the daemon has indexed it, the check is answered
without statting the markdown. Without a live daemon the check walks the files.
"""
from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from conftest import run_memdown, wait_for
from memdown.live import barrier, lifecycle
from memdown.services.upkeep import freshness
from memdown.services.upkeep.freshness import changed_sources

pytestmark = pytest.mark.integration

DEBOUNCE_MS = 5000  # long: a change stays queued while the test asks about it


@pytest.fixture
def root(memory_root: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEMDOWN_WATCH_ENABLED", "1")
    assert run_memdown("init").returncode == 0
    day = memory_root / "memory" / "2026-03-02.md"
    day.parent.mkdir(parents=True, exist_ok=True)
    day.write_text("# 2026-03-02\n\n## Session 09:10\n\nFixed the redis cache ttl bug in the billing worker.\n")
    assert run_memdown("index").returncode == 0
    yield memory_root
    lifecycle.stop(memory_root, timeout=5)


def clean(root: Path) -> bool:
    return barrier.watcher_says_clean(root, timeout=3)


def settled(root: Path) -> bool:
    """The daemon indexed everything it saw (waits out the debounce)."""
    return bool(wait_for(lambda: clean(root), 90, interval=0.5))


def no_walk(*_args, **_kw):
    raise AssertionError("the freshness check walked the markdown although the daemon vouched for it")


def test_daemon_vouches_only_for_what_it_has_indexed(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    day = root / "memory" / "2026-03-02.md"
    assert not clean(root) and not changed_sources(root)  # no daemon: the walk answers
    pid = lifecycle.start_detached(root, debounce_ms=DEBOUNCE_MS)
    assert lifecycle.wait_until_ready(root, pid)
    assert settled(root), "the daemon never vouched for an unchanged memory"
    with monkeypatch.context() as patched:
        patched.setattr(freshness, "memory_files", no_walk)
        assert changed_sources(root) is False

    text = day.read_text()
    before = os.stat(day)
    day.write_text(text.replace("redis", "REDIS"))  # edited in place: same size, new mtime
    assert os.stat(day).st_size == before.st_size
    assert not clean(root), "an in-place edit was vouched for before it was indexed"
    assert changed_sources(root)
    assert settled(root) and not changed_sources(root)

    temp = day.with_name(".2026-03-02.md.tmp")  # an editor's atomic save: write aside, rename over
    temp.write_text(text)
    os.replace(temp, day)
    assert not clean(root), "a file replaced by rename was vouched for before it was indexed"
    assert changed_sources(root)
    assert settled(root) and not changed_sources(root)

    new = root / "memory" / "2026-03-03.md"
    new.write_text("# 2026-03-03\n\n## Session 10:00\n\nThe staging deploy failed on a missing migration.\n")
    assert not clean(root), "a new file was vouched for before it was indexed"
    assert changed_sources(root)
    assert settled(root) and not changed_sources(root)

    new.unlink()
    assert not clean(root), "a deleted file was vouched for before its chunks were dropped"
    assert changed_sources(root)
    assert settled(root) and not changed_sources(root)
    assert list(barrier.folder(root).iterdir()) == []  # every question and answer cleaned up

    os.kill(pid, signal.SIGKILL)  # a dead daemon vouches for nothing: the walk finds the edit
    assert wait_for(lambda: not lifecycle.lock_held(root), 10)
    day.write_text(text.replace("billing", "BILLING"))
    assert not clean(root)
    assert changed_sources(root)


def test_auto_memory_notes_are_statted_even_when_the_daemon_vouches(memory_root: Path, fake_embedder,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The notes live outside the watched root: the daemon's word never covers them."""
    from memdown.api import Memory
    from memdown.store import automemory

    assert run_memdown("init").returncode == 0
    (memory_root / "memory" / "2026-03-02.md").write_text("# 2026-03-02\n\n## Session 09:10\n\n- Fixed the cache.\n")
    folder = automemory.memory_dir(memory_root)
    folder.mkdir(parents=True, exist_ok=True)
    note = folder / "use-pnpm.md"
    note.write_text("---\nname: use-pnpm\ndescription: package manager\nmetadata:\n  type: feedback\n---\n\nUse pnpm.\n")
    Memory.open(memory_root, embedder=fake_embedder).index()
    monkeypatch.setattr(freshness, "watcher_says_clean", lambda root: True)
    monkeypatch.setattr(freshness, "memory_files", no_walk)
    assert changed_sources(memory_root) is False
    note.write_text(note.read_text().replace("pnpm.", "PNPM."))  # same size, new mtime
    assert changed_sources(memory_root)
    note.unlink()
    assert changed_sources(memory_root)
