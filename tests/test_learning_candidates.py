"""Which signals reach review: tool mechanics and edit streaks only when they recur and point at the project."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

from memdown.config import load_config
from memdown.learning import review
from memdown.signals import store
from memdown.signals.store import Signal

NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.timezone.utc)
NOT_READ = "File has not been read yet. Read it first before writing to it."


def add(root: Path, kind: str, text: str, session: str, **extra) -> Signal:
    sig = Signal(kind, text, 1, session=session, turn=f"{session}-{kind}-{len(text)}", pattern=f"tool.{kind}",
                 captured=store.iso(NOW), extra=extra)
    return store.append(root, [sig], now=NOW)[0]


def texts(root: Path) -> list[str]:
    return [c.text for c in review.analyze(root, persist=False, now=NOW, config=load_config(root)).candidates]


def test_one_session_of_mechanics_is_not_proposed(memory_root):
    for n in range(3):  # the noise: edit streaks and "File has not been read yet" in one session
        add(memory_root, "multi_edit", f"src/bonding_{n}.py edited 3 times in a row", "s1",
            file=f"/work/proj/src/bonding_{n}.py", attempts="3")
        add(memory_root, "failure", NOT_READ, "s1", tool="Edit", input=f"Edit: src/x{n}.py",
            fix=f"Read: src/x{n}.py, then Edit: src/x{n}.py")
    assert texts(memory_root) == []


def test_an_edit_streak_is_held_with_its_reason_even_across_sessions(memory_root):
    """Session 8: an edit streak seen in two sessions on a project file ("…needed 3 edits in a row: document
    its conventions") was on a real first screen and nobody would approve it; it is evidence, with a reason."""
    add(memory_root, "multi_edit", "src/schema.py edited 4 times in a row", "s1", file="/work/proj/src/schema.py",
        attempts="4")
    add(memory_root, "multi_edit", "src/schema.py edited 3 times in a row", "s2", file="/work/proj/src/schema.py",
        attempts="3")
    for session in ("s1", "s2", "s3"):  # recurring, but pure tool mechanics: still no project fact
        add(memory_root, "failure", NOT_READ, session, tool="Edit", input="Edit: a.py", fix="Read: a.py, then Edit: a.py")
    result = review.analyze(memory_root, persist=False, now=NOW, config=load_config(memory_root))
    assert [c.text for c in result.candidates] == []
    assert result.held_reasons.get("an edit streak: an observation about a file, not a rule") == 2, result.held_reasons
    assert sum(result.held_reasons.values()) == result.held  # every held signal has a reason


def test_real_failures_and_corrections_are_still_proposed(memory_root):
    for session in ("s1", "s2"):
        add(memory_root, "failure", "ModuleNotFoundError: No module named 'app'", session, tool="Bash",
            input="Bash: pytest", fix="Bash `pip install -e .`")
    add(memory_root, "correction", "no, use pnpm not npm", "s1")
    assert len(texts(memory_root)) == 2


def test_a_failure_and_its_fix_seen_in_one_session_is_held_with_its_reason(memory_root):
    """Session 9: 13 of the 20 candidates on the dev projects' first screens were one session's failure
    recipes (a pasted error, then the steps that session took), none approvable; a recipe is proposed
    once another session hit the same failure."""
    add(memory_root, "failure", "ModuleNotFoundError: No module named 'app'", "s1", tool="Bash",
        input="Bash: pytest", fix="Bash `pip install -e .`")
    result = review.analyze(memory_root, persist=False, now=NOW, config=load_config(memory_root))
    assert result.candidates == []
    assert result.held_reasons == {"a failure and its fix seen in one session": 1}
    assert [g["held"] for g in result.held_groups] == ["a failure and its fix seen in one session"]


def test_one_session_observations_are_held_not_proposed(memory_root):
    """Issue 30: the first screen of real projects was failure recipes, "this worked" notes and edit streaks."""
    add(memory_root, "repeated_failure", "Exit code 1", "s1", tool="Bash", input="Bash: npm test")
    add(memory_root, "failure", "Exit code 1 (eval):1: no matches found: ~/Downloads/*.json", "s1", tool="Bash",
        input="Bash: ls ~/Downloads/*.json", fix="Bash `ls ~/Downloads/ 2>/dev/null | head -30`")
    add(memory_root, "failure", "Request failed with status code 404", "s1", tool="WebFetch",
        input="WebFetch: https://example.com/a", fix="WebFetch: https://example.com/b")
    add(memory_root, "failure", "fatal: unable to access 'https://github.com/x/y.git/'", "s1", tool="Bash",
        input="Bash: git push origin main", fix="Bash `git push origin main`")
    add(memory_root, "positive", "great, that works", "s1")
    review_ = review.analyze(memory_root, persist=False, now=NOW, config=load_config(memory_root))
    assert review_.candidates == [] and review_.held == 5


def test_a_failure_fixed_by_a_project_step_or_an_observation_seen_twice_is_still_proposed(memory_root):
    for session in ("s1", "s3"):
        add(memory_root, "failure", "ModuleNotFoundError: No module named 'app'", session, tool="Bash",
            input="Bash: pytest", fix="Bash `pip install -e .`")
    for session in ("s1", "s2"):  # another URL working is no rule, however often
        add(memory_root, "failure", "Request failed with status code 404", session, tool="WebFetch",
            input="WebFetch: https://example.com/a", fix="WebFetch: https://example.com/b")
        add(memory_root, "search_thrash", "4 empty searches before: Grep: NEED in web", session,
            found_with="Grep: NEED in web")
    assert [t.split()[0] for t in texts(memory_root)] in (["When", "Document"], ["Document", "When"])
