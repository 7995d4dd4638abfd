"""Memory that knows when it is stale (#28): citations recorded when an entry is written, judged at recall.

A real git repository; entries cite a function that is rewritten, a file that is deleted, a file that
is renamed and one that is left alone; search --json and the text view say fresh / changed / gone /
moved for each. Also: the capture path records the citations in the anchor, a hand-written entry is
judged from git since its date, and a newer fresh entry outranks an older stale one.
"""
from __future__ import annotations

import json
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memdown.config import Config
from memdown.services.recall.staleness import Judge, newer_first, record, repository_of
from memdown.store.anchors import parse_anchor
from memdown.store.citations import cited_in_text, cited_lines, fingerprint, parse_cites, symbol_span

from conftest import run_memdown
from transcript_factory import TranscriptBuilder

AUTH_V1 = "import hmac\n\n\ndef login(user, password):\n    return check(user, password)\n\n\ndef logout(user):\n    pass\n"
AUTH_V2 = ("import hmac\n\n\ndef login(user, password, otp):\n    verify_otp(user, otp)\n    return check(user, password)\n"
           "\n\ndef logout(user):\n    pass\n")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(repo)}).stdout


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


@pytest.fixture
def repo(isolate_paths: Path) -> Path:
    project = isolate_paths
    git(project, "init", "-q")
    (project / "src").mkdir()
    (project / "src" / "auth.py").write_text(AUTH_V1)
    (project / "src" / "cache.py").write_text("TTL = 30\n\n\ndef get(key):\n    return STORE[key]\n")
    (project / "src" / "legacy.py").write_text("def old():\n    return 1\n")
    (project / "src" / "config.py").write_text("def load():\n    return {}\n")
    (project / "README.md").write_text("# project\n")
    commit(project, "first")
    return project


def _entry(when: str, session: str, text: str, commit_: str = "", cites: str = "") -> str:
    fields = f"session:{session} turn:{session}-t" + (f" commit:{commit_}" if commit_ else "") + (f" cites:{cites}" if cites else "")
    return f"### {when}\n<!-- {fields} -->\n- {text}\n"


def _day(memory_root: Path, day: str, entries: list[str]) -> None:
    folder = memory_root / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{day}.md").write_text(f"# {day}\n\n## Session 09:00\n\n" + "\n".join(entries))


def test_search_says_fresh_changed_moved_gone_in_json_and_text(repo: Path, memory_root: Path):
    run_memdown("init")
    now = datetime.now()
    facts = {
        "login": "`login()` in `src/auth.py` takes a user and a password.",
        "cache": "The cache TTL is set by `TTL` in `src/cache.py`: thirty minutes.",
        "legacy": "`old()` in `src/legacy.py` returns the legacy id.",
        "config": "`load()` in `src/config.py` reads the settings.",
    }
    recorded = {name: record(repository_of(memory_root), text, [], now, live=True) for name, text in facts.items()}
    assert all(c and cites for c, cites in recorded.values())
    assert parse_cites(recorded["login"][1])[0][:2] == ("src/auth.py", "login")
    _day(memory_root, "2026-11-20", [_entry(f"09:1{i}", name, facts[name], *recorded[name]) for i, name in enumerate(facts)])
    # The code moves on: login needs an OTP now, legacy.py is deleted, config.py is renamed; cache.py stays.
    (repo / "src" / "auth.py").write_text(AUTH_V2)
    commit(repo, "login: require an OTP")
    (repo / "src" / "legacy.py").unlink()
    git(repo, "mv", "src/config.py", "src/settings.py")
    commit(repo, "drop legacy, rename config")

    hits = {h["session"]: h for h in json.loads(run_memdown("search", "login cache legacy settings", "--json", "-k", "8").stdout)}
    states = {name: hits[name]["freshness"]["state"] for name in facts}
    assert states == {"login": "changed", "cache": "fresh", "legacy": "gone", "config": "moved"}
    login = hits["login"]["freshness"]["cited"][0]
    assert login["symbol"] == "login" and login["commits_since"] == 1
    assert login["last_change"]["subject"] == "login: require an OTP"
    assert hits["config"]["freshness"]["cited"][0]["moved_to"] == "src/settings.py"
    text = run_memdown("search", "login password", "-k", "8").stdout
    assert "stale: src/auth.py login changed (1 commit(s) since; last" in text
    assert "stale: src/cache.py" not in text  # fresh hits say nothing
    expand = run_memdown("expand", hits["legacy"]["id"]).stdout
    assert "stale: src/legacy.py old deleted" in expand
    listed = {item["session"]: item["freshness"]["state"] for item in json.loads(run_memdown("stale", "--json").stdout)}
    assert listed == {"login": "changed", "legacy": "gone", "config": "moved"}  # the fresh one is not listed
    assert "[changed]" in run_memdown("stale").stdout
    from memdown.services.recall.digest import build_digest

    digest = str(build_digest(memory_root, max_chars=5000, max_entries=10)[0])
    assert "[stale: src/auth.py login changed since]" in digest and "[stale: src/cache.py" not in digest


def test_a_hand_written_entry_is_judged_from_git_since_its_date(repo: Path, memory_root: Path):
    run_memdown("init")
    today = datetime.now().strftime("%Y-%m-%d")
    _day(memory_root, today, ["### 23:59\n- We decided `login()` in `src/auth.py` only needs a password.\n"])
    judge = Judge(memory_root, repository_of(memory_root))
    section = (memory_root / "memory" / f"{today}.md").read_text()
    assert judge.judge("", "", section, today)["state"] == "fresh"
    (repo / "src" / "auth.py").write_text(AUTH_V2)  # an uncommitted edit counts too: it is what the code says now
    judge = Judge(memory_root, repository_of(memory_root))
    assert judge.judge("", "", section, today)["state"] == "changed"


def test_capture_records_the_commit_and_the_turns_files_in_the_anchor(repo: Path, memory_root: Path, tmp_path: Path):
    from memdown.services.capture.record import record_session

    run_memdown("init")
    b = TranscriptBuilder(cwd=str(repo))
    b.prompt("Make login take an OTP")
    b.tool("Edit", {"file_path": str(repo / "src" / "auth.py"), "old_string": "a", "new_string": "b"}, "ok")
    b.reply("Changed `login()` in `src/auth.py` to take an OTP.")
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    for line in b.lines:
        line["timestamp"] = stamp  # a turn that just happened: the working tree holds its result
    config = Config()
    config.values["summarizer"]["use_claude"] = False
    config.values["archive"]["enabled"] = False
    assert record_session(memory_root, b.write(tmp_path / "s.jsonl"), b.session_id, config=config).written == 1
    day = next((memory_root / "memory").glob("*.md")).read_text()
    anchor = parse_anchor(day)
    assert anchor is not None and anchor.commit == git(repo, "rev-parse", "HEAD").strip()[:12]
    cites = {c.path: c for c in parse_cites(anchor.cites)}
    assert "src/auth.py" in cites and cites["src/auth.py"].fingerprint


def test_a_newer_fresh_entry_outranks_an_older_stale_one_about_the_same_code():
    class H:
        def __init__(self, date: str, state: str) -> None:
            self.date, self.freshness = date, {"state": state, "cited": [{"path": "src/auth.py", "symbol": "login"}]}

    old, new, other = H("2026-10-01", "changed"), H("2026-11-20", "fresh"), H("2026-11-01", "fresh")
    other.freshness["cited"] = [{"path": "src/x.py", "symbol": ""}]
    assert newer_first([old, other, new]) == [other, new, old]
    assert newer_first([new, old]) == [new, old]


def test_citations_are_read_from_text_and_symbols_found_in_any_language():
    pairs = cited_in_text("Fixed `login()` in `src/auth.py`; see docs/auth.md, e.g. https://x.io/a/b.py. Ran `pytest -q`.")
    assert pairs == [("src/auth.py", "login"), ("docs/auth.md", "")]
    go = "package auth\n\nfunc (s *Service) Login(u string) error {\n\treturn nil\n}\n\nfunc Other() {}\n"
    assert symbol_span(go, "Login") == (2, 4)
    ts = "export const MAX = 3;\nexport async function login(a: string) {\n  return a;\n}\n"
    assert symbol_span(ts, "login") == (1, 3)
    assert cited_lines("def f():\n    pass\n", "missing") is None
    assert fingerprint("a  \n\nb") == fingerprint("a\nb")
