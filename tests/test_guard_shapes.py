"""The guard shape corpus (bench/guards/shapes.py, written before the parser changed): per guard kind,
at least 95 % of the ordinary shapes are stopped and no near miss is; judged through the PreToolUse
hook's own entry with a real scratch project (files, symlinks)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "bench" / "guards"), str(REPO / "bench")]
from run_shapes import install, project, stopped  # noqa: E402
from shapes import KINDS  # noqa: E402

from memdown.learning import guards  # noqa: E402


@pytest.fixture()
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home = tmp_path.resolve() / "home"
    monkeypatch.setenv("MEMDOWN_HOME", str(home))
    return project(tmp_path.resolve()), home


@pytest.mark.parametrize("kind", KINDS, ids=[k["kind"] for k in KINDS])
def test_each_guard_kind_stops_its_ordinary_shapes_and_no_near_miss(kind: dict, scratch: tuple[Path, Path]) -> None:
    root, home = scratch
    spec = guards.compile_rule(kind["rule"])
    assert spec is not None, kind["rule"]
    install([{"id": "K1", "rule": kind["rule"], "root": str(root / ".memdown"), **spec}], home)
    missed = [a for a in kind["stop"] if not stopped(a, root)]
    assert missed == []  # the goal is 95 %; every shape of the corpus is stopped today, so each one is held
    assert [a for a in kind["pass"] if stopped(a, root)] == []


def test_a_rule_with_hidden_characters_guards_what_promote_shows(scratch: tuple[Path, Path]) -> None:
    root, home = scratch
    for hidden in ("\u00ad", "\u200b", "\u2060", "\u034f"):
        rule = f"Never run `git pu{hidden}sh --for{hidden}ce`."
        spec = guards.compile_rule(rule)
        assert spec and spec["forbid"][0]["argv"] == ["git", "push", "--force"], repr(hidden)
        install([{"id": "K1", "rule": rule, "root": "", **spec}], home)
        assert stopped("git push --force origin main", root)
