"""End to end with the real packaged model and real LanceDB, through real
`python -m memdown` subprocesses. One memory is built per module and reused;
the tests run in file order (later ones change the markdown)."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_memdown

pytestmark = pytest.mark.integration

DAY1 = """\
# 2026-05-04

## Session 09:03

### 09:03
<!-- session:1f0c9a52-aaaa turn:7d1e-0903 transcript:~/.claude/projects/p/1f0c9a52-aaaa.jsonl -->
- POR-412: merchants saw a different UPS price at checkout than on the quote screen.
- Cause: rate quotes were cached in Redis for 15 minutes and the carrier's rate card changed mid-window.

### 09:41
<!-- session:1f0c9a52-aaaa turn:7d1e-0941 transcript:~/.claude/projects/p/1f0c9a52-aaaa.jsonl -->
- Decision: shorten the quote cache TTL from 900s to 300s and put the carrier's rate_version into the cache key.
- Added a dedicated QUOTE_CACHE_TTL setting instead of changing the shared REDIS_CACHE_TTL.

## Session 14:20

### 14:20
<!-- session:22b7e001-bbbb turn:9a9a-1420 -->
- The nightly Celery job that reconciles invoices crashed with an out-of-memory error.
- Fixed it by streaming rows from Postgres with a server-side cursor instead of loading all of them.
"""

DAY2 = """\
# 2026-05-05

## Session 10:10

### 10:10
<!-- session:33c1d0de-cccc turn:0b0b-1010 -->
- Set up Terraform remote state in an S3 bucket with DynamoDB locking for the staging environment.

### 11:02
<!-- session:33c1d0de-cccc turn:0b0b-1102 -->
- The React checkout page flickered because two useEffect hooks fought over the selected address.
- Moved the address into a single reducer; flicker gone.
"""

LEARNINGS = """\
# Learnings

- Never change REDIS_CACHE_TTL casually: cache_set falls back to it for every caller.
- Run `pytest -q tests/unit` before pushing; the integration suite takes nine minutes.
"""


def fifty(day: str = "2026-06-01") -> str:
    topics = ["logging", "retries", "timeouts", "pagination", "auth tokens", "feature flags", "metrics"]
    return f"# {day}\n\n## Session 08:00\n\n" + "".join(
        f"### 08:{i:02d}\n<!-- session:44d2-dddd turn:t{i:02d} -->\n"
        f"- Step {i}: reviewed {topics[i % len(topics)]} in service number {i}.\n\n"
        for i in range(50)
    )


class Env:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.root = base / "project" / ".memdown"
        home = base / "home"
        self.env = {
            "PYTHONPATH": str(REPO_ROOT),
            "LANCEDB_LOG": "error",
            "HOME": str(home),
            "MEMDOWN_HOME": str(home / ".local" / "share" / "memdown"),
            "MEMDOWN_CONFIG": str(home / ".config" / "memdown" / "config.toml"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "MEMDOWN_DIR": str(self.root),
            "XDG_RUNTIME_DIR": str(base / "rt"),
        }
        (base / "rt").mkdir(mode=0o700, parents=True, exist_ok=True)

    def run(self, *args: str, ok: bool = True, timeout: float = 300):
        result = run_memdown(*args, env=self.env, timeout=timeout)
        assert "Traceback" not in result.stderr, result.stderr
        if ok:
            assert result.returncode == 0, (args, result.returncode, result.stderr)
        return result

    def json(self, *args: str):
        return json.loads(self.run(*args, "--json").stdout)

    def markdown_digest(self) -> str:
        h = hashlib.sha256()
        for p in sorted(self.root.rglob("*.md")):
            if "index" not in p.relative_to(self.root).parts:
                h.update(str(p).encode() + p.read_bytes())
        return h.hexdigest()


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Env:
    e = Env(tmp_path_factory.mktemp("integ"))
    e.run("init")
    mem = e.root / "memory"
    (mem / "2026-05-04.md").write_text(DAY1)
    (mem / "2026-05-05.md").write_text(DAY2)
    (mem / "2026-06-01.md").write_text(fifty())
    (e.root / "learnings.md").write_text(LEARNINGS)
    e.first_digest = e.markdown_digest()
    e.first_report = e.json("index")
    return e


def test_first_index_embeds_everything(env: Env):
    report = env.first_report
    assert report["rebuilt"] is True
    assert report["files_indexed"] == 4
    assert report["chunks_added"] == report["chunks_total"] == 3 + 2 + 50 + 1
    assert report["embedded"] == report["chunks_total"]
    assert env.markdown_digest() == env.first_digest  # indexing never writes markdown


def test_hybrid_search_finds_the_right_section(env: Env):
    hits = env.json("search", "why was the quote cache TTL shortened", "-k", "3")
    top = hits[0]
    assert top["source"] == "memory/2026-05-04.md"
    assert top["heading"] == "2026-05-04 > Session 09:03 > 09:41"
    assert top["session"] == "1f0c9a52-aaaa" and top["turn"] == "7d1e-0941"
    assert top["date"] == "2026-05-04" and top["kind"] == "summary"
    assert "<!--" not in top["text"]
    lines = DAY1.split("\n")
    assert lines[top["start_line"] - 1].startswith("- Decision: shorten the quote cache TTL")


def test_vector_search_understands_paraphrase(env: Env):
    hits = env.json("search", "background task ran out of RAM", "--mode", "vector", "-k", "3")
    assert hits[0]["turn"] == "9a9a-1420"
    hits = env.json("search", "UI element blinking on the payment screen", "--mode", "vector", "-k", "3")
    assert hits[0]["turn"] == "0b0b-1102"


def test_text_search_and_filters(env: Env):
    hits = env.json("search", "Terraform DynamoDB", "--mode", "text")
    assert hits[0]["turn"] == "0b0b-1010"
    hits = env.json("search", "REDIS_CACHE_TTL", "--kind", "learning")
    assert hits and {h["kind"] for h in hits} == {"learning"}
    hits = env.json("search", "cache", "--since", "2026-05-05", "--until", "2026-05-31")
    assert all("2026-05-05" <= h["date"] <= "2026-05-31" for h in hits)
    hits = env.json("search", "Redis cache", "--source", "memory/2026-05-0*")
    assert hits and {h["source"] for h in hits} <= {"memory/2026-05-04.md", "memory/2026-05-05.md"}


def test_concept_search(env: Env):
    matches = env.json("search", "--concept", "Redis quote cache", "--concept", "UPS rate card")
    assert matches and matches[0]["group"] == "session:1f0c9a52-aaaa"
    assert all(m["group"] != "session:33c1d0de-cccc" for m in matches)


def test_expand_shows_section_with_anchor(env: Env):
    hit = env.json("search", "Celery invoices out-of-memory", "-k", "1")[0]
    out = env.run("expand", hit["id"][:10]).stdout
    assert "<!-- session:22b7e001-bbbb turn:9a9a-1420 -->" in out
    assert "server-side cursor" in out
    assert "heading: 2026-05-04 > Session 14:20 > 14:20" in out
    data = env.json("expand", hit["id"][:10], "--lines", "2")
    lines = DAY1.split("\n")
    assert data["text"] == "\n".join(lines[data["start_line"] - 1 : data["end_line"]])
    assert data["text"].count("\n") >= 4
    missing = env.run("expand", "fffffffffff0", ok=False)
    assert missing.returncode == 6 and len(missing.stderr.strip().splitlines()) == 1


def test_stats(env: Env):
    data = env.json("stats")
    assert data["files"] == 4 and data["chunks"] == 56
    assert data["chunks_by_kind"] == {"learning": 1, "summary": 55}
    assert data["index_model"].startswith("sentence-transformers/all-MiniLM-L6-v2")
    assert data["index_bytes"] > 0 and data["last_indexed"]


def test_deleted_index_rebuilds_without_embedding(env: Env):
    shutil.rmtree(env.root / "index")
    report = env.json("index")
    assert report["rebuilt"] is True and report["embedded"] == 0
    assert report["chunks_total"] == 56


def test_damaged_index_is_rebuilt_by_search(env: Env):
    shutil.rmtree(env.root / "index" / "chunks.lance" / "_versions")
    result = env.run("search", "Terraform remote state", "--json")
    assert json.loads(result.stdout)[0]["turn"] == "0b0b-1010"
    notes = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(notes) == 1 and "index built" in notes[0]


def test_append_one_section_embeds_one(env: Env):
    f = env.root / "memory" / "2026-06-01.md"
    with open(f, "a") as handle:
        handle.write("### 09:30\n<!-- session:44d2-dddd turn:t99 -->\n- Step 99: migrated the cron jobs to Kubernetes CronJobs.\n")
    report = env.json("index")
    assert report["embedded"] == 1
    assert (report["files_indexed"], report["chunks_added"], report["chunks_removed"]) == (1, 1, 0)
    hit = env.json("search", "Kubernetes CronJobs", "-k", "1")[0]
    assert hit["turn"] == "t99"


@pytest.mark.parametrize("prefix", ["\n\n", "<!-- exported from the team wiki\n     on 2026-06-02 -->\n"])
def test_insert_at_top_embeds_nothing_and_moves_lines(env: Env, prefix: str):
    f = env.root / "memory" / "2026-06-01.md"
    before = env.json("search", "reviewed pagination in service number 17", "--mode", "text", "-k", "1")[0]
    f.write_text(prefix + f.read_text())
    report = env.json("index")
    assert report["embedded"] == 0
    assert (report["chunks_added"], report["chunks_removed"]) == (0, 0)
    after = env.json("search", "reviewed pagination in service number 17", "--mode", "text", "-k", "1")[0]
    assert after["id"] == before["id"]
    assert after["start_line"] == before["start_line"] + 2
    lines = f.read_text().split("\n")
    assert "service number 17." in lines[after["start_line"] - 1]
    exp = env.json("expand", after["id"])
    assert exp["text"].startswith("### 08:17") and exp["start_line"] == after["start_line"] - 2


def test_unavailable_model_fails_in_one_line_and_keeps_index(env: Env):
    # The person's own (global) config: a project's committed embedding.model counts only after
    # `memdown config approve` (docs/trust.md), and this test is about the missing model, not approval.
    env.run("config", "set", "--global", "embedding.model", "BAAI/bge-small-en-v1.5")
    try:
        result = env.run("index", ok=False, timeout=120)
        assert result.returncode == 4
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "not available offline" in lines[0], result.stderr
    finally:
        env.run("config", "set", "--global", "embedding.model", "sentence-transformers/all-MiniLM-L6-v2")
    report = env.json("index")
    assert report["rebuilt"] is False and report["embedded"] == 0


def test_markdown_untouched_except_by_the_test(env: Env):
    f = env.root / "memory" / "2026-06-01.md"
    text = f.read_text()
    digest = env.markdown_digest()
    env.run("index", "--rebuild")
    assert env.markdown_digest() == digest and f.read_text() == text
    assert os.path.exists(env.root / ".gitignore")
