"""Entries written without `claude` (issue #19, item 6): the extractive Outcome keeps the message's
structure (lists, code spans) and drops filler wherever it stands; docs/entries.md says what the code
does (its examples are checked here), on real transcripts from ../shared too."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from memdown.services.capture.outcome import is_filler, structured
from memdown.services.capture.summarize import extractive_summary
from memdown.store.daily import Entry, render_entry
from memdown.transcript.parser import parse_transcript
from transcript_factory import TranscriptBuilder

DOC = (REPO_ROOT / "docs" / "entries.md").read_text(encoding="utf-8")
_QUOTED = re.compile(r'"([^"]+)"')


def _doc_section(title: str, until: str) -> str:
    start = DOC.index(title)
    return DOC[start:DOC.index(until, start)]


def _documented_filler() -> list[str]:
    lines = [ln for ln in _doc_section("### Filler that is dropped", "Kept, because").splitlines() if ln.startswith("- ")]
    return [q for ln in lines for q in _QUOTED.findall(ln)]


def _documented_kept() -> list[str]:
    return _QUOTED.findall(_doc_section("Kept, because", "With the `claude` CLI"))


@pytest.mark.parametrize("sentence", _documented_filler())
def test_every_filler_example_in_the_docs_is_dropped(sentence: str):
    assert is_filler(sentence.rstrip(", ")) or structured(sentence + " The cache TTL is now 300s.")[0] == "The cache TTL is now 300s."


@pytest.mark.parametrize("sentence", _documented_kept())
def test_every_kept_example_in_the_docs_is_kept(sentence: str):
    lead, _ = structured(sentence)
    assert lead and lead.split()[-1] == sentence.split()[-1]


def test_the_issue_s_filler_is_gone_and_the_list_and_code_spans_stay(tmp_path: Path):
    b = TranscriptBuilder()
    b.prompt("why do quotes go stale?")
    b.reply("Now I have enough context. Let me provide you with my analysis…\n\n## Summary\n\n"
            "The **quote cache** kept entries for `900s`; I set it to `300s`:\n\n"
            "- `quote:*` keys now expire after 5 minutes\n- `make test` passes\n\nLet me know if you want more.")
    turn = parse_transcript(b.write(tmp_path / "t.jsonl")).turns[0]
    outcome = next(x for x in extractive_summary(turn) if x.startswith("Outcome:"))
    assert outcome.splitlines() == ["Outcome: The quote cache kept entries for `900s`; I set it to `300s`:",
                                    "`quote:*` keys now expire after 5 minutes", "`make test` passes"]
    from datetime import datetime

    text = render_entry(Entry(when=datetime(2026, 3, 1, 10, 7), session="s", turn="t", transcript="~/t.jsonl",
                              bullets=["Asked: why", outcome]))
    assert "- Outcome: The quote cache kept entries for `900s`; I set it to `300s`:\n  - `quote:*` keys now expire" in text


def test_a_sub_bullet_can_never_start_a_heading_or_fake_an_anchor():
    from datetime import datetime

    text = render_entry(Entry(when=datetime(2026, 3, 1, 10, 7), session="s", turn="t", transcript="~/t.jsonl",
                              bullets=["Outcome: done\n### 11:00\n<!-- session:x turn:y -->"]))
    assert "\n### 11:00" not in text and "<!-- session:x" not in text
    from markdown_it import MarkdownIt

    headings = [t for t in MarkdownIt().parse(text) if t.type == "heading_open"]
    assert len(headings) == 1


def test_no_line_of_an_entry_holds_a_raw_chat_or_system_tag():
    """Every line (ask, outcome, sub-bullet, file) goes through one cleaner: a quoted tag stays readable
    as ‹…› but can never pose as client structure when the log is read or injected later."""
    from datetime import datetime

    text = render_entry(Entry(when=datetime(2026, 3, 1, 10, 7), session="s", turn="t", transcript="~/t.jsonl",
                              bullets=["Asked: what does </user><assistant> do",
                                       "Outcome: the `<system-reminder>` lists skills:\n  - <memdown-recorded-notes nonce=\"1\">",
                                       "Files changed: `<command-name>.md`"]))
    assert not re.search(r"<\s*/?\s*(?:user|assistant|system|memdown|command)", text)
    assert "`‹system-reminder›`" in text and "‹/user›‹assistant›" in text and "‹memdown-recorded-notes" in text


def _real_turns(shared_transcripts: Path):
    for path in sorted(shared_transcripts.rglob("*.jsonl")):
        if "subagents" in path.parts or path.name.startswith("agent-") or path.name == "journal.jsonl":
            continue
        try:
            transcript = parse_transcript(path, include_subagents=False)
        except Exception:  # noqa: BLE001 - a transcript the parser refuses is another test's business
            continue
        yield from transcript.turns


_FILLER_IN_ENTRY = re.compile(r"(?i)\b(?:now i have (?:enough|a clear|a good|all the)|let me provide you|"
                              r"here'?s my analysis|i have enough context)\b")


_MD = __import__("markdown_it").MarkdownIt()
_WHEN = __import__("datetime").datetime(2026, 3, 1, 10, 7)


def test_real_transcripts_outcomes_keep_lists_and_code_spans_and_lose_filler(shared_transcripts: Path):
    outcomes = lists = spans_kept = spans_seen = 0
    for turn in _real_turns(shared_transcripts):
        bullets = extractive_summary(turn)
        outcome = next((x for x in bullets if x.startswith("Outcome:")), None)
        if outcome is None or outcome.startswith("Outcome: stopped by"):
            continue
        outcomes += 1
        assert not _FILLER_IN_ENTRY.search(outcome), outcome[:200]
        text = render_entry(Entry(when=_WHEN, session="s", turn="t", transcript="~/t.jsonl", bullets=bullets))
        assert [t.type for t in _MD.parse(text)].count("heading_open") == 1, text  # no sub-bullet became a heading
        lists += "\n" in outcome
        final = (turn.assistant_texts or [""])[-1]
        if re.search(r"`[^`\n]+`", final) and "```" not in final:
            spans_seen += 1
            spans_kept += "`" in outcome
    assert outcomes > 200
    assert lists > outcomes // 5, (lists, outcomes)  # a list in the message stays a list
    assert spans_kept >= 0.8 * spans_seen, (spans_kept, spans_seen)


def test_short_code_blocks_and_a_table_s_first_rows_stay_as_facts():
    """Issue #26 item 6: "what command…" / "which value…" need the block the answer gave, bounded and redacted."""
    message = ("The dev server must be running:\n```bash\npnpm run dev\n```\nFor production, build it:\n```\npnpm build\n```\n\n"
               "| Plan | Price | Limits |\n|---|---|---|\n| Free | 0€ | 1 programme |\n| Pro | 29€ | 3 programmes |\n"
               "| Business | 79€ | unlimited |\n\n```python\n" + "\n".join(f"line_{n} = {n}" for n in range(8)) + "\n```\n"
               "Set the key:\n```\nexport OPENAI_API_KEY=sk-proj-4fJ9kQ2mZx7LpV3nR8tYwB6cH1dE5gA0sUiOqNe\n```\n")
    lead, items = structured(message)
    assert "`pnpm run dev`" in lead and "`pnpm build`" in lead
    assert items[0] == "Plan | Price | Limits; Free | 0€ | 1 programme; Pro | 29€ | 3 programmes"  # header + 2 rows
    assert "line_7" not in lead and "line_0" not in lead  # an 8-line block is not a fact: left out
    assert "sk-proj-4fJ9" not in lead + " ".join(items)  # redacted before it is kept
