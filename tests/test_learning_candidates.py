"""Which signals reach review: tool mechanics and edit streaks only when they recur and point at the project."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

from memdown.config import load_config
from memdown.learning import review
from memdown.signals import store
from memdown.signals.store import Signal

NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.timezone.utc)
NOT_READ = "File has not been read yet. Read it first before writing to it."


def add(root: Path, kind: str, text: str, session: str, **extra) -> Signal:
    sig = Signal(kind, text, 1, session=session, turn=f"{session}-{kind}-{len(text)}", pattern=f"tool.{kind}",
                 captured=store.iso(NOW), extra=extra)
    return store.append(root, [sig], now=NOW)[0]


def texts(root: Path) -> list[str]:
    return [c.text for c in review.analyze(root, persist=False, now=NOW, config=load_config(root)).candidates]


def test_one_session_of_mechanics_is_not_proposed(memory_root):
    for n in range(3):  # the noise: edit streaks and "File has not been read yet" in one session
        add(memory_root, "multi_edit", f"src/bonding_{n}.py edited 3 times in a row", "s1",
            file=f"/work/proj/src/bonding_{n}.py", attempts="3")
        add(memory_root, "failure", NOT_READ, "s1", tool="Edit", input=f"Edit: src/x{n}.py",
            fix=f"Read: src/x{n}.py, then Edit: src/x{n}.py")
    assert texts(memory_root) == []


def test_mechanics_recurring_across_sessions_on_a_project_file_is_proposed(memory_root):
    add(memory_root, "multi_edit", "src/schema.py edited 4 times in a row", "s1", file="/work/proj/src/schema.py",
        attempts="4")
    add(memory_root, "multi_edit", "src/schema.py edited 3 times in a row", "s2", file="/work/proj/src/schema.py",
        attempts="3")
    add(memory_root, "multi_edit", "/tmp/scratch.py edited 5 times in a row", "s1", file="/tmp/scratch.py")
    add(memory_root, "multi_edit", "/tmp/scratch.py edited 5 times in a row", "s2", file="/tmp/scratch.py")
    for session in ("s1", "s2", "s3"):  # recurring, but pure tool mechanics: still no project fact
        add(memory_root, "failure", NOT_READ, session, tool="Edit", input="Edit: a.py", fix="Read: a.py, then Edit: a.py")
    assert texts(memory_root) == ["/work/proj/src/schema.py needed 4 edits in a row: document its conventions."]


def test_real_failures_and_corrections_are_still_proposed(memory_root):
    add(memory_root, "failure", "ModuleNotFoundError: No module named 'app'", "s1", tool="Bash",
        input="Bash: pytest", fix="Bash `pip install -e .`")
    add(memory_root, "correction", "no, use pnpm not npm", "s1")
    assert len(texts(memory_root)) == 2
