"""Say when nothing matches (issue #19, item 3): a search whose best hits are weak says so, in one
line of the text view and in each --json record's ``match``; decided on raw signals (cosine, query
words), not on RRF scores, which are ranks."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_memdown
from memdown.services.recall import match

CORPUS = REPO_ROOT / "bench" / "retrieval" / "corpus"


def test_weak_only_when_neither_meaning_nor_words_match():
    assert match.judge(match.WEAK_COSINE - 0.1, 0.0) is True
    assert match.judge(None, 0.0) is True  # no vectors, no words
    assert match.judge(match.WEAK_COSINE + 0.05, 0.0) is False  # close in meaning
    assert match.judge(match.WEAK_COSINE - 0.1, 1.0) is False  # every word of the query is there


def test_term_share_counts_content_words_not_question_words():
    assert match.term_share("why did we set the redis ttl?", ["Set the redis ttl to 300s"]) == 1.0
    assert match.term_share("why did we do that?", ["we did that"]) == 0.0
    assert match.term_share("kubernetes helm rollback", ["helm"]) == pytest.approx(1 / 3)


@pytest.fixture
def portolan(memory_root: Path) -> Path:
    assert run_memdown("init").returncode == 0
    for path in sorted(CORPUS.glob("2026-06-*.md")):
        shutil.copy2(path, memory_root / "memory" / path.name)
    assert run_memdown("index").returncode == 0
    return memory_root


@pytest.mark.integration
def test_an_unrelated_query_says_it_is_a_weak_match_and_a_real_one_does_not(portolan: Path):
    unrelated = run_memdown("search", "kubernetes helm chart rollback")
    assert unrelated.returncode == 0, unrelated.stderr
    assert unrelated.stdout.splitlines()[0].startswith("weak match: ")
    assert unrelated.stdout.count("weak match") == 1
    records = json.loads(run_memdown("search", "kubernetes helm chart rollback", "--json").stdout)
    assert records and all(r["match"]["weak"] is True for r in records)

    answered = run_memdown("search", "why did migrations fail after the Postgres 15 upgrade")
    assert answered.returncode == 0 and "weak match" not in answered.stdout
    records = json.loads(run_memdown("search", "why did migrations fail after the Postgres 15 upgrade", "--json").stdout)
    assert records[0]["match"]["weak"] is False and records[0]["match"]["cosine"] > 0
