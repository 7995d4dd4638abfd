"""The line reader for daily-log markdown gives exactly markdown-it's block structure, or steps aside.

``store.fastblocks.block_events`` answers for the subset of markdown memdown writes and returns None for
anything else; whenever it answers, the answer must equal the markdown-it parse the chunker used before
(``chunker._markdown_it_events``). Random documents built from the lines that make the subset tricky
(lazy continuations, blank runs inside items, unclosed fences, interrupting comments and bullets,
headings with closing hashes, lookalikes of tables, breaks and lists) check that on thousands of shapes.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from memdown.store.chunker import _markdown_it_events, chunk_markdown
from memdown.store.fastblocks import block_events

REPO = Path(__file__).resolve().parent.parent

LINES = [
    "", "", "", "  ", "\t",
    "# 2026-06-01", "## Session 09:15", "### 10:05", "## Session ##", "### 10:05 #x", "#### ok #", "#nope", "####### seven",
    "##\tTabbed", "# ", "#",
    "<!-- session:abc turn:def transcript:~/x.jsonl -->", "<!-- open comment", "<!-->", "<div>", "<private>",
    "- a bullet with `code`", "- another: use pnpm", "- ", "-  two spaces", "-no space", "- - -", "---", "===",
    "  - nested item", "  continued in the item", "    deeper code-ish", " one space", "   three spaces",
    "plain paragraph text", "more words here", "2026-06-01 notes", "1. ordered", "2) ordered", "* star", "+ plus",
    "> quote", "| a | b |", "|---|---|", "a | b", "--|--", "[ref]: /url", "\\# escaped",
    "```", "```python", "```a`b", "~~~", "~~~~ tilde", "  ```", "`inline` start", "~ tilde start",
    "Outcome: done.", "x \ufeff", "## t \ufeff", "\ufeff", "___", "***", "= equals", "_under_", "\u00a0nbsp start", "text with trailing ##",
]


def _document(rng: random.Random) -> str:
    text = "\n".join(rng.choice(LINES) for _ in range(rng.randint(1, 40)))
    return text + ("\n" if rng.random() < 0.8 else "")


def _daily_shaped(rng: random.Random) -> str:
    """Mostly the shape memdown writes, with a few odd lines mixed in."""
    out = ["# 2026-06-01", ""]
    for s in range(rng.randint(1, 3)):
        out += [f"## Session 1{s}:00", ""]
        for t in range(rng.randint(1, 4)):
            out += [f"### 1{s}:{t:02d}", "<!-- session:a turn:b transcript:c -->"]
            for _ in range(rng.randint(1, 4)):
                out.append(rng.choice(["- did a thing", "- fixed `x`", "  - sub point", "  more of the item",
                                       "plain line", "", "```", "code()", "- ```sh", "  make test", "  ```"]))
            out.append("")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("make", [_document, _daily_shaped])
def test_the_line_reader_agrees_with_markdown_it_whenever_it_answers(make) -> None:
    rng = random.Random(20261124)
    answered = 0
    for _ in range(4000):
        body = make(rng)
        events = block_events(body)
        if events is None:
            continue
        answered += 1
        assert events == _markdown_it_events(body), body
    # It must answer often enough to matter (a reader that always steps aside would pass the check above).
    assert answered > 400


def test_memdowns_own_daily_logs_are_read_without_markdown_it() -> None:
    files = sorted((REPO / "bench" / "retrieval" / "corpus").glob("*.md"))
    assert files
    for path in files:
        body = path.read_text(encoding="utf-8")
        events = block_events(body)
        assert events is not None, path.name
        assert events == _markdown_it_events(body), path.name


def test_chunks_are_the_same_either_way(monkeypatch) -> None:
    import memdown.store.chunker as chunker

    path = sorted((REPO / "bench" / "retrieval" / "corpus").glob("*.md"))[0]
    text = path.read_text(encoding="utf-8")
    fast = chunk_markdown(path.name, text)
    monkeypatch.setattr(chunker, "block_events", lambda body: None)
    assert chunk_markdown(path.name, text) == fast
