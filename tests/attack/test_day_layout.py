"""A person's day file that confuses where memdown's appended entries land (store/daily.py).

Every entry is appended at the end of the day now, so whatever a person left open at the end of
their own notes -- a code fence they never closed, an HTML comment -- would swallow every entry
that follows: still in the file, but no reader (digest, recorded-turn lookups, the index's
markdown parse) sees it. Each case writes through ``append_entry`` and reads back with
``read_entries`` (the reader SessionStart and the lookups use).
"""
from __future__ import annotations

from datetime import datetime

import pytest

from memdown.store import daily
from memdown.store.dayread import read_entries


def _entry(session: str, turn: str, minute: int) -> daily.Entry:
    return daily.Entry(datetime(2026, 11, 27, 10, minute), session, turn, "~/t.jsonl", [f"{session} {turn}"])


@pytest.mark.parametrize("tail", [
    "\n## Notes\n\n```\nunclosed fence\n",
    "\n## Notes\n\n````md\n```\nstill inside the four-backtick fence\n```\n",
    "\n## Notes\n\n~~~\nunclosed tilde fence",
    "\n## Notes\n\n<!-- todo: finish later\n",
    "\n## Notes\n\n  <!--\nopen comment, indented\n",
])
def test_an_entry_after_a_block_a_person_left_open_is_still_read(memory_root, tail):
    daily.append_entry(memory_root, _entry("a", "a1", 1))
    path = daily.entry_file(memory_root, _entry("a", "a1", 1))
    path.write_bytes(path.read_bytes() + tail.encode())
    before = path.read_bytes()
    daily.append_entry(memory_root, _entry("a", "a2", 2))
    daily.append_entry(memory_root, _entry("b", "b1", 3))
    assert path.read_bytes().startswith(before)  # the person's text stays where it was
    assert [e.anchor.turn for e in read_entries(path) if e.anchor] == ["a1", "a2", "b1"]


@pytest.mark.parametrize("tail", [
    "\n## Notes\n\n```\nclosed\n```\n",
    "\n## Notes\n\n```\n<!-- a comment quoted in code\n```\n",
    "\n## Notes\n\n<!-- a comment -->\n",
    "\n## Notes\n\n    ```\nindented: code, not a fence\n",
])
def test_a_closed_block_gets_no_closer(memory_root, tail):
    daily.append_entry(memory_root, _entry("a", "a1", 1))
    path = daily.entry_file(memory_root, _entry("a", "a1", 1))
    path.write_bytes(path.read_bytes() + tail.encode())
    before = path.read_bytes()
    daily.append_entry(memory_root, _entry("a", "a2", 2))
    added = path.read_bytes()[len(before):].decode()
    assert "```" not in added and "-->\n\n" not in added and "~~~" not in added
    assert [e.anchor.turn for e in read_entries(path) if e.anchor] == ["a1", "a2"]


def test_a_fence_state_is_the_whole_days(memory_root):
    """A fence opened and closed earlier, inline triple backticks in bullets, a long day: no closer;
    a fence left open after them: its own marker closes it."""
    body = "".join(f"### 10:00\n<!-- session:s turn:t{i} transcript:~/t -->\n- note {i}\n\n" for i in range(3000))
    text = "# 2026-11-27\n\n## Session 10:00\n\n" + body + "```sh\nls\n```\n\n- a bullet with ```inline``` code\n"
    assert daily._open_block_closer(text) == ""
    assert daily._open_block_closer(text + "~~~~\nopen") == "~~~~"


_PIECES = ["```", "````", "~~~", "~~~~", "```py", "``` a`b", "~~~ x", "  ```", "    ```", "text", "- item",
           "> quote", "> ```", "", "``` ", "inline ``` here", "~~~`", "<!-- note", "-->", "<pre>", "</pre>",
           "<div>", "<?php", "<![CDATA[", "1. step", "  - nested ```", "<!-- closed -->"]


@pytest.mark.parametrize("seed", range(40))
def test_any_tail_a_person_leaves_never_hides_the_next_entries(memory_root, seed):
    """Random endings built from fences, lists, quotes and HTML blocks (in or out of containers): the
    entries appended after them are read back, and the person's bytes stay as they were."""
    import random

    rng = random.Random(seed)
    daily.append_entry(memory_root, _entry("a", "a1", 1))
    path = daily.entry_file(memory_root, _entry("a", "a1", 1))
    for round_ in range(5):
        tail = "\n" + "\n".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 8))) + "\n"
        path.write_bytes(path.read_bytes() + tail.encode())
        before = path.read_bytes()
        daily.append_entry(memory_root, _entry("b", f"b{round_}", 2 + round_))
        assert path.read_bytes().startswith(before)
        turns = [e.anchor.turn for e in read_entries(path) if e.anchor]
        assert turns == ["a1"] + [f"b{k}" for k in range(round_ + 1)], (tail, path.read_text())
