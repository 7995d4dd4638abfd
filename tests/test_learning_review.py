"""The review service: dedupe, grouping, recurrence, promotion, contradictions, negative traces, meta, ledger."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from memdown import paths
from memdown.config import load_config
from memdown.errors import UsageError
from memdown.learning import improvements, learnings, ledger, meta, promote, review, mistakes
from memdown.signals import store
from memdown.signals.store import Signal

NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.timezone.utc)


def add(root: Path, text: str, kind: str = "correction", session: str = "s1", conf: int = 2, days_ago: int = 0,
        **extra) -> Signal:
    when = NOW - dt.timedelta(days=days_ago)
    sig = Signal(kind, text, conf, session=session, turn=f"{session}-{text[:6]}", pattern=f"en.{kind}.x",
                 captured=store.iso(when), extra=extra)
    return store.append(root, [sig], now=when)[0]


def project_claude(root: Path) -> Path:
    return root.parent / "CLAUDE.md"


def test_near_duplicates_group_and_recurrence_raises_confidence(memory_root):
    a = add(memory_root, "no, use pnpm not npm", session="s1", conf=2, days_ago=3)
    add(memory_root, "don't use npm", session="s2", conf=1, days_ago=2)
    add(memory_root, "nope, pnpm. not npm", session="s3", conf=1, days_ago=1)
    other = add(memory_root, "always run make lint before committing", "convention", session="s1", days_ago=2)
    found = review.analyze(memory_root, now=NOW, config=load_config(memory_root))
    assert [c.id for c in found.candidates] == [a.id, other.id]  # strongest first
    pnpm = found.candidates[0]
    assert len(pnpm.signal_ids) == 3 and pnpm.sessions == 3 and pnpm.confidence == 3
    assert pnpm.text == "Use pnpm not npm." and pnpm.category == "Commands" and pnpm.target == "project"
    assert {s.status for s in store.load(memory_root)} == {"captured"}  # looking is no decision (#19)


def test_promote_writes_claude_md_with_backup_and_records_everything(memory_root):
    claude = project_claude(memory_root)
    claude.write_text("# My project\n\nBuild with make.\n")
    sig = add(memory_root, "no, use pnpm not npm")
    result = review.promote(memory_root, sig.id, "project", now=NOW, config=load_config(memory_root))
    text = claude.read_text()
    assert text.startswith("# My project\n\nBuild with make.\n\n## Learned rules (memdown)")
    token = learnings.get(memory_root, result["learning"]).extra["token"]
    assert f"- Use pnpm not npm. <!-- memdown:{result['learning']} #{token} -->" in text
    assert Path(result["backup"]).read_text() == "# My project\n\nBuild with make.\n"
    assert Path(result["backup"]).parent == memory_root / "backups"
    learning = learnings.get(memory_root, result["learning"])
    assert (learning.status, learning.category, learning.sources) == ("promoted", "Commands", [sig.id])
    assert learning.promoted_to == ["project CLAUDE.md (2026-11-22)"]
    assert store.get(memory_root, sig.id).status == "promoted"
    assert review.recent_learnings(memory_root) == ["Use pnpm not npm. (commands)"]
    # the same advice again later is corroboration, not a new candidate
    again = add(memory_root, "don't use npm here", session="s9")
    found = review.analyze(memory_root, now=NOW, config=load_config(memory_root))
    assert found.candidates == [] and found.auto[0]["id"] == again.id
    assert learnings.get(memory_root, result["learning"]).occurrences == 2
    assert text.count("memdown:LRN-") == 1


def test_duplicates_of_claude_md_and_dismissed_are_settled(memory_root):
    project_claude(memory_root).write_text("# P\n\n- Always run make lint before committing.\n")
    dup = add(memory_root, "always run make lint before committing", "convention")
    first = add(memory_root, "stop adding emojis to commit messages", session="s1")
    review.dismiss(memory_root, [first.id], reason="style, not a rule", now=NOW, config=load_config(memory_root))
    later = add(memory_root, "stop adding emojis to the commit messages", session="s2")
    found = review.analyze(memory_root, now=NOW, config=load_config(memory_root))
    assert found.candidates == []
    assert store.get(memory_root, dup.id).extra["reason"] == "auto: already in project CLAUDE.md"
    assert store.get(memory_root, dup.id).status == "dismissed"
    assert found.auto == [{"id": later.id, "status": "dismissed", "reason": f"auto: previously dismissed {first.id}"}]
    assert meta.load(memory_root)["type:correction"]["dismissed"] == 1  # auto decisions are not counted


def test_contradictions_are_flagged_never_promoted_silently(memory_root):
    old = add(memory_root, "use npm for everything", session="s1")
    lrn = review.promote(memory_root, old.id, "project", now=NOW, config=load_config(memory_root))["learning"]
    new = add(memory_root, "don't use npm, it breaks the lockfile", session="s2")
    cand = next(c for c in review.analyze(memory_root, now=NOW, config=load_config(memory_root)).candidates if c.id == new.id)
    assert cand.conflicts and cand.conflicts[0]["id"] == lrn
    with pytest.raises(UsageError, match="conflicts with"):
        review.promote(memory_root, new.id, "project", now=NOW, config=load_config(memory_root))
    result = review.promote(memory_root, new.id, "project", replace=True, now=NOW, config=load_config(memory_root))
    text = project_claude(memory_root).read_text()
    assert f"memdown:{lrn}" not in text and f"memdown:{result['learning']}" in text
    reverted = learnings.get(memory_root, lrn)
    assert reverted.status == "reverted" and "contradicted by" in reverted.extra["reason"]


def test_undo_takes_the_promotion_back(memory_root):
    """Undo is not a verdict on the rule (a revert is, below): the rule goes with a backup, the signals
    get their earlier state back, and the candidate is reviewable again (#30.5)."""
    claude = project_claude(memory_root)
    claude.write_text("# P\n")
    sig = add(memory_root, "always use tabs", "convention")
    lrn = review.promote(memory_root, sig.id, "project", now=NOW, config=load_config(memory_root))["learning"]
    promoted_text = claude.read_text()
    result = review.undo(memory_root, lrn, reason="not yet", now=NOW)
    after = claude.read_text()
    assert "memdown:" not in after and "Learned rules (memdown)" not in after  # no empty header left behind
    assert any(Path(b).read_text() == promoted_text for b in result["backups"])
    assert learnings.get(memory_root, lrn).status == "undone"
    assert store.get(memory_root, sig.id).status == "captured"
    found = review.analyze(memory_root, now=NOW, config=load_config(memory_root))
    assert [c.id for c in found.candidates] == [sig.id]
    assert meta.load(memory_root)["type:convention"]["accepted"] == 0
    with pytest.raises(UsageError):
        review.undo(memory_root, lrn, now=NOW)


def test_revert_signal_proposes_removing_the_learning(memory_root):
    project_claude(memory_root).write_text("# P\n")
    sig = add(memory_root, "always use tabs for indentation", "convention")
    lrn = review.promote(memory_root, sig.id, "project", now=NOW, config=load_config(memory_root))["learning"]
    rev = add(memory_root, "that rule about tabs was wrong", "revert", session="s2", conf=3)
    cand = next(c for c in review.analyze(memory_root, now=NOW, config=load_config(memory_root)).candidates if c.id == rev.id)
    assert cand.action == "revert" and cand.learning_id == lrn
    review.promote(memory_root, rev.id, now=NOW, config=load_config(memory_root))
    assert learnings.get(memory_root, lrn).status == "reverted"
    assert f"memdown:{lrn}" not in project_claude(memory_root).read_text()
    # a revert is a negative trace: the same advice is not proposed again, nor the learning re-promoted
    add(memory_root, "please always use tabs for indentation", "convention", session="s7")
    found = review.analyze(memory_root, now=NOW, config=load_config(memory_root))
    assert found.candidates == [] and found.auto[-1]["reason"] == f"auto: matches reverted {lrn}"
    assert meta.load(memory_root)["type:convention"]["reverted"] == 1
    with pytest.raises(UsageError):
        review.promote(memory_root, lrn, "global", now=NOW, config=load_config(memory_root))


def test_other_targets_improvements_reflexion_global(memory_root):
    thrash = add(memory_root, "4 empty searches before: Grep: NEED in web", "search_thrash",
                 found_with="Grep: NEED in web")
    add(memory_root, "4 empty searches before: Grep: NEED in web", "search_thrash", session="s2",
        found_with="Grep: NEED in web")  # one session is an observation (candidates.one_off); two make it a candidate
    fail = add(memory_root, "ModuleNotFoundError: No module named 'memdown'", "failure", tool="Bash",
               input="Bash `pytest -q`", fix="Bash `python -m pytest -q`")
    add(memory_root, "ModuleNotFoundError: No module named 'memdown'", "failure", session="s2", tool="Bash",
        input="Bash `pytest -q`", fix="Bash `python -m pytest -q`")  # a recipe of one session is held (one_off)
    pref = add(memory_root, "don't ask me for confirmation, just do it", "convention")
    by_id = {c.id: c for c in review.analyze(memory_root, now=NOW, config=load_config(memory_root)).candidates}
    assert by_id[thrash.id].target == "improvements" and by_id[fail.id].target == "reflexion"
    assert by_id[pref.id].target == "global" and by_id[pref.id].category == "Preferences"
    imp = review.promote(memory_root, thrash.id, now=NOW, config=load_config(memory_root))["improvement"]
    rfx = review.promote(memory_root, fail.id, now=NOW, config=load_config(memory_root))["reflexion"]
    review.promote(memory_root, pref.id, now=NOW, config=load_config(memory_root))
    assert [i.id for i in improvements.load(memory_root)] == [imp]
    assert improvements.load(memory_root)[0].status == "pending"
    improvements.set_status(memory_root, imp, "applied")
    assert improvements.load(memory_root)[0].status == "applied"
    entry = mistakes.load(memory_root)[0]
    assert (entry.id, entry.status, entry.fix, entry.tool) == (rfx, "adopted", "Bash `python -m pytest -q`", "Bash")
    assert "Don't ask me for confirmation" in (paths.claude_home() / "CLAUDE.md").read_text()
    assert review.pending_counts(memory_root) == {"signals": 0, "learnings_pending": 0, "improvements_pending": 0}


def test_interrupted_promotion_is_finished_on_the_next_run(memory_root):
    sig = add(memory_root, "use ruff, not flake8")
    promote.approve(memory_root, "project", "", "Use ruff, not flake8.", "feed0001")  # the approval came first
    item = learnings.add(memory_root, learnings.Learning(id="", text="Use ruff, not flake8.", category="commands",
                                                         sources=[sig.id], extra={"target": "project",
                                                                                  "token": "feed0001"}),
                         day="2026-11-22")
    assert review.pending_counts(memory_root)["learnings_pending"] == 1
    found = review.analyze(memory_root, now=NOW, config=load_config(memory_root))
    assert found.recovered == [item.id] and found.unapproved == []
    assert f"memdown:{item.id} #feed0001" in project_claude(memory_root).read_text()
    assert learnings.get(memory_root, item.id).status == "promoted"
    assert store.get(memory_root, sig.id).status == "promoted"


def test_meta_learning_adjusts_after_enough_samples(memory_root):
    for n in range(5):
        sig = add(memory_root, f"wait, rename variable{n} to something else {n}", session=f"s{n}", conf=2)
        review.dismiss(memory_root, [sig.id], now=NOW, config=load_config(memory_root))
    adjust = meta.adjuster(memory_root, 5)
    assert adjust("en.correction.x", "correction") == -1
    assert adjust("en.other.y", "convention") == 0
    rows = {(r["kind"], r["name"]): r for r in review.stats(memory_root, load_config(memory_root))["acceptance"]}
    assert rows[("pattern", "en.correction.x")]["rate"] == 0.0 and rows[("pattern", "en.correction.x")]["adjustment"] == -1


def test_cross_repo_ledger_proposes_global(memory_root, tmp_path):
    other = tmp_path / "other" / ".memdown"
    other.mkdir(parents=True)
    for root, session in ((other, "o1"), (memory_root, "m1")):
        sig = add(root, "use pnpm not npm", session=session)
        review.promote(root, sig.id, "project", now=NOW, config=load_config(root))
    fp = learnings.load(memory_root)[0].fingerprint
    assert len(ledger.load()["fingerprints"][fp]["repos"]) == 2
    cand = [c for c in review.analyze(memory_root, now=NOW, config=load_config(memory_root)).candidates if c.action == "globalize"]
    assert len(cand) == 1 and cand[0].target == "global"
    review.promote(memory_root, cand[0].id, "global", now=NOW, config=load_config(memory_root))
    assert "Use pnpm not npm." in (paths.claude_home() / "CLAUDE.md").read_text()
    assert ledger.load()["fingerprints"][fp]["global"] == "promoted"
    assert not [c for c in review.analyze(memory_root, now=NOW, config=load_config(memory_root)).candidates if c.action == "globalize"]


def test_pending_counts_come_from_the_cache_until_a_file_changes(memory_root, monkeypatch):
    add(memory_root, "no, use pnpm not npm")
    add(memory_root, "Exit code 1", "failure", tool="Bash")  # evidence only: no fix, not for review
    assert review.pending_counts(memory_root)["signals"] == 1
    with monkeypatch.context() as m:  # a cache hit reads no signal file at all
        m.setattr(store, "load", lambda *a, **k: pytest.fail("pending_counts re-read the signals"))
        m.setattr(store, "read_file", lambda *a, **k: pytest.fail("pending_counts re-read the signals"))
        assert review.pending_counts(memory_root)["signals"] == 1
    add(memory_root, "stop using var")
    assert review.pending_counts(memory_root)["signals"] == 2  # a new file stamp invalidates the cache
    assert review.pending_counts(memory_root.parent / "nowhere") == {}
