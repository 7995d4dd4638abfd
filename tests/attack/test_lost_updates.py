"""A memory is never lost: a person's editor and git racing real Stop hooks (issue 18, item 2).

Every hook is a real ``python -m memdown hook Stop`` with its detached worker.
The person's editor saves the day file every ~100 ms (in place, or by rename)
and git stashes or pulls in a loop while entries are appended. Afterwards the
next turn's Stop runs, as it would in a real session, and then every turn must
be in the markdown exactly once, and every note the person saved must be there.
"""
from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import pytest

from editor_race import Editor, Loop, Recording, git, teammate_clone


def _day_file(root: Path) -> Path:
    (day,) = sorted((root / "memory").glob("*.md"))
    return day


def _assert_nothing_lost(rec: Recording, notes_lost: list[str]) -> None:
    assert notes_lost == [], f"{len(notes_lost)} human save(s) overwritten"
    assert rec.lost() == set(), f"{len(rec.lost())} of {len(rec.expected())} entries lost"
    assert rec.duplicates() == 0


@pytest.mark.parametrize("style", ["inplace", "rename"])
def test_editor_saving_while_stop_hooks_append_loses_no_entry_and_no_human_save(tmp_path, style):
    project = tmp_path / "project-a"
    (project / ".git").mkdir(parents=True)
    rec = Recording(tmp_path, project, sessions=6)
    rec.fire(0, sync=True).wait(60)
    day = _day_file(rec.root)
    editor = Editor(day, style)
    editor.start()
    try:
        rec.fire_rounds(3, gap=0.08)
        rec.settle()
    finally:
        editor.stop()
    assert len(editor.saved) > 10
    rec.fire(1, sync=True).wait(60)  # the session's next turn
    rec.settle()
    _assert_nothing_lost(rec, editor.lost_notes())


def _repo_with_memory(tmp_path: Path, name: str, sessions: int = 6) -> tuple[Path, Recording]:
    project = tmp_path / name
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    rec = Recording(tmp_path, project, sessions=sessions, name=name)
    rec.fire(0, sync=True).wait(60)
    day = _day_file(rec.root)
    day.write_text(day.read_text() + "\nA paragraph the person wrote and committed.\n")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "memory")
    return project, rec


def test_git_stash_and_pop_in_a_loop_while_stop_hooks_append_loses_nothing(tmp_path):
    project, rec = _repo_with_memory(tmp_path, "stash")

    def stash_and_pop() -> None:
        git(project, "stash", "-q", check=False)
        git(project, "stash", "pop", "-q", check=False)

    loop = Loop(stash_and_pop, every=0.02)
    loop.start()
    try:
        rec.fire_rounds(3, gap=0.08)
        rec.settle()
    finally:
        loop.stop()
    assert loop.runs > 5
    rec.fire(1, sync=True).wait(60)
    rec.settle()
    text = _day_file(rec.root).read_text()
    assert "A paragraph the person wrote and committed." in text
    _assert_nothing_lost(rec, [])


def test_git_pull_in_a_loop_while_two_clones_record_loses_nothing(tmp_path):
    project, rec = _repo_with_memory(tmp_path, "clone-a", sessions=12)
    # the teammate: a note on the same day, committed and pushed
    other_clone_commits, pushed, notes = teammate_clone(tmp_path, project, _day_file(rec.root), "clone-b")

    def commit_and_pull() -> None:  # this clone's person: commit what is there, pull the teammate's
        git(project, "add", "-A", check=False)
        git(project, "commit", "-qm", "wip", check=False)
        git(project, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main", check=False)

    teammate, puller = Loop(other_clone_commits, every=0.2), Loop(commit_and_pull, every=0.05)
    teammate.start()
    puller.start()
    try:
        rec.fire_rounds(3, gap=0.08)
        rec.settle()
    finally:
        teammate.stop()
        puller.stop()
    for _ in range(5):  # a pull the loop's own race refused ("local changes would be overwritten"): again
        commit_and_pull()
        if git(project, "merge-base", "--is-ancestor", "origin/main", "HEAD", check=False).returncode == 0:
            break
    rec.fire(1, sync=True).wait(60)
    rec.settle()
    text = _day_file(rec.root).read_text()
    assert puller.runs > 2 and notes
    _assert_nothing_lost(rec, [n for n in pushed() if n + "\n" not in text])


# --- the mechanism, one race at a time (deterministic) --------------------------------------------

def _saves_during_first_read(path: Path, style: str, human: str):
    """A ``change`` for ``fsutil.edit_text`` whose first call lets a person's save land after the read."""
    calls = {"n": 0}

    def change(text: str) -> tuple[str, int]:
        calls["n"] += 1
        if calls["n"] == 1:  # the person saves between memdown's read and its write
            saved = text + human
            if style == "inplace":
                with open(path, "r+") as handle:
                    handle.truncate(0)
                    handle.write(saved)
            else:
                tmp = path.with_name(".swap")
                tmp.write_text(saved)
                os.replace(tmp, path)
        lines = text.split("\n")
        return "\n".join(["# Title (memdown edit)"] + lines[1:]) + "- entry\n", calls["n"]

    return change


@pytest.mark.parametrize("style", ["inplace", "rename"])
def test_a_save_between_read_and_write_is_never_overwritten(tmp_path, style):
    from memdown import fsutil

    path = tmp_path / "learnings.md"
    path.write_text("# Title\n\nold text\n")
    calls = fsutil.edit_text(path, _saves_during_first_read(path, style, "a person's line\n"))
    text = path.read_text()
    assert calls == 2 and "a person's line" in text and "(memdown edit)" in text and "- entry" in text


def test_an_append_never_lands_in_an_editors_truncate_then_write(tmp_path):
    from memdown import fsutil

    path = tmp_path / "day.md"
    path.write_text("")  # truncated: the editor is about to write
    content = "# 2026-11-20\n\na person's paragraph\n"
    writer = threading.Timer(0.2, lambda: path.write_text(content))
    writer.start()
    fsutil.edit_text(path, lambda text: (text + "- entry\n", None))
    writer.join()
    assert path.read_text() == content + "- entry\n"


def test_an_entry_an_editor_dropped_comes_back_and_a_deletion_by_hand_stays(tmp_path, memory_root, monkeypatch):
    from datetime import datetime

    from memdown.store import daily, written

    def entry(turn: str) -> daily.Entry:
        return daily.Entry(datetime(2026, 11, 20, 10, 0), "s1", turn, "~/t.jsonl", [f"did {turn}"])

    path = daily.append_entry(memory_root, entry("t1"))
    daily.append_entry(memory_root, entry("t2"))
    stale = path.read_text().replace(daily.render_entry(entry("t2")), "")
    path.write_text(stale + "\na person's note\n")  # a buffer read before t2, saved now
    daily.append_entry(memory_root, entry("t3"))
    text = path.read_text()
    assert all(f"turn:{t} " in text for t in ("t1", "t2", "t3")) and "a person's note" in text
    # A person deletes t1 by hand long after it was written: respected, now and later.
    monkeypatch.setattr(written, "HEAL_SECONDS", -1.0)
    path.write_text(text.replace(daily.render_entry(entry("t1")), ""))
    daily.append_entry(memory_root, entry("t4"))
    monkeypatch.setattr(written, "HEAL_SECONDS", 60.0)
    daily.append_entry(memory_root, entry("t5"))
    text = path.read_text()
    assert "turn:t1 " not in text and all(f"turn:{t} " in text for t in ("t2", "t3", "t4", "t5"))


def test_git_dropping_an_uncommitted_entry_heals_and_a_deletion_in_a_commit_is_respected(tmp_path, monkeypatch):
    """Long after the write (the time rule is off): only the git rule can tell the two apart."""
    from datetime import datetime

    from memdown.store import daily, written
    from memdown.store.layout import init_layout

    project = tmp_path / "repo"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    root = project / ".memdown"
    init_layout(root)  # state/ (the ledger) is machine-local, never committed

    def entry(turn: str) -> daily.Entry:
        return daily.Entry(datetime(2026, 11, 20, 10, 0), "s1", turn, "~/t.jsonl", [f"did {turn}"])

    path = daily.append_entry(root, entry("t1"))
    git(project, "add", "-A")
    git(project, "commit", "-qm", "t1")
    daily.append_entry(root, entry("t2"))
    monkeypatch.setattr(written, "HEAL_SECONDS", -1.0)
    git(project, "stash", "-q")  # t2 was never committed: git took it out of the working tree
    assert "turn:t2 " not in path.read_text()
    assert daily.heal(root, path) == ["t2"]
    git(project, "stash", "drop", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "t2")
    path.write_text(path.read_text().replace(daily.render_entry(entry("t1")), ""))
    git(project, "commit", "-qam", "drop t1 on purpose")
    assert daily.heal(root, path) == []
    assert "turn:t1 " not in path.read_text() and "turn:t2 " in path.read_text()


def test_verify_reports_a_recorded_turn_that_vanished_and_repair_writes_it_back(memory_root, fake_embedder):
    from datetime import datetime

    from memdown.api import Memory
    from memdown.services.upkeep.repair import repair
    from memdown.services.upkeep.verify import verify
    from memdown.store import daily

    entries = [daily.Entry(datetime(2026, 11, 20, 10, n), "s1", f"t{n}", "~/t.jsonl", [f"did step {n}"])
               for n in range(3)]
    path = [daily.append_entry(memory_root, e) for e in entries][0]
    mem = Memory.open(memory_root, embedder=fake_embedder)
    mem.index()
    assert verify(mem).ok
    path.write_text(path.read_text().replace(daily.render_entry(entries[1]), ""))  # a stale save, just now
    mem.index()
    report = verify(mem)
    assert not report.ok and report.missing_turns == ["memory/2026-11-20.md: turn t1 (session s1)"]
    after = repair(mem, report)
    assert after.ok and "turn:t1 " in path.read_text() and path.read_text().count("turn:t1 ") == 1
    assert any("wrote back 1" in action for action in after.repaired)


def _session_of_each_entry(text: str) -> dict[str, str]:
    """turn -> the ``##`` heading it sits under, read with the markdown parse (the chunker's view)."""
    from memdown.store.markdown import block_parser

    tokens = block_parser().parse(text)
    lines, under, found = text.split("\n"), "", {}
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag == "h2":
            under = tokens[i + 1].content.strip()
        elif tok.type == "html_block":
            for turn in re.findall(r"turn:(\S+)", tok.content):
                found[turn] = under
    return found


def test_every_entry_goes_at_the_end_under_its_own_sessions_heading():
    """Sessions interleaved, a code fence holding '# ...' lines and an indented (code) anchor: each
    placement only adds at the end of the file, and each entry sits under its own session's heading
    (a continuation when another session wrote in between), as the markdown parse reads it."""
    from datetime import datetime

    from memdown.store import daily

    def entry(session: str, turn: str, minute: int) -> daily.Entry:
        return daily.Entry(datetime(2026, 11, 20, 10, minute), session, turn, "~/t.jsonl", [f"{session} {turn}"])

    text = daily.insert_entry("", entry("a", "a1", 1))
    text = daily.insert_entry(text, entry("b", "b1", 2))
    text = text.replace("- a a1\n", "- a a1\n\n```sh\n# not a heading\n## nor this\n```\n\n"
                        "    <!-- session:b turn:fake -->\n")
    text = text.replace("## Session 10:02\n", "## Session 10:02\n\n```\n## fenced\n```\n")
    for turn, minute in [("a2", 3), ("b2", 4), ("b3", 5), ("a3", 6), ("c1", 7), ("b4", 8)]:
        before = text
        text = daily.insert_entry(text, entry(turn[0], turn, minute))
        assert text.startswith(before) and text.endswith(f"- {turn[0]} {turn}\n")
    assert daily.insert_entry(text, entry("b", "b1", 9)) is None and daily.insert_entry(text, entry("b", "fake", 9))
    assert _session_of_each_entry(text) == {
        "a1": "Session 10:01", "b1": "Session 10:02", "a2": "Session 10:01 (continued)",
        "b2": "Session 10:02 (continued)", "b3": "Session 10:02 (continued)", "a3": "Session 10:01 (continued)",
        "c1": "Session 10:07", "b4": "Session 10:02 (continued)"}
    assert text.count("## Session 10:02 (continued)") == 2  # b3 went on under b2's heading


def test_a_session_resuming_after_anothers_section_appends_in_place_on_a_long_day(memory_root):
    """The day file is never replaced for an entry (the rewrite grew with the day): same inode, only grown."""
    from datetime import datetime

    from memdown.store import daily

    def entry(session: str, n: int) -> daily.Entry:
        return daily.Entry(datetime(2026, 11, 20, 9 + n // 60, n % 60), session, f"t{n}", "~/t.jsonl", ["x" * 200])

    for n in range(40):  # eight sessions, each section followed by the next one's
        daily.append_entry(memory_root, entry(f"s{n // 5}", n))
    path = daily.entry_file(memory_root, entry("s0", 0))
    before, ino = path.read_bytes(), path.stat().st_ino
    daily.append_entry(memory_root, entry("s0", 99))
    after = path.read_bytes()
    assert path.stat().st_ino == ino and after.startswith(before)
    assert after[len(before):].decode().startswith("\n## Session 09:00 (continued)\n\n### 10:39")


@pytest.mark.parametrize("style", ["inplace", "rename"])
def test_an_append_racing_a_save_is_recomputed_not_lost(tmp_path, style):
    from memdown import fsutil

    path = tmp_path / "day.md"
    path.write_text("# 2026-11-20\n\n" + "old entry\n" * 20000)  # longer than the tail the append compares
    saved = _saves_during_first_read(path, style, "a person's line\n")

    def change(text: str) -> tuple[str, int]:
        calls = saved(text)[1]
        return fsutil.Append("- entry\n"), calls

    assert fsutil.edit_text(path, change) == 2
    text = path.read_text()
    assert text.endswith("a person's line\n- entry\n") and text.count("- entry") == 1


def test_ledgers_of_files_not_written_for_months_are_pruned(memory_root):
    from datetime import datetime

    from memdown.store import daily, written

    path = daily.append_entry(memory_root, daily.Entry(datetime(2026, 11, 20, 10, 0), "s1", "t1", "~/t.jsonl", ["x"]))
    ledger = written.ledger_file(memory_root, path)
    assert ledger.exists() and written.prune(memory_root) == 0
    old = os.stat(ledger).st_mtime - (written.KEEP_DAYS + 1) * 86400
    os.utime(ledger, (old, old))
    assert daily.heal_recent(memory_root) == [] and not ledger.exists()
    assert not ledger.with_suffix(".stamp").exists()
