"""Search returns windows: neighbouring turns of one session, scored from their units, within a budget."""
from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path

import pytest

from conftest import FakeEmbedder
from memdown import paths
from memdown.api import Memory
from memdown.cli.render import render
from memdown.errors import UsageError
from memdown.services.recall import windows
from memdown.services.recall.timeframe import find_range

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


# --- relative dates and the recency prior -------------------------------------------------------

TODAY = dt.date(2026, 11, 22)  # a Sunday


@pytest.mark.parametrize(("query", "since", "until"), [
    ("what did we decide last week about retries", "2026-11-09", "2026-11-22"),
    ("what did we fix in mid February?", "2026-02-08", "2026-02-23"),
    ("the styling problem at the end of January", "2026-01-19", "2026-01-31"),
    ("flaky tests in March", "2026-03-01", "2026-03-31"),
    ("what broke in December", "2025-12-01", "2025-12-31"),  # the most recent December, not a future one
    ("the cache bug in early May 2025", "2025-05-01", "2025-05-12"),
    ("what happened yesterday", "2026-11-21", "2026-11-21"),
    ("the deploy last friday", "2026-11-20", "2026-11-20"),
    ("the outage 2 weeks ago", "2026-11-05", "2026-11-11"),
    # A named day is that day, also inside a month phrase ("the evening of August 4" is not all of August).
    ("what caused the SEV-2 on June 4th?", "2026-06-04", "2026-06-04"),
    ("what happened on the evening of August 4?", "2026-08-04", "2026-08-04"),
    ("the 4th of June 2025", "2025-06-04", "2025-06-04"),
    ("the deploy on December 25", "2025-12-25", "2025-12-25"),  # the most recent one
    ("what ran on 2026-06-04", "2026-06-04", "2026-06-04"),
])
def test_relative_dates_become_a_range(query: str, since: str, until: str) -> None:
    found = find_range(query, TODAY)
    assert found is not None and (found.since.isoformat(), found.until.isoformat()) == (since, until)


@pytest.mark.parametrize("query", ["we may want to march on", "the overnight idea", "mayday handler", "decision log",
                                   "we may 2 times retry", "June 31st"])
def test_words_that_are_not_dates_name_no_range(query: str) -> None:
    assert find_range(query, TODAY) is None


def _entry(day: str, session: str, text: str) -> str:
    return f"# {day}\n\n## Session 10:00\n\n### 10:00\n<!-- session:{session} turn:t-{day} -->\n- {text}\n"


@pytest.fixture
def dated(memory_root: Path) -> Memory:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-02-02").write_text(_entry("2026-02-02", "s-old", "Deploy target: the staging cluster runs on Heroku dynos."))
    paths.daily_file(memory_root, "2026-03-20").write_text(_entry("2026-03-20", "s-new", "Deploy target: the staging cluster runs on Fly machines now."))
    m.index()
    return m


def test_two_close_matches_on_one_topic_say_which_is_newer(dated: Memory) -> None:
    hits = {h.date: h for h in dated.search("deploy target staging cluster", mode="text", k=2, today="2026-11-22")}
    assert any("newer" in n and "likely current" in n for n in hits["2026-03-20"].notes)
    assert any("older than" in n for n in hits["2026-02-01" if "2026-02-01" in hits else "2026-02-02"].notes)


def test_the_recency_prior_moves_the_newer_first_when_on(memory_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-02-02").write_text(
        _entry("2026-02-02", "s-old", "Deploy target: the staging cluster deploy runs on Heroku dynos."))
    paths.daily_file(memory_root, "2026-03-20").write_text(
        _entry("2026-03-20", "s-new", "Deploy target: the staging cluster runs on Fly machines now."))
    m.index()
    hits = m.search("deploy staging cluster", mode="text", k=2)
    assert [h.date for h in hits] == ["2026-02-02", "2026-03-20"]  # off (the default): by score
    monkeypatch.setattr(windows, "RECENCY_BAND", 0.5)
    hits = m.search("deploy staging cluster", mode="text", k=2)
    assert [h.date for h in hits] == ["2026-03-20", "2026-02-02"]


def test_unrelated_close_matches_get_no_recency_note(memory_root: Path) -> None:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-02-02").write_text(_entry("2026-02-02", "s-a", "Cluster upgrade of kafka brokers done."))
    paths.daily_file(memory_root, "2026-03-20").write_text(_entry("2026-03-20", "s-b", "Staging cluster billing report exported to finance."))
    m.index()
    hits = m.search("cluster", mode="text", k=2)
    assert len(hits) == 2 and not any(h.notes for h in hits)


def test_a_date_phrase_prefers_entries_of_those_dates(dated: Memory) -> None:
    # "last week" is in no entry's text: only the rewritten range can prefer the older entry.
    hits = dated.search("deploy target staging cluster last week", mode="text", k=2, today="2026-02-06")
    assert hits[0].date == "2026-02-02"
    assert any("2026-01-26..2026-02-06" in n for n in hits[0].notes)


def test_a_bad_today_is_a_usage_error(dated: Memory) -> None:
    with pytest.raises(UsageError):
        dated.search("deploy", mode="text", today="2026-13-01")


def test_the_skill_no_longer_expands_by_default() -> None:
    body = (Path(__file__).resolve().parents[1] / "skills" / "memory-recall" / "SKILL.md").read_text()
    assert "Do not `memdown expand` a hit whose window answers" in body
    assert "Expand** the promising hits" not in body


def test_a_neighbour_that_would_pass_the_budget_is_left_out(mem: Memory) -> None:
    mem.config.values["search"]["window_chars"] = 300  # one turn of sess-q fits, two do not
    first = mem.search("task queue reminders", mode="text", k=3)[0]
    assert first.window.sections == 1 and not first.window.clipped and len(first.window.text) <= 300
    assert first.window.text.count("###") == 1


def test_adjacent_turns_of_two_sessions_without_a_heading_between_stay_apart(memory_root: Path) -> None:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-05-05").write_text(
        "# 2026-05-05\n\n### 10:00\n<!-- session:s-one turn:t-a -->\n- Kafka consumer lag alarm tuned.\n\n"
        "### 10:05\n<!-- session:s-two turn:t-b -->\n- Kafka consumer group renamed for the billing team.\n")
    m.index()
    hits = m.search("kafka consumer", mode="text", k=2)
    assert len(hits) == 2 and all(h.window.sections == 1 for h in hits)


def _same_size_edit(path: Path, old: str, new: str) -> None:
    """Rewrite ``old`` as ``new`` (same length) inside the file, in place: same inode, same size."""
    assert len(old) == len(new)
    data = path.read_bytes()
    at = data.index(old.encode())
    with open(path, "r+b") as handle:
        handle.seek(at)
        handle.write(new.encode())


def test_the_window_cache_sees_a_same_size_edit_once_reindexed(mem: Memory, memory_root: Path) -> None:
    path = paths.daily_file(memory_root, "2026-03-03")
    assert "Celery with Redis" in mem.search("task queue reminders", mode="text", k=3)[0].window.text  # cached now
    _same_size_edit(path, "Celery with Redis", "Huey with Valkey!")
    os.utime(path, ns=(time.time_ns(), path.stat().st_mtime_ns + 5_000_000_000))  # a new mtime, whatever the clock
    mem.index()
    text = mem.search("task queue reminders", mode="text", k=3)[0].window.text
    assert "Huey with Valkey!" in text and "Celery with Redis" not in text


def test_the_window_cache_sees_an_in_place_edit_that_keeps_size_and_mtime(mem: Memory, memory_root: Path) -> None:
    """The index still thinks the file unchanged (same size and mtime): the window shows the file as it is
    now, as an uncached read would."""
    path = paths.daily_file(memory_root, "2026-03-03")
    assert "Celery with Redis" in mem.search("task queue reminders", mode="text", k=3, refresh=False)[0].window.text
    before = path.stat()
    time.sleep(0.01)  # the ctime moves on this write
    _same_size_edit(path, "Celery with Redis", "Huey with Valkey!")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    text = mem.search("task queue reminders", mode="text", k=3, refresh=False)[0].window.text
    assert "Huey with Valkey!" in text and "Celery with Redis" not in text


def test_the_window_cache_stays_within_its_budget() -> None:
    cache = windows.FileCache(budget=100)
    for n in range(5):
        cache.put(f"/f{n}", (40, n, n, n, 0), [f"line {n}"])
    assert len(cache) == 2 and cache.get("/f4", (40, 4, 4, 4, 0)) == ["line 4"]
    assert cache.get("/f0", (40, 0, 0, 0, 0)) is None  # evicted, oldest first
    assert cache.get("/f4", (40, 4, 5, 4, 0)) is None  # another ctime: another file
    cache.put("/big", (101, 0, 0, 0, 0), ["x"])
    assert cache.get("/big", (101, 0, 0, 0, 0)) is None  # larger than the whole budget: not kept


def test_with_k_1_a_date_phrase_still_lifts_the_second_best_entry(dated: Memory) -> None:
    """Only the top window is returned, but the dated one ranks second by score: it must still be built."""
    plain = dated.search("deploy target staging cluster", mode="text", k=2, today="2026-02-06")
    dated_rank = [h.date for h in plain].index("2026-02-02")
    query = "deploy target staging cluster last week"
    hits = dated.search(query, mode="text", k=1, today="2026-02-06")
    assert [h.date for h in hits] == ["2026-02-02"], (dated_rank, [h.date for h in hits])


def test_with_k_1_the_top_entry_still_says_it_has_a_newer_or_older_twin(dated: Memory) -> None:
    top = dated.search("deploy target staging cluster", mode="text", k=1, today="2026-11-22")[0]
    assert any("newer" in n or "older than" in n for n in top.notes), top.notes


def test_a_date_phrase_lifts_an_entry_from_below_the_windows_built_without_one(memory_root: Path) -> None:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    for day in range(1, 8):
        paths.daily_file(memory_root, f"2026-03-0{day}").write_text(
            _entry(f"2026-03-0{day}", f"s-{day}", f"Deploy target staging cluster moved again on 2026-03-0{day}."))
    paths.daily_file(memory_root, "2026-02-02").write_text(_entry("2026-02-02", "s-dated", "Cluster maintenance was quiet."))
    m.index()
    plain = m.search("deploy target staging cluster", mode="text", k=8, today="2026-02-06")
    assert [h.date for h in plain].index("2026-02-02") >= 6  # below the windows built for k=3 without a date
    hits = m.search("deploy target staging cluster last week", mode="text", k=3, today="2026-02-06")
    assert "2026-02-02" in [h.date for h in hits]
