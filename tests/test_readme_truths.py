"""The README says what the code does: the search --json field list, --kind's list in --help, and the
cost of summaries with `claude` on PATH (issue #19, item 8)."""
from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from conftest import REPO_ROOT, FakeEmbedder
from memdown.cli import cli
from memdown.store.kinds import KINDS

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")

DAY = """# 2026-03-14

## Session 09:12

### 09:40
<!-- session:sess-aaa turn:t-1 transcript:/tmp/a.jsonl -->
- Switched the quote cache TTL from 900s to 300s (POR-412).

### 10:15
<!-- session:sess-aaa turn:t-2 -->
- Postgres migration 0019 needed pg_trgm; the quote cache pool size raised too.
"""


def _section(title: str) -> str:
    start = README.index(title)
    end = README.index("\n#", start + len(title))
    return README[start:end]


def _named(text: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", text))


def test_the_readme_lists_every_field_of_a_real_search_json_record(memory_root: Path):
    from memdown.config import load_config
    from memdown.services.upkeep.memory import Memory

    (memory_root / "memory").mkdir(parents=True)
    (memory_root / "memory" / "2026-03-14.md").write_text(DAY)
    mem = Memory(memory_root, config=load_config(memory_root), embedder=FakeEmbedder())
    record = mem.search("quote cache ttl")[0].to_dict()
    assert record["window"], "windows are on by default"
    documented = _named(_section("### Search output (`--json`)"))
    assert set(record) - documented == set(), "fields of a search hit missing from the README"
    assert set(record["window"]) - documented == set(), "fields of a hit's window missing from the README"


def test_search_help_lists_every_kind():
    out = " ".join(CliRunner().invoke(cli, ["search", "--help"]).output.split())
    listed = out[out.index("Only this kind:"):]
    for kind in KINDS:
        assert re.search(rf"\b{kind}\b", listed), kind


def test_the_readme_says_what_summaries_cost_and_how_to_turn_that_off():
    from memdown.config import load_config

    flat = " ".join(README.split())
    assert "claude -p --model haiku" in flat and "quota" in flat
    switch = re.search(r"memdown config set (summarizer\.\w+) false", flat)
    assert switch, "the README names the setting that turns the claude summaries off"
    assert load_config(None)[switch.group(1)] is True  # a real setting, on by default


def test_every_install_route_works_without_pypi_and_names_the_one_to_use():
    """memdown is not on PyPI: a route that installs it by name, or a placeholder marketplace, fails (#26.8)."""
    import json

    install = _section("## Install")
    assert not re.search(r"(pip|pipx|uv tool) install memdown\b", install), "memdown is not on PyPI"
    assert "<owner>" not in README
    assert "the one to use" in install
    market = json.loads((REPO_ROOT / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))
    plugin = json.loads((REPO_ROOT / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    assert f"/plugin install {plugin['name']}@{market['name']}" in install
    assert "/plugin marketplace add /path/to/memdown" in install


def test_the_quick_start_shows_import_and_errors_are_said_once():
    assert "memdown import" in _section("## Quick start")
    assert README.count("Errors are one line") == 1
