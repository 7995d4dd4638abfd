"""Neighbour-vector reuse (``chunking.neighbour_weight``): each text is embedded once and a unit's
vector is mixed from its own, its section neighbours' and its heading's vectors."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import FakeEmbedder
from memdown import paths
from memdown.api import Memory
from memdown.config import load_config
from memdown.services.upkeep.indexing import index_identity
from memdown.services.upkeep.verify import verify
from memdown.store.chunker import ChunkOptions, chunk_markdown
from memdown.store.mixrecipe import Recipe, compose, parse

DAY = """# 2026-03-14

## Session 09:00

### 10:00
<!-- session:s1 turn:t1 -->
First paragraph about the parser rewrite and its grammar tables.

Second paragraph: the lexer now streams tokens instead of reading the whole file.

Third paragraph, where the benchmark showed a 3x speed-up on large inputs.

### 10:05
<!-- session:s1 turn:t2 -->
A different section on deploying the staging cluster with terraform.
"""


def mixing_config(root: Path, weight: float = 0.5, heading: float = 0.5):
    config = load_config(root)
    config.values["chunking"]["max_chars"] = 90  # one unit per paragraph
    config.values["chunking"]["neighbour_weight"] = weight
    config.values["chunking"]["heading_weight"] = heading
    return config


def test_recipe_round_trips_and_plain_text_is_not_a_recipe():
    recipe = Recipe("own \x1f text", "before", "", "Saturday: 2026 > 10:00", 0.25, 0.5)
    back = parse(compose(recipe))
    assert back == Recipe("own   text", "before", "", "Saturday: 2026 > 10:00", 0.25, 0.5)
    assert parse("plain text for the model") is None


def test_chunker_recipes_name_only_section_neighbours():
    chunks = chunk_markdown("memory/2026-03-14.md", DAY, ChunkOptions(max_chars=90, neighbour_weight=0.5))
    recipes = [parse(c.embed_text) for c in chunks]
    assert all(recipes) and len(chunks) == 4
    first, middle, last, other = recipes
    assert (first.previous, first.following) == ("", chunks[1].text)
    assert (middle.previous, middle.own, middle.following) == (chunks[0].text, chunks[1].text, chunks[2].text)
    assert last.following == ""  # the next section's text is never a neighbour
    assert other.previous == "" and other.own == chunks[3].text and "10:05" in other.heading
    plain = chunk_markdown("memory/2026-03-14.md", DAY, ChunkOptions(max_chars=90, neighbour_weight=0))
    assert all(parse(c.embed_text) is None for c in plain)


def test_each_text_is_embedded_once_and_vectors_are_the_normalized_mix(memory_root: Path):
    fake = FakeEmbedder()
    mem = Memory.open(memory_root, embedder=fake, config=mixing_config(memory_root, 0.25, 0.5))
    mem.init()
    paths.daily_file(mem.root, "2026-03-14").write_text(DAY)
    mem.index()
    sent = [t for call in fake.calls for t in call]
    chunks = chunk_markdown("memory/2026-03-14.md", DAY, ChunkOptions(max_chars=90, neighbour_weight=0))
    headings = {parse(c.embed_text).heading for c in
                chunk_markdown("memory/2026-03-14.md", DAY, ChunkOptions(max_chars=90, neighbour_weight=0.25))}
    assert sorted(sent) == sorted([c.text for c in chunks] + sorted(headings))  # no text twice, no context copies
    rows = {r["text"]: np.array(r["vector"]) for r in mem.table.table.search().limit(None).to_list()}
    v = {t: np.array(fake.embed_query(t)) for t in sent}
    heading = next(h for h in headings if "10:00" in h)
    expected = v[chunks[1].text] + 0.25 * (v[chunks[0].text] + v[chunks[2].text]) + 0.5 * v[heading]
    np.testing.assert_allclose(rows[chunks[1].text], expected / np.linalg.norm(expected), atol=1e-5)
    first = v[chunks[0].text] + 0.25 * v[chunks[1].text] + 0.5 * v[heading]
    np.testing.assert_allclose(rows[chunks[0].text], first / np.linalg.norm(first), atol=1e-5)
    assert verify(Memory.open(memory_root, embedder=FakeEmbedder(), config=mixing_config(memory_root, 0.25, 0.5))).ok


def test_turning_mixing_on_changes_identity_and_rebuilds_with_a_reason(memory_root: Path):
    config = load_config(memory_root)
    config.values["chunking"]["neighbour_weight"] = 0.0  # text context, as before the default changed
    plain = Memory.open(memory_root, embedder=FakeEmbedder(), config=config)
    plain.init()
    paths.daily_file(plain.root, "2026-03-14").write_text(DAY)
    plain.index()
    config = mixing_config(memory_root)
    assert config["chunking.max_chars"] != plain.config["chunking.max_chars"]  # so compare mixing alone:
    config.values["chunking"]["max_chars"] = plain.config["chunking.max_chars"]
    assert index_identity(plain.embedder, config) != index_identity(plain.embedder, plain.config)
    other_weight = mixing_config(memory_root, 0.3)
    other_weight.values["chunking"]["max_chars"] = config["chunking.max_chars"]
    assert index_identity(plain.embedder, config) != index_identity(plain.embedder, other_weight)
    report = Memory.open(memory_root, embedder=FakeEmbedder(), config=config).index()
    assert report.rebuilt and report.rebuild_reason == "chunking or full-text settings changed"


@pytest.mark.parametrize("edit", ["neighbour", "heading"])
def test_editing_a_neighbour_or_heading_re_mixes_the_unit(memory_root: Path, edit: str):
    config = mixing_config(memory_root)
    mem = Memory.open(memory_root, embedder=FakeEmbedder(), config=config)
    mem.init()
    day = paths.daily_file(mem.root, "2026-03-14")
    day.write_text(DAY)
    mem.index()
    middle = "Second paragraph: the lexer now streams tokens instead of reading the whole file."

    def vector() -> np.ndarray:
        row = next(r for r in mem.table.table.search().limit(None).to_list() if r["text"] == middle)
        return np.array(row["vector"])

    before = vector()
    if edit == "neighbour":
        day.write_text(DAY.replace("3x speed-up on large inputs", "regression on tiny inputs"))
    else:
        day.write_text(DAY.replace("### 10:00", "### 10:00 lexer work"))
    mem = Memory.open(memory_root, embedder=FakeEmbedder(), config=config)
    mem.index()
    assert not np.allclose(vector(), before)  # its own text is unchanged, its mix is not


def test_the_background_filler_mixes_vectors_as_a_full_build(memory_root: Path, tmp_path: Path, monkeypatch):
    from memdown.services.upkeep import text_first
    from memdown.services.upkeep import vector_fill

    monkeypatch.setattr(text_first, "start_filler", lambda root: None)  # filled in process below
    monkeypatch.setattr("memdown.index.embedder.embedder_from_config", lambda config: FakeEmbedder())
    monkeypatch.setenv("MEMDOWN_INDEX_DEFER_VECTORS_ABOVE", "1")
    for root in (memory_root, tmp_path / "other"):
        (root / "memory").mkdir(parents=True)
        for d in (14, 15, 16):
            (root / "memory" / f"2026-03-{d}.md").write_text(DAY.replace("2026-03-14", f"2026-03-{d}"))
    text_first_build = Memory.open(memory_root, embedder=FakeEmbedder())  # the default config: mixing on
    assert text_first_build.config["chunking.neighbour_weight"] > 0 and text_first_build.index().vectors_pending
    assert vector_fill.main(["--dir", str(memory_root)]) == 0  # the detached filler's own entry point
    monkeypatch.setenv("MEMDOWN_HOME", str(tmp_path / "home"))  # its own embedding cache: nothing shared
    full = load_config(tmp_path / "other")
    full.values["index"]["defer_vectors_above"] = 10**9
    Memory.open(tmp_path / "other", embedder=FakeEmbedder(), config=full).index()

    def vectors(root: Path) -> dict[str, list[float]]:
        table = Memory.open(root, embedder=FakeEmbedder()).table
        table.open()
        return {r["id"]: r["vector"] for r in table.table.search().select(["id", "vector"]).limit(None).to_list()}

    filled, built = vectors(memory_root), vectors(tmp_path / "other")
    assert filled.keys() == built.keys() and all(v is not None for v in filled.values())
    for key in built:
        np.testing.assert_allclose(filled[key], built[key], atol=1e-6)
