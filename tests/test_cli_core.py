"""The core CLI (init, index, search, expand, stats) through click's CliRunner
with the FakeEmbedder, plus a few real subprocesses for exit codes and tracebacks."""
from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import REPO_ROOT, FakeEmbedder, run_memdown
from memdown import paths
from memdown.cli import cli

SUB_ENV = {"PYTHONPATH": str(REPO_ROOT), "LANCEDB_LOG": "error"}

DAY = """\
# 2026-03-14

## Session 09:12

### 09:40
<!-- session:sess-aaa turn:t-1 transcript:/tmp/a.jsonl -->
- Switched the quote cache TTL from 900s to 300s (POR-412).

### 10:15
<!-- session:sess-aaa turn:t-2 -->
- Postgres migration 0019 needed pg_trgm; Redis pool size raised too.

## Session 15:00

### 15:10
<!-- session:sess-bbb turn:t-7 -->
- Celery retries flooded the dead letter queue; added exponential backoff.
"""


@pytest.fixture(autouse=True)
def fake_model(monkeypatch):
    """The CLI builds its embedder from config: give it the fake one."""
    monkeypatch.setattr("memdown.services.upkeep.memory.embedder_from_config", lambda config: FakeEmbedder())


def md(*args: str):
    return CliRunner().invoke(cli, list(args))


def ok(*args: str):
    result = md(*args)
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    return result


def one_line_error(result, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.output)
    err = result.stderr.strip()
    assert "Traceback" not in result.output
    last = err.splitlines()[-1]
    assert last.startswith("Error: "), err
    return last


@pytest.fixture
def root(memory_root: Path) -> Path:
    ok("init")
    paths.daily_file(memory_root, "2026-03-14").write_text(DAY)
    (memory_root / "learnings.md").write_text("# Learnings\n\n- Pin ruff in CI and in dev requirements.\n")
    return memory_root


def test_init_is_idempotent(memory_root: Path):
    first = ok("init")
    assert "created" in first.stdout and (memory_root / "memory").is_dir()
    gitignore = (memory_root / ".gitignore").read_text()
    assert "index/" in gitignore
    second = ok("init")
    assert "created" not in second.stdout
    assert (memory_root / ".gitignore").read_text() == gitignore


def test_index_json_and_text(root: Path):
    data = json.loads(ok("index", "--json").stdout)
    for key in ("files_indexed", "chunks_added", "chunks_removed", "embedded", "seconds"):
        assert key in data
    assert data["files_indexed"] == 2 and data["chunks_added"] == 4 and data["embedded"] == 4
    assert data["rebuilt"] is True
    with open(paths.daily_file(root, "2026-03-14"), "a") as f:
        f.write("\n### 16:00\n- appended entry\n")
    data = json.loads(ok("index", "--json").stdout)
    assert (data["files_indexed"], data["chunks_added"], data["chunks_removed"], data["embedded"]) == (1, 1, 0, 1)
    text = ok("index").stdout
    assert "0 file(s) indexed" in text and "0 embedded" in text
    rebuilt = ok("index", "--rebuild", "--json")
    assert json.loads(rebuilt.stdout)["rebuilt"] is True
    assert "rebuild requested" in ok("index", "--rebuild").stderr


def test_index_named_file(root: Path):
    ok("index")
    f = paths.daily_file(root, "2026-03-14")
    f.write_text(f.read_text() + "\n### 17:00\n- another\n")
    data = json.loads(ok("index", str(f), "--json").stdout)
    assert data["files_indexed"] == 1 and data["embedded"] == 1
    one_line_error(md("index", "/etc/hostname"), 7)


def test_search_json_fields(root: Path):
    ok("index")
    hits = json.loads(ok("search", "quote", "cache", "TTL", "--json").stdout)
    assert hits
    for hit in hits:
        assert {"id", "score", "kind", "source", "start_line", "end_line", "heading", "date", "session", "turn",
                "transcript", "text"} <= set(hit)
    top = hits[0]
    assert top["heading"] == "2026-03-14 > Session 09:12 > 09:40"
    assert (top["session"], top["turn"], top["transcript"]) == ("sess-aaa", "t-1", "/tmp/a.jsonl")
    assert top["date"] == "2026-03-14" and top["kind"] == "summary"
    assert "<!--" not in top["text"]


@pytest.mark.parametrize("mode", ["hybrid", "vector", "text"])
def test_search_modes(root: Path, mode: str):
    hits = json.loads(ok("search", "celery retries dead letter queue", "--mode", mode, "-k", "2", "--json").stdout)
    assert 1 <= len(hits) <= 2
    assert hits[0]["session"] == "sess-bbb"


def test_search_builds_missing_index_with_a_notice(root: Path):
    result = ok("search", "postgres")
    assert "index built" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "memdown expand" in result.stdout


def test_search_filters(root: Path):
    ok("index")
    hits = json.loads(ok("search", "ruff", "--kind", "learning", "--json").stdout)
    assert hits and {h["kind"] for h in hits} == {"learning"}
    hits = json.loads(ok("search", "postgres", "--source", "memory/*", "--json").stdout)
    assert hits and {h["source"] for h in hits} == {"memory/2026-03-14.md"}
    assert json.loads(ok("search", "postgres", "--since", "2026-03-15", "--json").stdout) == []
    assert json.loads(ok("search", "postgres", "--until", "2026-03-14", "--json").stdout)
    (root / "it's.md").write_text("# q\n- wombat in a quoted file name\n")
    hits = json.loads(ok("search", "wombat", "--source", "it's.md", "--json").stdout)
    assert [h["source"] for h in hits] == ["it's.md"]
    assert "no matches" in ok("search", "wombat", "--source", "nomatch/*").stdout


@pytest.mark.parametrize("args", [
    ["--since", "last week"], ["--until", "2026-02-30"], ["--kind", "nope"], ["-k", "0"], [],
])
def test_search_usage_errors(root: Path, args: list[str]):
    query = [] if not args else ["postgres"]
    one_line_error(md("search", *query, *args), 2)


def test_unknown_flags_exit_2(root: Path):
    for argv in (["search", "x", "--nope"], ["index", "--fast"], ["expand", "abcd", "--all"], ["stats", "-z"],
                 ["--bogus"], ["no-such-command"]):
        result = md(*argv)
        assert result.exit_code == 2, argv
        assert "Traceback" not in result.output


def test_concepts(root: Path):
    ok("index")
    matches = json.loads(ok("search", "--concept", "postgres", "--concept", "quote cache", "--json").stdout)
    assert [m["group"] for m in matches] == ["session:sess-aaa"]
    assert len(matches[0]["hits"]) == 2
    none = ok("search", "--concept", "celery", "--concept", "pg_trgm")
    assert "no session or file matches every concept" in none.stdout
    one_line_error(md("search", "--concept", "celery"), 2)


def test_expand_cli(root: Path):
    hit = json.loads(ok("search", "pg_trgm", "--mode", "text", "--json").stdout)[0]
    out = ok("expand", hit["id"][:8]).stdout
    assert "heading: 2026-03-14 > Session 09:12 > 10:15" in out
    assert "<!-- session:sess-aaa turn:t-2 -->" in out
    assert "session: sess-aaa" in out
    data = json.loads(ok("expand", hit["id"][:10], "--json").stdout)
    assert data["id"] == hit["id"]
    lines = DAY.split("\n")
    assert data["text"] == "\n".join(lines[data["start_line"] - 1 : data["end_line"]])
    assert data["text"].startswith("### 10:15")
    wide = json.loads(ok("expand", hit["id"], "--lines", "3", "--json").stdout)
    assert (wide["start_line"], wide["end_line"]) == (data["start_line"] - 3, data["end_line"] + 3)
    one_line_error(md("expand", hit["id"], "--lines", "-1"), 2)


def test_expand_errors(root: Path):
    ok("index")
    assert "no chunk with id" in one_line_error(md("expand", "ffffffffff"), 6)
    one_line_error(md("expand", "not-an-id"), 2)


def test_expand_ambiguous_prefix_exit_2(memory_root: Path):
    ok("init")
    (memory_root / "many.md").write_text("# M\n\n" + "".join(f"## n{i}\n- fact {i}\n\n" for i in range(700)))
    ok("index")
    from memdown.api import Memory

    mem = Memory.open(memory_root, embedder=FakeEmbedder())
    mem.ensure_index(refresh=False)
    ids = [r["id"] for r in mem.table.table.search().select(["id"]).limit(None).to_list()]
    counts = collections.Counter(i[:4] for i in ids)
    prefix = sorted(p for p, n in counts.items() if n > 1)[0]
    line = one_line_error(md("expand", prefix), 2)
    assert "several chunks" in line


def test_stats_json(root: Path):
    ok("index")
    data = json.loads(ok("stats", "--json").stdout)
    assert data["files"] == 2 and data["chunks"] == 4
    assert data["chunks_by_kind"] == {"learning": 1, "summary": 3}
    assert data["index_bytes"] > 0 and data["model"] and data["last_indexed"]
    text = ok("stats").stdout
    assert "summary: 3" in text and "last indexed:" in text


def test_no_memory_root_in_process(tmp_path: Path):
    for argv in (["search", "x"], ["index"], ["stats"], ["expand", "abcd"]):
        line = one_line_error(md(*argv, "--dir", str(tmp_path / "missing")), 3)
        assert "memdown init" in line


# --- real subprocesses ---------------------------------------------------------

def test_subprocess_no_memory_root(tmp_path: Path):
    result = run_memdown("search", "anything", env={**SUB_ENV, "MEMDOWN_DIR": str(tmp_path / "none" / ".memdown")},
                         timeout=60)
    assert result.returncode == 3
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("Error: no memory at")


def test_subprocess_usage_errors():
    assert run_memdown("init", env=SUB_ENV).returncode == 0
    for argv, code in ((["search", "x", "--since", "2026-99-99"], 2), (["search", "--frobnicate"], 2),
                       (["expand", "zz"], 2)):
        result = run_memdown(*argv, env=SUB_ENV, timeout=60)
        assert result.returncode == code, (argv, result.stderr)
        assert "Traceback" not in result.stderr
        assert result.stderr.strip().splitlines()[-1].startswith("Error:")
