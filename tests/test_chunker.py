"""Markdown → chunks: structure from markdown-it-py, content-addressed ids, anchors."""
from __future__ import annotations

from memdown.store.anchors import Anchor, anchor_escape, anchor_unescape, parse_anchor, strip_anchors
from memdown.store.chunker import ChunkOptions, chunk_markdown, split_frontmatter
from memdown.store.kinds import kind_for

DAILY = """\
# 2026-03-14

## Session 09:12

### 09:40
<!-- session:abc123 turn:u-0940 transcript:/tmp/t.jsonl -->
- Fixed the redis cache ttl bug in OrderService.
- The TTL now comes from QUOTE_CACHE_TTL.

```python
# not a heading, just a comment in code
x = 1
```

### 09:50
<!-- session:abc123 turn:u-0950 -->
Decided to keep LanceDB for the index.
"""


def by_heading(chunks):
    return {c.heading: c for c in chunks}


def line_of(text: str, needle: str) -> int:
    for n, line in enumerate(text.split("\n"), 1):
        if needle in line:
            return n
    raise AssertionError(needle)


def test_heading_path_and_fenced_hash_is_not_a_heading():
    chunks = chunk_markdown("memory/2026-03-14.md", DAILY)
    headings = [c.heading for c in chunks]
    assert headings == ["2026-03-14 > Session 09:12 > 09:40", "2026-03-14 > Session 09:12 > 09:50"]
    first = chunks[0]
    assert "# not a heading" in first.text  # stayed inside the 09:40 chunk
    assert not any("not a heading" in h for h in headings)


def test_line_numbers_are_file_lines():
    chunks = by_heading(chunk_markdown("memory/2026-03-14.md", DAILY))
    c = chunks["2026-03-14 > Session 09:12 > 09:40"]
    assert c.section_start == line_of(DAILY, "### 09:40")
    assert c.start_line == line_of(DAILY, "- Fixed the redis")  # the anchor line carries no text
    assert c.end_line == line_of(DAILY, "x = 1") + 1  # the closing fence
    assert c.section_end == c.end_line
    d = chunks["2026-03-14 > Session 09:12 > 09:50"]
    assert d.start_line == line_of(DAILY, "Decided to keep")
    assert d.end_line == line_of(DAILY, "Decided to keep")


def test_list_chunk_end_line_is_not_the_trailing_blank():
    text = "# H\n\n### a\n- one\n- two\n\n### b\nbody\n"
    a = by_heading(chunk_markdown("notes/x.md", text))["H > a"]
    assert (a.start_line, a.end_line) == (4, 5)


def test_anchor_parsed_into_columns_and_stripped_from_text():
    chunks = by_heading(chunk_markdown("memory/2026-03-14.md", DAILY))
    c = chunks["2026-03-14 > Session 09:12 > 09:40"]
    assert (c.session, c.turn, c.transcript) == ("abc123", "u-0940", "/tmp/t.jsonl")
    assert "<!--" not in c.text and "session:" not in c.text
    assert "<!--" not in c.embed_text and "abc123" not in c.embed_text
    d = chunks["2026-03-14 > Session 09:12 > 09:50"]
    assert (d.session, d.turn, d.transcript) == ("abc123", "u-0950", "")


def test_section_without_body_is_skipped():
    text = "# 2026-03-14\n\n## Empty\n\n## Also empty\n<!-- session:s1 turn:t1 -->\n\n## Full\nsome text\n"
    chunks = chunk_markdown("memory/2026-03-14.md", text)
    assert [c.heading for c in chunks] == ["2026-03-14 > Full"]


def test_frontmatter_is_metadata_not_text():
    text = "---\ntitle: Secret Title Words\ndate: 2026-01-02\ntags: [alpha]\n---\n# Notes\nbody line\n"
    chunks = chunk_markdown("notes/n.md", text)
    assert len(chunks) == 1
    c = chunks[0]
    assert "Secret" not in c.text and "Secret" not in c.embed_text and "title:" not in c.text
    assert c.date == "2026-01-02"  # date from frontmatter when the file name has none
    assert c.start_line == line_of(text, "body line")


def test_frontmatter_only_file_has_no_chunks():
    assert chunk_markdown("notes/fm.md", "---\ntitle: only metadata\ntags: [a, b]\n---\n") == []
    assert chunk_markdown("notes/fm.md", "---\ntitle: only metadata\n---\n\n\n") == []


def test_empty_and_blank_files_have_no_chunks():
    assert chunk_markdown("notes/e.md", "") == []
    assert chunk_markdown("notes/e.md", "\n\n   \n") == []
    assert chunk_markdown("notes/e.md", "# Just a heading\n\n## Another\n") == []


def test_malformed_frontmatter_still_indexes_body():
    text = "---\ntitle: [unclosed\n---\n# H\nbody survives\n"
    chunks = chunk_markdown("notes/bad.md", text)
    assert [c.text for c in chunks] == ["body survives"]
    assert chunks[0].start_line == 5


def test_split_frontmatter_offset():
    meta, body, offset = split_frontmatter("---\na: 1\n---\nhello\n")
    assert meta == {"a": 1}
    assert "hello" in body and "a: 1" not in body
    assert offset == 2


def test_long_section_splits_on_block_boundaries():
    items = [f"- item {i}: " + ("word " * 30).strip() for i in range(20)]  # ~170 chars each
    paras = ["Paragraph %d. " % i + ("text " * 40).strip() for i in range(4)]
    body = "\n".join(items) + "\n\n" + "\n\n".join(paras) + "\n"
    text = "# Day\n\n### Long\n" + body
    options = ChunkOptions(max_chars=600, context_chars=0)
    chunks = chunk_markdown("notes/long.md", text, options)
    assert len(chunks) > 4
    lines = text.split("\n")
    for c in chunks:
        assert c.heading == "Day > Long"
        assert len(c.text) <= 600
        first = lines[c.start_line - 1]
        # every chunk starts at a list item or a paragraph start, never mid-item
        assert first.startswith("- item ") or first.startswith("Paragraph ")
        assert lines[c.end_line - 1].strip()  # ends on a real line
    # together the chunks cover every item and paragraph exactly once
    joined = "\n".join(c.text for c in chunks)
    for i in range(20):
        assert joined.count(f"- item {i}:") == 1
    for i in range(4):
        assert joined.count(f"Paragraph {i}.") == 1
    # all pieces of one section share its section range
    assert len({(c.section_start, c.section_end) for c in chunks}) == 1


def test_single_oversized_block_is_cut_on_lines():
    lines = [f"line {i} " + "x" * 90 for i in range(30)]  # one paragraph of ~3,000 chars
    text = "# H\n" + "\n".join(lines) + "\n"
    chunks = chunk_markdown("notes/big.md", text, ChunkOptions(max_chars=500, context_chars=0))
    assert len(chunks) >= 6
    assert all(len(c.text) <= 500 for c in chunks)
    assert "\n".join(c.text for c in chunks).count("line 29 ") == 1


def test_ids_survive_line_shifts():
    before = chunk_markdown("memory/2026-03-14.md", DAILY)
    after = chunk_markdown("memory/2026-03-14.md", "\n\n" + DAILY)
    assert [c.id for c in before] == [c.id for c in after]
    assert [c.embed_hash for c in before] == [c.embed_hash for c in after]
    assert [c.start_line + 2 for c in before] == [c.start_line for c in after]


def test_html_comment_at_top_adds_no_chunk():
    before = chunk_markdown("memory/2026-03-14.md", DAILY)
    shifted = "<!-- generated by a tool\n     do not edit -->\n" + DAILY
    after = chunk_markdown("memory/2026-03-14.md", shifted)
    assert [c.id for c in after] == [c.id for c in before]
    assert [c.start_line for c in after] == [c.start_line + 2 for c in before]


def test_appending_a_section_adds_exactly_one_id():
    sections = "".join(f"### 10:{i:02d}\n- entry {i} about topic {i}\n\n" for i in range(50))
    text = "# 2026-03-14\n\n" + sections
    before = {c.id: c.embed_hash for c in chunk_markdown("memory/2026-03-14.md", text)}
    after = {c.id: c.embed_hash for c in chunk_markdown(
        "memory/2026-03-14.md", text + "### 11:00\n- the appended entry\n")}
    assert len(before) == 50
    assert set(before) < set(after) and len(set(after) - set(before)) == 1
    assert all(after[k] == v for k, v in before.items())  # nothing else re-embeds


def test_ids_depend_on_source_and_heading_and_duplicates_get_ordinals():
    text = "# A\nsame text\n\n# B\nsame text\n\n# A\nsame text\n"
    chunks = chunk_markdown("notes/x.md", text)
    ids = [c.id for c in chunks]
    assert len(ids) == 3 and len(set(ids)) == 3
    other = chunk_markdown("notes/y.md", text)
    assert not set(ids) & {c.id for c in other}


def test_edit_in_one_section_does_not_change_other_embeddings():
    text = "# D\n\n### a\nalpha text\n\n### b\nbeta text\n\n### c\ngamma text\n"
    edited = text.replace("beta text", "beta text, edited")
    before = by_heading(chunk_markdown("notes/x.md", text))
    after = by_heading(chunk_markdown("notes/x.md", edited))
    assert before["D > a"].embed_hash == after["D > a"].embed_hash
    assert before["D > c"].embed_hash == after["D > c"].embed_hash
    assert before["D > b"].id != after["D > b"].id


def test_embed_text_has_heading_and_same_section_neighbours():
    paras = "\n\n".join(f"Paragraph {i} " + "word " * 50 for i in range(3))
    text = "# Day\n\n### Sec\n" + paras + "\n"
    chunks = chunk_markdown("notes/x.md", text, ChunkOptions(max_chars=300, context_chars=40, neighbour_weight=0))
    assert len(chunks) == 3
    assert chunks[1].embed_text.startswith("Day > Sec\n")
    assert chunks[1].embed_text.count("…") == 2  # a bit of the previous and the next piece
    plain = chunk_markdown("notes/x.md", text, ChunkOptions(max_chars=300, context_chars=0, heading_context=False, neighbour_weight=0))
    assert plain[1].embed_text == plain[1].text


def test_setext_headings_and_dates():
    text = "Title\n=====\n\nSub\n---\ntext here\n"
    [c] = chunk_markdown("notes/a.md", text)
    assert c.heading == "Title > Sub" and c.date == ""
    [d] = chunk_markdown("memory/2026-05-01.md", "# x\nbody\n")
    assert d.date == "2026-05-01" and d.kind == "summary"


def test_kinds_by_location():
    assert kind_for("memory/2026-03-14.md") == "summary"
    assert kind_for("signals/2026-03.md") == "signal"
    assert kind_for("learnings.md") == "learning"
    assert kind_for("learnings/x.md") == "learning"
    assert kind_for("improvements.md") == "improvement"
    assert kind_for("reflexions/r.md") == "reflexion"
    assert kind_for("misc/notes.md") == "note"
    assert kind_for("it's.md") == "note"


def test_anchor_helpers_round_trip():
    a = Anchor("s-1", "t-2", anchor_escape("/path with space/x.jsonl"))
    rendered = a.render()
    assert parse_anchor("text " + rendered + " more") == a
    assert anchor_unescape(parse_anchor(rendered).transcript) == "/path with space/x.jsonl"
    assert strip_anchors("a " + rendered + " b") == "a  b"
    assert parse_anchor("<!-- an ordinary comment -->") is None
    assert strip_anchors("<!-- an ordinary comment -->") == "<!-- an ordinary comment -->"


def test_an_oversized_last_bullet_leaves_no_empty_unit():
    """A list item's map ends with the blank line after it; cut on its own it was an empty,
    embedded unit one line past the section (found by the conversation benchmark)."""
    text = ("# 2026-03-14\n\n## Session 14:30\n\n### 14:35\n<!-- session:s1 turn:t1 transcript:~/x.jsonl -->\n"
            "- Asked: short question here\n- Outcome: " + "word " * 70 + "\n\n### 14:40\n- Asked: next\n")
    chunks = chunk_markdown("memory/2026-03-14.md", text, ChunkOptions(max_chars=250))
    assert [c.text.split(":")[0] for c in chunks] == ["- Asked", "- Outcome", "- Asked"]
    assert all(c.text.strip() and c.start_line <= c.section_end for c in chunks)
