"""Search returns windows: neighbouring turns of one session, scored from their units, within a budget."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FakeEmbedder
from memdown import paths
from memdown.api import Memory
from memdown.cli.render import render

DAY = """\
# 2026-03-03

## Session 19:10

### 19:10
<!-- session:sess-q turn:t-1 transcript:/tmp/q.jsonl -->
- Asked: which task queue for the invoicing app: celery or django-q2?
- Outcome: Celery with Redis as the broker; beat runs the nightly reminders.

### 19:20
<!-- session:sess-q turn:t-2 transcript:/tmp/q.jsonl -->
- Asked: the task queue keeps losing reminders on deploy
- Outcome: Switched the task queue to django-q2 on the Postgres ORM broker; no Redis to run.

## Session 21:00

### 21:05
<!-- session:sess-other turn:t-3 transcript:/tmp/o.jsonl -->
- Asked: the task queue dashboard colours
- Outcome: Kept the default colours.

### 21:30
<!-- session:sess-other turn:t-4 transcript:/tmp/o.jsonl -->
- Asked: unrelated lint question about ruff
- Outcome: Pinned ruff.
"""

LONG_TURN = "\n".join(
    ["# 2026-03-04", "", "## Session 08:00", "", "### 08:00", "<!-- session:sess-l turn:t-9 transcript:/tmp/l.jsonl -->"]
    + [f"- Step {i}: rebuilt the warehouse fixtures and reran the nightly load without incident." for i in range(30)]
    + ["- The flaky snapshot test was the timezone of the CI runner: pinned TZ=UTC in conftest."]
    + [f"- Later step {i}: nothing of note happened in the warehouse job today at all." for i in range(30)]
) + "\n"


@pytest.fixture
def mem(memory_root: Path) -> Memory:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-03-03").write_text(DAY)
    paths.daily_file(memory_root, "2026-03-04").write_text(LONG_TURN)
    m.index()
    return m


def test_neighbouring_turns_of_one_session_are_one_window(mem: Memory) -> None:
    hits = mem.search("task queue reminders", mode="text", k=5)
    first = hits[0]
    assert first.window is not None
    # Both turns of the first session, read together: the decision and the turn that revised it.
    assert "Celery with Redis" in first.window.text and "django-q2" in first.window.text
    assert first.window.sections == 2
    assert "turn:t-1" in first.window.text and "turn:t-2" in first.window.text  # anchors kept, as expand shows
    # The unit is still the matched unit, inside the window.
    assert first.window.start_line <= first.start_line <= first.end_line <= first.window.end_line
    # A turn already read in a higher-ranked window takes no second slot.
    for hit in hits[1:]:
        assert hit.window.source != first.window.source or not (
            first.window.start_line <= hit.start_line <= first.window.end_line)


def test_another_session_is_never_joined(mem: Memory) -> None:
    hits = mem.search("task queue", mode="text", k=5)
    for hit in hits:
        sessions = {line.split("session:")[1].split()[0] for line in hit.window.text.splitlines() if "session:" in line}
        assert sessions == {hit.session}, hit.window.text


def test_windows_stay_within_the_budget_and_clip_around_the_unit(mem: Memory) -> None:
    mem.config.values["search"]["window_chars"] = 400
    hits = mem.search("flaky snapshot timezone", mode="text", k=3)
    long = next(h for h in hits if h.source.endswith("2026-03-04.md"))
    assert long.window.clipped and len(long.window.text) <= 400
    assert "pinned TZ=UTC" in long.window.text and "### 08:00" in long.window.text and "…" in long.window.text
    assert all(len(h.window.text) <= 400 for h in hits)


def test_json_keeps_unit_and_window(mem: Memory) -> None:
    data = mem.search("django-q2", mode="text", k=2)[0].to_dict()
    assert "django-q2" in data["text"] and "<!--" not in data["text"]  # the matched unit, anchors stripped
    assert data["window"]["text"].count("###") == 2 and data["window"]["units"]


def test_window_chars_zero_gives_units_one_per_section(mem: Memory) -> None:
    mem.config.values["search"]["window_chars"] = 0
    hits = mem.search("task queue", mode="text", k=5)
    assert hits and all(h.window is None for h in hits)
    assert len({(h.source, h.section_start) for h in hits}) == len(hits)


def test_a_file_changed_since_indexing_shows_the_unit_only(mem: Memory, memory_root: Path) -> None:
    path = paths.daily_file(memory_root, "2026-03-03")
    path.write_text("# 2026-03-03\n\nInserted line that shifts every section.\n\n" + DAY.split("\n", 1)[1])
    hits = mem.search("django-q2", mode="text", k=2, refresh=False)
    assert hits[0].window.stale and hits[0].window.text == hits[0].text


def test_text_view_shows_the_window_without_anchors(mem: Memory) -> None:
    lines: list[str] = []
    hits = [h.to_dict() for h in mem.search("task queue reminders", mode="text", k=2)]
    render("search", hits, as_json=False, out=lines.append, err=lines.append)
    shown = "\n".join(lines)
    assert "Celery with Redis" in shown and "Switched the task queue to django-q2" in shown
    assert "<!--" not in shown
    assert "drill down: memdown transcript sess-q --turn t-" in shown
    assert "memdown expand <id>` only for a clipped" in shown
