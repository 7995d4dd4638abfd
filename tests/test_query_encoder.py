"""The packaged model's light query path (no fastembed import) gives fastembed's own vectors,
and a search in a fresh process uses it: the same hits as through fastembed and through the daemon."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memdown import paths
from memdown.api import Memory
from memdown.index.embedder import FastEmbedder, QueryEncoder, packaged_model_dir

QUERIES = [
    "why did the build fail",
    "Which database migration did we decide on?",
    "",
    "naïve café — ünïcödé, emoji 🚀 and CJK 数据库",
    # longer than the model's 256-token window: truncation must match fastembed's
    " ".join(f"token{i} refactor authentication module" for i in range(120)),
]


@pytest.fixture(scope="module")
def fastembed_model() -> FastEmbedder:
    model = FastEmbedder()
    model.load()
    return model


def test_query_vectors_equal_fastembeds(fastembed_model: FastEmbedder):
    light = QueryEncoder(packaged_model_dir())
    for query in QUERIES:
        expected = np.array(fastembed_model.embed([query])[0])
        got = np.array(light.encode(query))
        assert got.shape == (384,)
        np.testing.assert_allclose(got, expected, atol=2e-6, err_msg=query[:40])


def test_a_fresh_embedder_answers_queries_without_importing_fastembed():
    code = (
        "import json, sys\n"
        "from memdown.index.embedder import FastEmbedder\n"
        "m = FastEmbedder(); m.load_for_queries()\n"
        "v = m.embed_query('why did the build fail')\n"
        "print(json.dumps({'fastembed': 'fastembed' in sys.modules, 'n': len(v)}))\n"
    )
    env = {**os.environ}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"fastembed": False, "n": 384}


def test_search_through_the_light_path_returns_fastembeds_hits(memory_root: Path, fastembed_model: FastEmbedder):
    mem = Memory.open(memory_root, embedder=fastembed_model)
    mem.init()
    paths.daily_file(mem.root, "2026-03-14").write_text(
        "# 2026-03-14\n\n## Session 09:00\n\n"
        + "".join(f"### 10:{i:02d}\n- {topic}\n\n" for i, topic in enumerate([
            "the build failed because the lockfile was stale",
            "we chose Postgres migrations with alembic",
            "tests run with pytest -q from the repo root",
            "the staging deploy needs the VPN",
        ])))
    mem.index()
    expected = [(h.id, h.score) for h in mem.search("why did the build fail", k=4, refresh=False)]
    fresh = Memory.open(memory_root)  # its own FastEmbedder: the light query path
    got = [(h.id, h.score) for h in fresh.search("why did the build fail", k=4, refresh=False)]
    assert fresh._model is not None and fresh._model._model is None  # fastembed itself never loaded
    assert [i for i, _ in got] == [i for i, _ in expected]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], atol=1e-5)


def test_idle_threads_sleep_instead_of_spinning():
    """A query is one run: threads spinning after it only take CPU from LanceDB's import and query."""
    light = QueryEncoder(packaged_model_dir())
    assert light.session.get_session_options().get_session_config_entry("session.intra_op.allow_spinning") == "0"
