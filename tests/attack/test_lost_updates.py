"""A memory is never lost: a person's editor and git racing real Stop hooks (issue 18, item 2).

Every hook is a real ``python -m memdown hook Stop`` with its detached worker.
The person's editor saves the day file every ~100 ms (in place, or by rename)
and git stashes or pulls in a loop while entries are appended. Afterwards the
next turn's Stop runs, as it would in a real session, and then every turn must
be in the markdown exactly once, and every note the person saved must be there.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from editor_race import Editor, Loop, Recording, git


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


def _repo_with_memory(tmp_path: Path, name: str) -> tuple[Path, Recording]:
    project = tmp_path / name
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    rec = Recording(tmp_path, project, sessions=6, name=name)
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
    project, rec = _repo_with_memory(tmp_path, "clone-a")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    git(project, "push", "-q", "origin", "main")
    other = tmp_path / "clone-b"
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(other))
    other_day = other / _day_file(rec.root).relative_to(project)
    notes: list[str] = []

    def other_clone_commits() -> None:  # the teammate: a note on the same day, committed and pushed
        notes.append(f"teammate note {len(notes)}")
        lines = other_day.read_text().split("\n")
        lines[1:1] = ["", notes[-1]]
        other_day.write_text("\n".join(lines))
        git(other, "commit", "-qam", notes[-1])
        if git(other, "push", "-q", "origin", "main", check=False).returncode:
            git(other, "pull", "-q", "--no-rebase", "--no-edit", check=False)
            git(other, "push", "-q", "origin", "main", check=False)

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
    commit_and_pull()
    rec.fire(1, sync=True).wait(60)
    rec.settle()
    text = _day_file(rec.root).read_text()
    pushed = git(other, "log", "--format=%s", "origin/main").stdout.split("\n")
    assert puller.runs > 2 and notes
    _assert_nothing_lost(rec, [n for n in notes if n in pushed and n + "\n" not in text])
