"""Signals in their place (issue #19, item 2): dated when said, out of default search, looking writes nothing,
the strongest few candidates first, and no conversation fragment proposed as a CLAUDE.md rule."""
from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from pathlib import Path

from conftest import run_memdown

from memdown.config import load_config
from memdown.learning import review
from memdown.learning.candidates import actionable
from memdown.services.recall.search import Hit, SearchOptions, build_where
from memdown.services.recall.windows import prefer_newer
from memdown.signals import store
from memdown.signals.store import Signal

NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.timezone.utc)


def add(root: Path, text: str, kind: str = "correction", session: str = "s1", conf: int = 2, days_ago: int = 0,
        seen: str = "") -> Signal:
    when = NOW - dt.timedelta(days=days_ago)
    sig = Signal(kind, text, conf, session=session, turn=f"{session}-{text[:12]}", pattern=f"en.{kind}.x",
                 captured=store.iso(when), seen=seen)
    return store.append(root, [sig], now=when)[0]


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "state" not in p.relative_to(root).parts
            and not p.name.startswith(".")}


def test_a_signal_is_filed_under_the_day_it_was_said(memory_root):
    sig = add(memory_root, "no, use pnpm not npm", seen="2026-04-03T09:15:00Z")
    assert sig.path.name == "2026-04-03.md" and sig.id.startswith("SIG-20260403-")
    assert sig.captured.startswith("2026-11-22")  # when it was mined stays on the signal
    today = add(memory_root, "always run make lint before committing", "convention")
    assert today.path.name == "2026-11-22.md"  # no turn time (a hook's failure note): the capture day


def test_signals_are_out_of_default_search_and_found_by_kind():
    class _Table:
        files: list[str] = []

    where = build_where(_Table(), SearchOptions()) or ""
    assert "'signal'" in where and "NOT IN" in where
    assert build_where(_Table(), SearchOptions(kind="signal")) == "kind = 'signal'"


def _hit(kind: str, date: str, score: float) -> Hit:
    return Hit(id=f"{kind}{date}", score=score, kind=kind, source=f"{kind}/{date}.md", start_line=1, end_line=2,
               heading="", date=date, session="s", turn="t", transcript="", text="pnpm install for the web app")


def test_a_signal_is_never_the_likely_current_version_of_an_entry():
    entry, signal = _hit("summary", "2026-04-02", 1.0), _hit("signal", "2026-11-20", 0.99)
    ranked = prefer_newer([entry, signal])
    assert ranked[0] is entry
    assert not any("likely current" in n for n in signal.notes)


def test_looking_changes_no_committed_file(memory_root):
    from memdown.store.layout import init_layout

    init_layout(memory_root)
    add(memory_root, "no, use pnpm not npm", days_ago=3)
    add(memory_root, "always run make lint before committing", "convention", days_ago=1)
    legacy = memory_root / "signals" / "2026-11-01.md"
    legacy.write_text(store.HEADER.format(day="2026-11-01") + store.render(Signal(
        "convention", "we deploy with `fly deploy` from main only", 2, status="analyzed", id="SIG-20261101-0001",
        session="s9", turn="t9", captured="2026-11-01T10:00:00Z")))
    subprocess.run(["git", "init", "-q", str(memory_root.parent)], check=True)
    before = _files(memory_root)
    for args in (("reflect", "list"), ("reflect", "list", "--json"), ("reflect", "stats"),
                 ("reflect", "show", "SIG-20261101-0001")):
        proc = run_memdown(*args)
        assert proc.returncode == 0, proc.stderr
    assert _files(memory_root) == before
    listed = json.loads(run_memdown("reflect", "list", "--json").stdout)
    assert "SIG-20261101-0001" in {c["id"] for c in listed["candidates"]}  # an old `analyzed` line still counts
    seen = json.loads((memory_root / "state" / "review-seen.json").read_text())
    assert "SIG-20261101-0001" in seen
    assert "state/" in (memory_root / ".gitignore").read_text()


def test_the_queue_shows_the_strongest_few_first_and_says_how_many_wait(memory_root):
    rules = ["we use pnpm for installs", "docker images are built by CI only", "pytest runs with -x locally",
             "cargo fmt before each commit", "ruff replaces flake8 here", "mypy strict mode stays on",
             "eslint config lives in packages/config", "prettier width is 100 columns", "vitest replaced jest",
             "poetry lock is committed", "terraform state sits in the s3 bucket", "kubectl contexts are per stage",
             "gradle wrapper version is pinned", "brew bundle installs the toolchain"]
    for n, text in enumerate(rules):
        add(memory_root, text, "convention", session=f"s{n}", conf=1, days_ago=20 - n)
    strong = add(memory_root, "never push to main without a review", "convention", session="late", conf=3)
    proc = run_memdown("reflect", "list")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("15 candidate(s), strongest first")
    assert lines[1].startswith(f"1. {strong.id}")
    assert sum(1 for line in lines if re.match(r"\d+\. SIG-", line)) == 10
    assert any("5 more wait" in line for line in lines)
    everything = json.loads(run_memdown("reflect", "list", "--json").stdout)
    assert everything["total"] == 15 and len(everything["candidates"]) == 15 and everything["more"] == 0


def test_conversation_fragments_are_not_proposed_as_rules(memory_root):
    kept = add(memory_root, "no, use pnpm not npm", session="a")
    for n, text in enumerate(["I don't like any approach.", "我是說改成一個.", "ok. uh. no.", "WRONG",
                              "do we not have that already?", "never do that"]):
        add(memory_root, text, session=f"f{n}")
    found = review.analyze(memory_root, config=load_config(memory_root), persist=False, now=NOW)
    assert [c.id for c in found.candidates] == [kept.id]
    assert found.held == 6


def test_the_actionable_bar_keeps_real_rules():
    for text in ["Use pnpm not npm.", "Be concise.", "Answer in Chinese.", "We use vitest.",
                 "STOP and ask LOGAN before doing anything drastic.", "以后我说保存到ob中，都要放到inbox目录",
                 "應該依照 role.name 為主", 'Name the sync steps "bootstrap", "backfill" and "delta".',
                 "The docker config is in deploy/docker-compose.yml."]:
        assert actionable(text), text


def test_a_failure_and_its_fix_mined_later_are_dated_when_they_happened(tmp_path, memory_root):
    from transcript_factory import TranscriptBuilder

    from memdown.config import Config
    from memdown.signals.mining import mine_session

    b = TranscriptBuilder()
    b.prompt("create the database")
    pg = "Exit code 2\npsql: error: connection to server on socket \"/tmp/.s.PGSQL.5432\" failed"
    b.tool("Bash", {"command": "psql -c 'create database shop'"}, pg, is_error=True)
    b.tool("Bash", {"command": "docker compose up -d db && psql -c 'create database shop'"}, "CREATE DATABASE")
    b.reply("Created the database after starting the db container.")
    for line in b.lines:
        line["timestamp"] = "2026-04-07" + line["timestamp"][10:]
    path = b.write(tmp_path / f"{b.session_id}.jsonl")
    found = mine_session(memory_root, path, b.session_id, config=Config())
    fixed = [s for s in found if s.extra.get("fix")]
    assert fixed and all(s.path.name == "2026-04-07.md" for s in fixed), [(s.type, s.path) for s in found]
