"""Bad files in a memory folder skip only themselves, with one line naming them; nothing hangs.

Real CLI subprocesses with the packaged model: a FIFO named ``*.md`` (reading it
would block forever), a symlink loop, a link to ``/dev/zero``, a link to a file
outside the repository, a socket, a file name that is not UTF-8. Also: a
read-only or full memory folder still answers searches, every CLI error is one
line, and ``verify`` catches cached vectors that no longer match their text.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from conftest import run_memdown

GOOD = "# 2026-03-14\n\n### 09:00\n- a perfectly normal entry about marmots in the garden\n"
OUTSIDE_SECRET = "wombat-outside-the-repository\n"


def _plant(memory: Path, kind: str, tmp_path: Path) -> str:
    """Make the bad entry ``kind`` in ``memory``; the name the notice must carry."""
    if kind == "fifo":
        os.mkfifo(memory / "pipe.md")
        return "pipe.md"
    if kind == "loop":
        (memory / "loop.md").symlink_to("loop.md")
        return "loop.md"
    if kind == "devzero":
        (memory / "zero.md").symlink_to("/dev/zero")
        return "zero.md"
    if kind == "outside":
        (tmp_path / "elsewhere.md").write_text(f"# notes\n\n- {OUTSIDE_SECRET}")
        (memory / "elsewhere.md").symlink_to(tmp_path / "elsewhere.md")
        return "elsewhere.md"
    if kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(memory / "sock.md"))
        return "sock.md"
    if kind == "non-utf8-name":
        os.close(os.open(os.fsencode(memory) + b"/caf\xe9.md", os.O_CREAT | os.O_WRONLY, 0o644))
        with open(os.fsencode(memory) + b"/caf\xe9.md", "w") as handle:
            handle.write("# latin\n\n- crème about quokkas\n")
        return "caf"
    raise AssertionError(kind)


def _one_line_notice(stderr: str, name: str) -> None:
    assert "Traceback" not in stderr, stderr
    lines = [ln for ln in stderr.splitlines() if name in ln]
    assert len(lines) == 1, stderr  # named once, on one line


@pytest.fixture
def inited(memory_root: Path) -> Path:
    assert run_memdown("init").returncode == 0
    (memory_root / "memory" / "2026-03-14.md").write_text(GOOD)
    return memory_root


@pytest.mark.parametrize("kind", ["fifo", "loop", "devzero", "outside", "socket", "non-utf8-name"])
def test_bad_entry_skips_only_itself(tmp_path: Path, inited: Path, kind: str) -> None:
    name = _plant(inited / "memory", kind, tmp_path)
    index = run_memdown("index", timeout=300)
    assert index.returncode == 0, index.stderr
    _one_line_notice(index.stderr, name)
    search = run_memdown("search", "marmots garden", "--json", timeout=300)
    assert search.returncode == 0, search.stderr
    assert "Traceback" not in search.stderr
    hits = json.loads(search.stdout)
    hits = hits if isinstance(hits, list) else hits.get("results", hits.get("hits", []))
    assert any("marmots" in h["text"] for h in hits)
    assert not any("wombat" in h["text"] for h in hits)  # nothing read through a link out of the repository
    verify = run_memdown("verify", timeout=300)
    assert "Traceback" not in verify.stderr
    assert verify.returncode in (0, 1), verify.stderr


def _chattr(flag: str, folder: Path) -> bool:
    try:
        return subprocess.run(["chattr", "-R", flag, str(folder)], capture_output=True).returncode == 0
    except OSError:
        return False


def test_search_on_a_read_only_memory_folder(inited: Path) -> None:
    assert run_memdown("index", timeout=300).returncode == 0
    if not _chattr("+i", inited):  # root ignores modes; an immutable tree is read-only even for root
        pytest.skip("chattr +i is not available here")
    try:
        search = run_memdown("search", "marmots garden", timeout=300)
    finally:
        _chattr("-i", inited)
    assert "Traceback" not in search.stderr
    assert search.returncode == 0, search.stderr
    assert "marmots" in search.stdout


def test_search_on_a_full_disk(inited: Path) -> None:
    assert run_memdown("index", timeout=300).returncode == 0
    if shutil.which("prlimit") is None:
        pytest.skip("prlimit is not available")
    import sys

    # every write past one byte fails with EFBIG, as on a full disk (Python ignores SIGXFSZ)
    search = subprocess.run(["prlimit", "--fsize=1", sys.executable, "-m", "memdown", "search", "marmots garden"],
                            capture_output=True, text=True, timeout=300, env=os.environ.copy())
    assert "Traceback" not in search.stderr
    assert search.returncode == 0, search.stderr
    assert "marmots" in search.stdout


@pytest.mark.parametrize("argv", [["init", "--dir", "/proc/1/nope"], ["search", "--bogus"], ["--nope"],
                                  ["index", "--dir"], ["search", "-k", "many", "x"]])
def test_every_cli_error_is_one_line(argv: list[str]) -> None:
    result = run_memdown(*argv, timeout=120)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    if argv[0] != "init":
        assert result.returncode == 2  # a usage error


@pytest.mark.parametrize("rebuild", [False, True])
def test_verify_catches_vectors_shifted_by_one_row(inited: Path, rebuild: bool) -> None:
    """Every cached vector moved one row: each text now has another text's vector.

    Without ``rebuild`` the index still holds the right vectors (the cache disagrees with it); with it the
    index was rebuilt from the damaged cache, so index and cache agree and only the text can tell.
    """
    words = ["llamas", "kettles", "rockets", "sourdough", "glaciers", "violins"]
    for n, word in enumerate(words):
        (inited / "memory" / f"2026-03-{n + 1:02d}.md").write_text(
            f"# 2026-03-{n + 1:02d}\n\n### 09:00\n- topic number {n}: {word} and more words about {word}\n")
    assert run_memdown("index", timeout=300).returncode == 0
    assert run_memdown("verify", timeout=300).returncode == 0
    _shift_cache_vectors()
    if rebuild:
        assert run_memdown("index", "--rebuild", timeout=300).returncode == 0
    verify = run_memdown("verify", timeout=300)
    assert "Traceback" not in verify.stderr
    assert verify.returncode != 0, verify.stdout + verify.stderr
    assert "vector" in (verify.stdout + verify.stderr).lower()


def _shift_cache_vectors() -> None:
    import sqlite3

    from memdown import paths

    db = sqlite3.connect(paths.embedding_cache_file())
    rows = db.execute("SELECT rowid, vector FROM vectors ORDER BY rowid").fetchall()
    assert len(rows) >= 2
    vectors = [v for _, v in rows]
    shifted = vectors[-1:] + vectors[:-1]
    db.executemany("UPDATE vectors SET vector = ? WHERE rowid = ?", [(v, r) for (r, _), v in zip(rows, shifted)])
    db.commit()
    db.close()
