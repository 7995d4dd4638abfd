"""A committed anchor's ``commit:`` and ``cites:`` values are data from whoever pushed last.

Freshness (services/recall/staleness.py, store/citations.py) feeds them to git and to file reads. A value
must never become a git option (``--output=FILE`` makes ``git rev-list``/``git show`` create a file
anywhere) and a cited path must never read a file outside the repository (absolute, ``..``, a link):
the verdict would be an oracle on its content, and a device or FIFO could hang a search or the
SessionStart digest.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memdown.services.recall.staleness import stale_entries
from memdown.store.citations import cited_lines, fingerprint, quick_check

FOO_OLD = "def foo():\n    return 1\n"
FOO_NEW = "def foo():\n    return 2\n"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def repo(isolate_paths: Path) -> Path:
    project = isolate_paths
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text(FOO_OLD, encoding="utf-8")
    (project / "README.md").write_text("readme\n", encoding="utf-8")
    _git(project, "init", "-q")
    _git(project, "-c", "user.email=a@b", "-c", "user.name=a", "add", "-A")
    _git(project, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "one")
    (project / "src" / "a.py").write_text(FOO_NEW, encoding="utf-8")  # foo changed since
    (project / ".memdown" / "memory").mkdir(parents=True)
    return project


def _day(repo: Path, anchors: list[str]) -> Path:
    body = ["# 2026-06-01", "", "## Session 09:00", ""]
    for n, fields in enumerate(anchors):
        body += [f"### 09:{10 + n:02d}", f"<!-- session:s1 turn:t{n} {fields} -->", "", f"- foo in src/a.py, note {n}", ""]
    path = repo / ".memdown" / "memory" / "2026-06-01.md"
    path.write_text("\n".join(body), encoding="utf-8")
    return path


def test_a_commit_value_is_never_a_git_option(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    commits = [f"--output={out}/revlist", f"--output={out}/show", f"-o{out}/short", "--exec-path=/nonexistent",
               f"--output={out}/x", "HEAD~0", "@{-1}"]
    anchors = []
    for commit in commits:
        anchors.append(f"commit:{commit} cites:src/a.py#foo~000000000000")  # changed: rev-list base..HEAD
        anchors.append(f"commit:{commit} cites:src/a.py#foo")  # no fingerprint: git show base:path
        anchors.append(f"commit:{commit} cites:gone.py#bar~000000000000")  # missing: cat-file, diff -M base
        anchors.append(f"commit:{commit} cites:README.md")
    _day(repo, anchors)
    stale_entries(repo / ".memdown", include_fresh=True)
    assert sorted(p.name for p in out.iterdir()) == []


def test_a_cited_path_never_reads_outside_the_repository(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.py"
    outside.write_text("def token():\n    return 'hunter2'\n", encoding="utf-8")
    real = fingerprint(cited_lines(outside.read_text(encoding="utf-8"), "token"))
    (repo / "src" / "link.py").symlink_to(outside)
    rel = Path("..") / outside.relative_to(tmp_path)
    cites = [f"{outside}#token~{real}", f"{rel}#token~{real}", f"src/../{rel}#token~{real}", f"src/link.py#token~{real}"]
    _day(repo, [f"commit:0123456789ab cites:{c}" for c in cites])
    for entry in stale_entries(repo / ".memdown", include_fresh=True):
        assert all(c["state"] != "fresh" for c in entry["freshness"]["cited"]), entry
    for cite in cites:  # SessionStart's digest (no git) reads the same way
        assert quick_check(repo, cite) != "", cite


def test_a_fifo_or_device_cited_does_not_hang(repo: Path, tmp_path: Path) -> None:
    import os

    fifo = repo / "src" / "pipe.py"
    os.mkfifo(fifo)
    for cite in ("src/pipe.py#foo~0123456789ab", "/dev/zero#foo~0123456789ab", "/dev/stdin#foo~0123456789ab"):
        assert quick_check(repo, cite) != ""
    _day(repo, ["commit:0123456789ab cites:src/pipe.py#foo~0123456789ab,/dev/zero#x~0123456789ab"])
    stale_entries(repo / ".memdown", include_fresh=True)


def test_an_ordinary_citation_still_judges(repo: Path) -> None:
    old = fingerprint(cited_lines(FOO_OLD, "foo"))
    _day(repo, [f"commit:HEAD cites:src/a.py#foo~{old}"])  # a symbolic name is no object name: not trusted
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout[:12]
    _day(repo, [f"commit:{head} cites:src/a.py#foo~{old}"])
    [entry] = stale_entries(repo / ".memdown")
    assert entry["freshness"]["state"] == "changed"
    assert quick_check(repo, f"src/a.py#foo~{old}") == "src/a.py foo changed"
