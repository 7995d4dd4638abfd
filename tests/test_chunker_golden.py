"""The chunker's output is pinned: ids, text, embed text and hash, lines, section bounds, anchors, dates.

Goldens were recorded from the chunker as it was before it was made faster
(CHUNKER_VERSION 3); CHUNKER_VERSION 5 produces them again (4 gave each entry's first chunk the entry whole
and an id covering it, taken out: docs/retrieval.md "Session 8"). Any difference means indexes built before and after
would disagree, which needs a CHUNKER_VERSION bump and new goldens:
``python tests/test_chunker_golden.py --regen`` (only when the change is meant).

Fixtures: tests/fixtures/chunker (synthetic: fences, front matter, CRLF, lone
CR, BOM, invalid UTF-8, a late NUL, huge sections, nested lists, anchors,
automemory) and the retrieval corpus in bench/retrieval/corpus (digests only).
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memdown.index.textprep import fts_text  # noqa: E402
from memdown.store.chunker import ChunkOptions, chunk_markdown  # noqa: E402
from memdown.store.reader import read_memory_file, walk_markdown  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "chunker"
CORPUS = REPO / "bench" / "retrieval" / "corpus"
GOLDEN = FIXTURES / "golden.json"
FIELDS = ("id", "source", "kind", "heading", "start_line", "end_line", "section_start", "section_end", "date",
          "session", "turn", "transcript", "text", "embed_text", "embed_hash")
# Pinned, not read from the config defaults: a change of defaults is not a change of the chunker.
# neighbour_weight 0: embed_text is the text form (the mixing recipe is another module's output).
OPTIONS = {
    "default": ChunkOptions(max_chars=250, context_chars=160, heading_context=True, neighbour_weight=0.0),
    "small": ChunkOptions(max_chars=80, context_chars=30, heading_context=True, neighbour_weight=0.0),
    "plain": ChunkOptions(max_chars=600, context_chars=0, heading_context=False, neighbour_weight=0.0),
    "large": ChunkOptions(max_chars=2000, context_chars=200, heading_context=True, neighbour_weight=0.0),
}


def _rows(root: Path, path: str, options: ChunkOptions) -> list[list]:
    mfile = read_memory_file(root, Path(path), max_bytes=10_000_000)
    return [[getattr(c, f) for f in FIELDS] + [hashlib.sha256(fts_text(c.heading, c.text, c.date).encode()).hexdigest()]
            for c in chunk_markdown(mfile.source, mfile.text, options)]


def _digest(rows: list[list]) -> str:
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()


def _cases() -> list[tuple[str, Path, str, str, bool]]:
    """(key, root, path, option name, keep full rows)."""
    cases = []
    for root in (FIXTURES, CORPUS):
        for path, rel, _link in walk_markdown(root):
            for name in OPTIONS:
                # Full rows (minus embed_text, which embed_hash pins) where a diff should be readable.
                cases.append((f"{root.name}/{rel}|{name}", root, path, name, root == FIXTURES and name == "default"))
    return cases


def _readable(rows: list[list]) -> list[list]:
    return [row[:FIELDS.index("embed_text")] + row[FIELDS.index("embed_text") + 1:] for row in rows]


def record() -> dict:
    return {key: (_readable(_rows(root, path, OPTIONS[name])) if full else _digest(_rows(root, path, OPTIONS[name])))
            for key, root, path, name, full in _cases()}


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_every_case_has_a_golden(golden):
    keys = {key for key, *_ in _cases()}
    assert keys == set(golden), "fixtures and goldens differ; regenerate only for a meant CHUNKER_VERSION change"
    assert sum(len(v) for v in golden.values() if isinstance(v, list)) > 150  # the fixtures do produce chunks


@pytest.mark.parametrize("key,root,path,name,full", _cases(), ids=[c[0] for c in _cases()])
def test_chunks_match_golden(golden, key, root, path, name, full):
    rows = _rows(root, path, OPTIONS[name])
    if full:
        want, names = golden[key], [f for f in FIELDS if f != "embed_text"] + ["fts_text sha256"]
        assert len(rows) == len(want)
        for got, exp in zip(_readable(rows), want):
            assert dict(zip(names, got)) == dict(zip(names, exp))
    else:
        assert _digest(rows) == golden[key]


def test_arrow_rows_hold_each_chunk_field_in_its_row():
    from memdown.index.rows import arrow_rows

    import numpy as np

    chunks = [c for rel in ("notes/huge.md", "memory/2026-07-01.md", "notes/structure.md")
              for c in chunk_markdown(rel, read_memory_file(FIXTURES, FIXTURES / rel, max_bytes=10**7).text,
                                      OPTIONS["default"])]
    vectors = np.arange(len(chunks) * 4, dtype=np.float32).reshape(-1, 4)
    table = arrow_rows(chunks, vectors, 4).to_pydict()
    for name in ("id", "source", "kind", "heading", "date", "session", "turn", "transcript", "text",
                 "start_line", "end_line", "section_start", "section_end", "embed_hash"):
        assert table[name] == [getattr(c, name) for c in chunks], name
    assert table["fts_text"] == [fts_text(c.heading, c.text, c.date) for c in chunks]
    assert table["vector"] == vectors.tolist()
    assert arrow_rows([], np.zeros((0, 4), np.float32), 4).num_rows == 0


if __name__ == "__main__" and sys.argv[1:] == ["--regen"]:
    GOLDEN.write_text(json.dumps(record(), ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
