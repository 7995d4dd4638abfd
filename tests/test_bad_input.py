"""Hostile or odd input never crashes indexing or the CLI, and never prints a traceback."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import REPO_ROOT, FakeEmbedder, run_memdown
from memdown import paths
from memdown.api import Memory
from memdown.cli import cli

SUB_ENV = {"PYTHONPATH": str(REPO_ROOT), "LANCEDB_LOG": "error"}
GOOD = "# 2026-03-14\n\n### 09:00\n- a perfectly normal entry about marmots\n"


@pytest.fixture(autouse=True)
def fake_model(monkeypatch):
    monkeypatch.setattr("memdown.services.upkeep.memory.embedder_from_config", lambda config: FakeEmbedder())


@pytest.fixture
def mem(memory_root: Path) -> Memory:
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    paths.daily_file(memory_root, "2026-03-14").write_text(GOOD)
    return m


def write_big(path: Path, megabytes: int) -> None:
    block = ("### entry\n- " + "lorem ipsum dolor sit amet " * 36 + "\n\n").encode()  # ~1 KB
    with open(path, "wb") as handle:
        for _ in range(megabytes * 1024):
            handle.write(block)


def test_binary_file_is_skipped(mem: Memory):
    (mem.root / "blob.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    report = mem.index()
    assert [s["source"] for s in report.skipped] == ["blob.md"]
    assert "binary" in report.skipped[0]["reason"]
    assert report.chunks_total == 1
    assert mem.search("marmots", mode="text")


def test_invalid_utf8_is_indexed_with_a_warning(mem: Memory):
    (mem.root / "latin1.md").write_bytes("# Café notes\n\n- crème brûlée about quokkas\n".encode("latin-1"))
    report = mem.index()
    assert report.skipped == []
    assert any("latin1.md" in w and "UTF-8" in w for w in report.warnings)
    hit = mem.search("quokkas", mode="text")[0]
    assert hit.source == "latin1.md" and "\ufffd" in hit.text


def test_file_over_the_size_limit_is_skipped(mem: Memory):
    big = mem.root / "huge.md"
    write_big(big, 50)
    assert big.stat().st_size > 50_000_000
    report = mem.index()
    assert [s["source"] for s in report.skipped] == ["huge.md"]
    reason = report.skipped[0]["reason"]
    assert "20 MB" in reason and "\n" not in reason
    assert report.chunks_total == 1  # the good file still indexed


def test_file_that_grows_past_the_limit_loses_its_chunks(mem: Memory, monkeypatch):
    monkeypatch.setenv("MEMDOWN_INDEX_MAX_FILE_MB", "1")
    m = Memory.open(mem.root, embedder=FakeEmbedder())
    f = mem.root / "grows.md"
    f.write_text("# g\n- small for now\n")
    assert m.index().chunks_total == 2
    write_big(f, 2)
    report = Memory.open(mem.root, embedder=FakeEmbedder()).index()
    assert report.skipped and report.chunks_total == 1


def test_cli_skips_big_file_with_one_line(mem: Memory):
    write_big(mem.root / "huge.md", 21)
    result = CliRunner().invoke(cli, ["index"])
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.stderr.splitlines() if "huge.md" in ln]
    assert len(lines) == 1 and lines[0].startswith("skipped huge.md:")
    # naming the file explicitly makes it an error (exit 7), still one line at the end
    named = CliRunner().invoke(cli, ["index", str(mem.root / "huge.md")])
    assert named.exit_code == 7
    assert named.stderr.strip().splitlines()[-1].startswith("Error:")


def test_empty_and_frontmatter_only_files(mem: Memory):
    (mem.root / "empty.md").write_text("")
    (mem.root / "blank.md").write_text("\n\n \n")
    (mem.root / "fm.md").write_text("---\ntitle: nothing but metadata\ntags: [x]\n---\n")
    (mem.root / "headings.md").write_text("# Only\n## Headings\n")
    report = mem.index()
    assert report.skipped == [] and report.chunks_total == 1
    assert mem.table.files["fm.md"].chunks == 0
    assert mem.search("metadata", mode="text") == []


def test_memory_with_no_chunks_at_all(memory_root: Path):
    m = Memory.open(memory_root, embedder=FakeEmbedder())
    m.init()
    (memory_root / "empty.md").write_text("")
    assert m.search("anything") == []
    assert m.stats()["chunks"] == 0


def test_odd_file_names_and_excluded_folders(mem: Memory):
    (mem.root / "notes").mkdir()
    (mem.root / "notes" / "it's a \"quote\" & space.md").write_text("# Q\n- numbat in an odd file name\n")
    (mem.root / "notes" / "ünïcödé.md").write_text("# U\n- echidna with unicode name\n")
    for hidden in ("index/stray.md", "state/s.md", "logs/l.md", ".hidden/h.md", "notes/.dot.md"):
        path = mem.root / hidden
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# nope\n- ocelot must not be indexed\n")
    mem.index()
    assert mem.search("numbat", mode="text")[0].source == "notes/it's a \"quote\" & space.md"
    assert mem.search("numbat", source="notes/it's*")[0].source.startswith("notes/it's")
    assert mem.search("echidna", mode="text")[0].source == "notes/ünïcödé.md"
    assert mem.search("ocelot", mode="text") == []


def test_odd_markdown_does_not_crash(mem: Memory):
    nasty = (
        "```\nunclosed fence # with hash\n"  # never closed
        + "<div>\n<!-- unclosed comment\n"
        + "# " + "x" * 5000 + "\n"
        + "- " * 2000 + "\n"
        + "|a|b|\n|-|-|\n|1|2|\n"
        + "\u0000-free but \u202e bidi and \U0001f600 emoji\n"
        + "y" * 200_000 + "\n"
    )
    (mem.root / "nasty.md").write_text(nasty)
    (mem.root / "crlf.md").write_bytes(b"# CRLF\r\n\r\n### one\r\n- kinkajou line\r\n")
    report = mem.index()
    assert report.skipped == []
    hit = mem.search("kinkajou", mode="text")[0]
    assert hit.heading == "CRLF > one" and hit.start_line == 4


def test_file_vanishing_between_runs(mem: Memory):
    f = mem.root / "gone.md"
    f.write_text("# g\n- vanishing tapir\n")
    mem.index()
    f.unlink()
    m = Memory.open(mem.root, embedder=FakeEmbedder())
    assert m.search("tapir", mode="text") == []


def test_directory_named_like_markdown(mem: Memory):
    (mem.root / "folder.md").mkdir()
    (mem.root / "folder.md" / "inner.md").write_text("# i\n- axolotl inside\n")
    mem.index()
    assert mem.search("axolotl", mode="text")[0].source == "folder.md/inner.md"


# As root, DAC_OVERRIDE reads any file; the index then runs without that capability.
_NO_DAC = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
_INDEX = ("import json, sys\nfrom conftest import FakeEmbedder\nfrom memdown.api import Memory\n"
          "r = Memory.open(sys.argv[1], embedder=FakeEmbedder()).index()\n"
          "print(json.dumps({'skipped': r.skipped, 'chunks': r.chunks_total}))\n")


def test_unreadable_file_is_skipped_and_indexed_once_readable(mem: Memory):
    f = mem.root / "secret.md"
    f.write_text("# s\n- hidden wallaby\n")
    f.chmod(0)
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None or subprocess.run([*_NO_DAC, "true"]).returncode != 0:
            pytest.skip("running as root and cannot drop CAP_DAC_OVERRIDE (no usable setpriv)")
        prefix = _NO_DAC
    try:
        assert subprocess.run([*prefix, "cat", str(f)], capture_output=True).returncode != 0  # really unreadable
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "tests")])}
        done = subprocess.run([*prefix, sys.executable, "-c", _INDEX, str(mem.root)], capture_output=True,
                              text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert [s["source"] for s in report["skipped"]] == ["secret.md"]
        assert "permission denied" in report["skipped"][0]["reason"].lower()
        assert report["chunks"] == 1  # the readable file is indexed all the same
    finally:
        f.chmod(0o644)
    mem.index()
    assert mem.search("wallaby", mode="text")[0].source == "secret.md"


# --- real subprocesses: exit codes and no traceback -----------------------------

def test_subprocess_bad_files_no_traceback(memory_root: Path):
    assert run_memdown("init", env=SUB_ENV).returncode == 0
    (memory_root / "blob.md").write_bytes(b"\x00\x01\x02binary")
    write_big(memory_root / "huge.md", 50)
    (memory_root / "fm.md").write_text("---\na: 1\n---\n")
    (memory_root / "empty.md").write_text("")
    # (no file here yields a chunk, so the real model is never loaded)
    result = run_memdown("index", "--json", env=SUB_ENV, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    data = json.loads(result.stdout)
    assert {s["source"] for s in data["skipped"]} == {"blob.md", "huge.md"}
    assert data["chunks_total"] == 0
    skipped = [ln for ln in result.stderr.splitlines() if ln.startswith("skipped ")]
    assert len(skipped) == 2


def test_subprocess_unknown_flags(memory_root: Path):
    for argv in (["--definitely-not"], ["index", "--nope"], ["search", "q", "--kindd", "x"]):
        result = run_memdown(*argv, env=SUB_ENV, timeout=60)
        assert result.returncode == 2, argv
        assert "Traceback" not in result.stderr
        assert "No such option" in result.stderr


HUGE_QUERY = "why did the billing deploy fail with a timeout " * 45_000  # ~2 MB: ~5 s in known_word_share alone


def test_a_huge_query_is_refused_in_one_line_before_any_work(mem: Memory, monkeypatch):
    """A 2 MB query (an agent pasting a log, a script gone wrong) is refused at once with a line that says
    how long it was and what is taken: never a crash, a hang, or a silent cut."""
    from memdown.errors import UsageError
    from memdown.services.recall.search import MAX_QUERY_CHARS

    mem.index()
    embedded: list[str] = []
    monkeypatch.setattr(FakeEmbedder, "embed_query", lambda self, text: embedded.append(text) or [0.0] * 8)
    with pytest.raises(UsageError) as caught:
        mem.search(HUGE_QUERY)
    message = caught.value.one_line()
    assert "\n" not in message and f"{len(HUGE_QUERY.strip()):,}" in message and f"{MAX_QUERY_CHARS:,}" in message
    assert embedded == []  # refused before the model or the index saw it
    assert mem.search("x" * (MAX_QUERY_CHARS - 8) + " marmots", mode="text") is not None  # at the limit: searched


def test_cli_refuses_a_huge_query_with_one_line(memory_root: Path):
    assert run_memdown("init", env=SUB_ENV).returncode == 0
    from memdown.services.recall.search import MAX_QUERY_CHARS

    words = ["marmots"] * (MAX_QUERY_CHARS // 4)  # what fits in a command line, over the limit
    result = run_memdown("search", *words, env=SUB_ENV, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and f"{MAX_QUERY_CHARS:,}" in lines[0], result.stderr
