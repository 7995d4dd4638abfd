"""The one progress helper (cli/progress.py): a rich bar on a terminal, silence (or plain lines when
asked) elsewhere; and a search that has to build the index reports its progress through it."""
from __future__ import annotations

import io
from pathlib import Path

from conftest import FakeEmbedder
from memdown.cli.progress import Progress


def test_on_a_terminal_long_work_shows_a_bar_with_its_stage_and_counts():
    out = io.StringIO()
    progress = Progress("indexing", stream=out, tty=True, delay=0, spinner=False)
    progress("embedding", 5, 10)
    progress.close()
    assert "embedding" in out.getvalue() and "5/10" in out.getvalue()


def test_off_a_terminal_it_prints_nothing_unless_plain_lines_are_asked_for():
    quiet, plain = io.StringIO(), io.StringIO()
    for stream, wanted in ((quiet, False), (plain, True)):
        with Progress("importing", stream=stream, tty=False, plain=wanted, delay=0, every=0) as progress:
            progress("importing sessions", 3, 7)
    assert quiet.getvalue() == ""
    assert plain.getvalue() == "memdown: importing sessions 3/7\n"


def test_work_shorter_than_the_delay_shows_nothing_even_on_a_terminal():
    out = io.StringIO()
    with Progress("verifying", stream=out, tty=True, delay=60) as progress:
        progress("verifying", 1, 2)
    assert out.getvalue() == ""


def test_a_search_that_builds_the_index_reports_progress(memory_root: Path):
    from memdown.config import load_config
    from memdown.services.upkeep.memory import Memory

    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-01-02.md").write_text("# 2026-01-02\n\n## Session 09:00\n\n### 09:05\n- redis ttl\n")
    mem = Memory(memory_root, config=load_config(memory_root), embedder=FakeEmbedder())
    seen: list[tuple[str, int, int]] = []
    mem.progress = lambda stage, done, total: seen.append((stage, done, total))
    assert mem.search("redis ttl")
    assert seen and seen[-1][1] == seen[-1][2]


def test_stats_says_when_the_index_is_behind_the_markdown_and_the_capture_queue(memory_root: Path):
    """Observation 5 of #19: right after a bulk capture, `stats` said `index: ok` while files were still arriving."""
    from memdown.config import load_config
    from memdown.services.capture.jobs import enqueue
    from memdown.services.upkeep.memory import Memory

    day = "# 2026-01-0{n}\n\n## Session 09:00\n\n### 09:05\n- redis ttl {n}\n"
    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-01-01.md").write_text(day.format(n=1))
    mem = Memory(memory_root, config=load_config(memory_root), embedder=FakeEmbedder())
    mem.index()
    assert mem.stats()["index_state"] == "ok" and mem.stats()["behind"] is None
    (memory_root / "memory" / "2026-01-02.md").write_text(day.format(n=2))
    enqueue(memory_root, "stop", {"session_id": "s", "transcript_path": "/nowhere.jsonl"})
    stats = mem.stats()
    assert stats["index_state"].startswith("behind: 1 file(s) changed"), stats["index_state"]
    assert "1 turn(s) still being captured" in stats["index_state"]
    assert stats["behind"] == {"files": 1, "capture_jobs": 1}
    mem.index()
    assert mem.stats()["behind"] == {"files": 0, "capture_jobs": 1}
