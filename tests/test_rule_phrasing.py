"""Promoted learnings read as rules a person would write; the quote stays in .memdown as evidence."""
from __future__ import annotations

import datetime as dt
import os
import re
import stat
from pathlib import Path

import pytest

from conftest import run_memdown
from memdown.config import load_config
from memdown.learning import learnings, phrasing, review
from memdown.signals import store
from memdown.signals.store import Signal

NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.timezone.utc)
QUOTE = 'I like the names "bootstrap", "backfill", and "delta" syncs for the 3 steps.'


def signal(root: Path, text: str, kind: str = "preference") -> Signal:
    return store.append(root, [Signal(kind, text, 3, session="s1", turn="t1", pattern=f"en.{kind}.x",
                                      captured=store.iso(NOW))], now=NOW)[0]


def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: str, code: int = 0) -> Path:
    """A `claude` on PATH that logs its stdin and answers ``reply``."""
    folder = tmp_path / "fakebin"
    folder.mkdir(exist_ok=True)
    log = tmp_path / "claude-calls.log"
    script = folder / "claude"
    script.write_text(f"#!/bin/sh\ncat >> '{log}'\necho \"--- disabled=$MEMDOWN_DISABLE\" >> '{log}'\nprintf '%s\\n' '{reply}'\nexit {code}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return log


def claude_md(root: Path) -> str:
    path = root.parent / "CLAUDE.md"
    return path.read_text() if path.exists() else ""


@pytest.mark.parametrize("quote, rule", [
    (QUOTE, 'Use the names "bootstrap", "backfill", and "delta" syncs for the 3 steps.'),
    ("you should run the tests with uv run pytest", "Run the tests with uv run pytest."),
    ("I want you to ask before deleting files", "Ask before deleting files."),
    ("we don't squash merge here", "Don't squash merge here."),
    ("why are you using npm?", "Don't use npm."),
    ("you forgot to update the changelog", "Remember to update the changelog."),
    ("it's pnpm, not npm", "Use pnpm, not npm."),
    ("please always use uv, thanks", "Always use uv."),
    ("Use pnpm, not npm.", "Use pnpm, not npm."),
])
def test_the_template_turns_a_quote_into_an_imperative(quote: str, rule: str):
    assert phrasing.template_rule(quote) == rule


def test_claude_phrases_the_rule_and_promote_writes_exactly_what_show_showed(memory_root: Path, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch):
    log = fake_claude(tmp_path, monkeypatch, "Name the three sync steps bootstrap, backfill and delta.")
    sig = signal(memory_root, QUOTE)
    shown = review.show(memory_root, sig.id, config=load_config(memory_root))["rule"]
    assert shown == "Name the three sync steps bootstrap, backfill and delta."
    result = review.promote(memory_root, sig.id, "project", now=NOW, config=load_config(memory_root))
    assert result["rule"] == shown
    line = next(line for line in claude_md(memory_root).splitlines() if "memdown:" in line)
    assert re.sub(r"^- | <!-- memdown:.*-->$", "", line) == shown  # the line is what was shown, byte for byte
    assert QUOTE not in claude_md(memory_root) and "I like" not in claude_md(memory_root)
    kept = learnings.get(memory_root, result["learning"])
    assert kept.text == shown and kept.extra["evidence"] == QUOTE  # the user's own words, in .memdown only
    calls = log.read_text()
    assert calls.count("---") == 1, "show and promote must phrase once (the second answer could differ)"
    assert QUOTE in calls and "--- disabled=1" in calls  # memdown's hooks stay off in its own claude -p


@pytest.mark.parametrize("reply, code", [("NONE", 0), ("Sure! Here is the rule:\n- Use x.", 0), ("Use x.", 1),
                                         ("x" * 400, 0)])
def test_a_bad_claude_answer_falls_back_to_the_template(memory_root: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch, reply: str, code: int):
    fake_claude(tmp_path, monkeypatch, reply, code)
    sig = signal(memory_root, QUOTE)
    result = review.promote(memory_root, sig.id, "project", now=NOW, config=load_config(memory_root))
    assert result["rule"] == phrasing.template_rule(QUOTE)


def test_without_claude_the_template_writes_the_rule(memory_root: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    sig = signal(memory_root, "you forgot to update the changelog", kind="correction")
    result = review.promote(memory_root, sig.id, "project", now=NOW, config=load_config(memory_root))
    assert "- Remember to update the changelog. <!-- memdown:" in claude_md(memory_root)
    assert learnings.get(memory_root, result["learning"]).extra["evidence"] == "you forgot to update the changelog"


def test_text_still_overrides_and_the_cli_prints_the_written_line(memory_root: Path, isolate_paths: Path,
                                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake_claude(tmp_path, monkeypatch, "Something else entirely.")
    sig = signal(memory_root, QUOTE)
    proc = run_memdown("reflect", "promote", sig.id, "--to", "project", "--text", "Call the steps bootstrap, backfill, delta.")
    assert proc.returncode == 0, proc.stderr
    assert "rule: Call the steps bootstrap, backfill, delta.\n" in proc.stdout
    assert "- Call the steps bootstrap, backfill, delta. <!-- memdown:" in claude_md(memory_root)
    assert "Something else" not in claude_md(memory_root)


def test_undo_of_the_last_rule_leaves_no_empty_section(memory_root: Path):
    (memory_root.parent).mkdir(parents=True, exist_ok=True)
    (memory_root.parent / "CLAUDE.md").write_text("# Project\n\nBuild with make.\n")
    sig = signal(memory_root, "use pnpm, not npm", kind="correction")
    lrn = review.promote(memory_root, sig.id, "project", now=NOW, config=load_config(memory_root))["learning"]
    assert "## Learned rules (memdown)" in claude_md(memory_root)
    review.undo(memory_root, lrn, now=NOW)
    assert claude_md(memory_root) == "# Project\n\nBuild with make.\n"
