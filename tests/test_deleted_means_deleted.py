"""Deleted means deleted (issue 25, item 7): a deletion memdown respects leaves no copy of the entry's
text in ``state/written/``, and a commit that removes an entry (a ``git revert``) is a person's
deletion, however soon after the write, never written back."""
from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path

from editor_race import git
from memdown.store import daily, written
from memdown.store.layout import init_layout


def _entry(turn: str, words: str = "") -> daily.Entry:
    return daily.Entry(datetime(2026, 11, 20, 10, 0), "s1", turn, "~/t.jsonl", [f"did {turn} {words}".strip()])


def _ledger_text(root: Path) -> str:
    return "".join(p.read_text() for p in (root / "state" / "written").glob("*"))


def _repo_with_a_committed_entry(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(project, memory root, day file): a git repository whose day file holds t0, committed."""
    project = tmp_path / "repo"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    root = project / ".memdown"
    init_layout(root)  # state/ (the ledger) is machine-local, never committed
    path = daily.append_entry(root, _entry("t0"))
    git(project, "add", "-A")
    git(project, "commit", "-qm", "t0")
    return project, root, path


def test_a_revert_seconds_after_the_write_is_a_persons_deletion(tmp_path: Path) -> None:
    project, root, path = _repo_with_a_committed_entry(tmp_path)
    daily.append_entry(root, _entry("t1", "zebra-quartz-417"))
    git(project, "add", "-A")
    git(project, "commit", "-qm", "t1")
    git(project, "revert", "--no-edit", "HEAD")  # well inside HEAL_SECONDS of the write
    assert "turn:t1 " not in path.read_text()
    assert daily.heal(root, path) == []
    daily.append_entry(root, _entry("t2"))  # the next turn's Stop
    assert "turn:t1 " not in path.read_text() and "turn:t2 " in path.read_text()
    assert "zebra-quartz-417" not in _ledger_text(root)
    assert "memory/2026-11-20.md: turn t1 (session s1)" in daily.vanished(root)[1]


def test_an_uncommitted_entry_git_dropped_still_comes_back(tmp_path: Path) -> None:
    project, root, path = _repo_with_a_committed_entry(tmp_path)
    daily.append_entry(root, _entry("t2", "kept-by-healing"))
    git(project, "checkout", "--", ".")  # git drops the uncommitted t2: a race, not a decision
    assert daily.heal(root, path) == ["t2"]
    assert "kept-by-healing" in path.read_text() and "kept-by-healing" in _ledger_text(root)


def test_a_deletion_by_hand_drops_the_text_from_the_ledger(memory_root: Path, monkeypatch) -> None:
    path = daily.append_entry(memory_root, _entry("t1", "private-walrus-9"))
    assert "private-walrus-9" in _ledger_text(memory_root)  # kept while healing may need it
    monkeypatch.setattr(written, "HEAL_SECONDS", -1.0)  # long after the write
    path.write_text(path.read_text().replace(daily.render_entry(_entry("t1", "private-walrus-9")), ""))
    daily.append_entry(memory_root, _entry("t2"))
    assert "private-walrus-9" not in _ledger_text(memory_root)
    (record,) = [w for w in written.load(memory_root, path).values() if w.turn == "t1"]
    assert record.deleted is not None and record.block == "" and len(record.sha) == 64
    monkeypatch.setattr(written, "HEAL_SECONDS", 60.0)
    daily.append_entry(memory_root, _entry("t3"))
    assert "turn:t1 " not in path.read_text()


def test_verify_alone_drops_the_text_of_a_deletion(memory_root: Path, monkeypatch) -> None:
    path = daily.append_entry(memory_root, _entry("t1", "private-walrus-10"))
    monkeypatch.setattr(written, "HEAL_SECONDS", -1.0)
    path.write_text(path.read_text().replace(daily.render_entry(_entry("t1", "private-walrus-10")), ""))
    lost, deleted = daily.vanished(memory_root)  # what `memdown verify` runs: no write happened since
    assert lost == [] and deleted == ["memory/2026-11-20.md: turn t1 (session s1)"]
    assert "private-walrus-10" not in _ledger_text(memory_root)


def test_text_expires_from_a_ledger_no_write_touched_for_a_week(memory_root: Path) -> None:
    path = daily.append_entry(memory_root, _entry("t1", "old-secret-otter"))
    ledger = written.ledger_file(memory_root, path)
    old = time.time() - (written.TEXT_KEEP_DAYS + 1) * 86400
    os.utime(ledger, (old, old))
    assert written.expire(memory_root) == 1
    assert "old-secret-otter" not in _ledger_text(memory_root)
    assert ledger.stat().st_mtime == old  # prune still sees when memdown last wrote it
    assert written.load(memory_root, path)["t1"].sha
    assert written.expire(memory_root) == 0
