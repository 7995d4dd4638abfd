"""What a turn came to, in the assistant's own words: the ``Outcome:`` of an extractive entry.

The outcome is taken from the END of the turn (the last message that reports something). Filler is
dropped wherever it stands, not only at the start: openers ("Perfect!", "You're right"), announcements
("Let me check the config:", "I'll now run the tests."), narration of the assistant's own process
("Now I have enough context.", "Let me provide you with my analysis", "Here's my analysis:") and
sign-offs ("Let me know if …"). Structure is kept: a list in the message stays a list (sub-bullets
of the Outcome), code spans keep their backticks. Facts stay where they stand: a short code block (the
command to run, the value to set: up to 3 lines) becomes a code span in its place, and a table keeps
its header and first rows as one item; longer code blocks, emphasis, headings and emoji are left out
(files and commands that ran have their own bullets). docs/entries.md describes this;
tests/test_outcome.py checks the two agree, on real transcripts too.
"""
from __future__ import annotations

import re

from ...redact import redact

# Sentences that announce or narrate work instead of reporting it (matched at a sentence's start).
PREAMBLE = re.compile(
    r"^(?:(?:now|ok(?:ay)?|alright|first|next|then|so|great|perfect)[,:!.]?\s+)?"
    r"(?:let me|let's|i'll|i will|i'm going to|i am going to|i need to|i'm now going to|now i'll|now let me|"
    r"i should|i can now|i'm ready to|i am ready to)\b",
    re.I,
)
NARRATION = re.compile(
    r"^(?:(?:ok(?:ay)?|great|perfect|alright|good)[,:!.]?\s+)?(?:now\s+|so\s+)?"
    r"(?:i (?:now )?(?:have|understand|see|know|got)(?: now)? (?:enough|all (?:the|i need)|"
    r"an? (?:[\w-]+ ){0,2}(?:picture|understanding|view|overview|idea|grasp|sense)|"
    r"the (?:[\w-]+ ){0,2}(?:context|picture|information|details|codebase))\b"
    r"|i (?:now )?(?:have )?(?:read|seen|gathered|collected|explored) enough\b"
    r"|here(?:'s| is| are) (?:my|the|a|an)? ?(?:[\w-]+ (?:and )?){0,2}(?:analysis|summary|overview|breakdown|findings|assessment|"
    r"what i (?:found|did|changed)|results?|recommendations?|plan|approach|proposal)\b[^.!?]{0,40}[:.]?$"
    r"|based on (?:my|the|this|all) (?:[\w-]+ )?(?:analysis|review|investigation|exploration|findings)[^.!?]{0,30}[:,]?$"
    r"|(?:let me|feel free to) know if\b|(?:hope|i hope) (?:this|that) helps\b"
    r"|(?:is there )?anything else\b)",
    re.I,
)
# "Since the page loads, let me look at the screenshot." announces too (a clause after a comma).
_ANNOUNCED = re.compile(r",\s+(?:so\s+)?(?:let me|let's|i'll|i will|i'm going to|now i'll)\s+(?:first\s+)?"
                        r"(?:check|look|examine|see|verify|investigate|read|search|run|try|explore|find|analy[sz]e|"
                        r"review|provide|give|summari[sz]e|start|dig|inspect|open|test)\b", re.I)
# "Based on my analysis of the code, " before the finding itself: the finding stays, the opener goes.
_OPENER = re.compile(r"^(?:based on|after (?:reviewing|analy[sz]ing|looking at|examining)|looking at|having (?:reviewed|"
                     r"analy[sz]ed|looked at))\b[^,.!?:]{0,100},\s+(?=\S)", re.I)
FILLER = re.compile(r"^(?:perfect|great|good|excellent|done|got it|ah|aha|yes|right|ok(?:ay)?|sure|"
                    r"you're (?:absolutely )?right|good (?:point|question|catch)|great question)\b[^.!?:]{0,24}[.!:]+\s*",
                    re.I)
# Emphasis, heading marks, quotes, table bars, emoji; never "_" (identifiers keep theirs) nor "`".
_MARKUP = re.compile(r"\*+|(?:^|(?<=\s))-{3,}(?=\s|$)|(?:^|(?<=\s))#{1,6}(?=\s)|(?:^|(?<=\s))>+|\|"
                     r"|[\u2705\u2713\u2714\u274c\u2717\u2600-\u27bf\U0001f300-\U0001faff]")
_CODE_SPAN = re.compile(r"(`[^`\n]+`)")
CODE_FENCE = re.compile(r"```.*?(?:```|$)", re.S)
_ITEM = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+(.*\S)\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-Z0-9\"'`(])")
MAX_ITEMS = 6
SHORT_BLOCK_LINES, SHORT_BLOCK_CHARS = 3, 240  # a code block this small is a fact (a command, a value): kept inline
TABLE_ROWS, TABLE_CHARS = 3, 240  # a table keeps its header and first rows, as one item
_FENCE = re.compile(r"```[^\n`]*\n?(.*?)(?:```|$)", re.S)
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")


def _short_blocks(text: str) -> str:
    """Each short code block as a code span on a line of its own; longer blocks left out."""
    def keep(match: re.Match) -> str:
        lines = [ln.strip() for ln in match.group(1).splitlines() if ln.strip()]
        joined = "; ".join(lines).replace("`", "'")
        return f"\n`{joined}`\n" if lines and len(lines) <= SHORT_BLOCK_LINES and len(joined) <= SHORT_BLOCK_CHARS else "\n"
    return _FENCE.sub(keep, text)


def _table_item(rows: list[str]) -> str:
    """A table's header and first rows on one line (cells by " | ", rows by "; "), bounded."""
    cells = [" | ".join(inline(c) for c in row.strip().strip("|").split("|")) for row in rows
             if not _TABLE_RULE.match(row)]
    text = "; ".join(c for c in cells[:TABLE_ROWS] if c.strip(" |"))
    return text if len(text) <= TABLE_CHARS else text[: TABLE_CHARS - 1].rstrip() + "\u2026"


def inline(text: str) -> str:
    """One line of prose: emphasis, heading marks and emoji removed, code spans (`…`) kept as written."""
    parts = _CODE_SPAN.split(text)
    return " ".join("".join(p if i % 2 else _MARKUP.sub(" ", p) for i, p in enumerate(parts)).split())


def is_filler(sentence: str) -> bool:
    """A sentence that reports nothing: an opener, an announcement, narration or a sign-off."""
    head = _OPENER.sub("", FILLER.sub("", sentence).strip())
    return not head or bool(PREAMBLE.match(head) or NARRATION.match(head) or _ANNOUNCED.search(head))


def sentences(text: str) -> list[str]:
    """Sentences of prose, code blocks left out (redacted first: <private> spans lines)."""
    parts: list[str] = []
    for line in CODE_FENCE.sub("\n", redact(text)).splitlines():
        parts.extend(s for s in _SENTENCE_END.split(line.strip(" -\u2022\t")) if s.strip())
    return parts


def structured(text: str) -> tuple[str, list[str]]:
    """(lead, list items) of one message, filler dropped; ("", []) when it reports nothing."""
    prose: list[str] = []
    items: list[str] = []
    table: list[str] = []
    tables = 0
    for line in [*_short_blocks(redact(text)).splitlines(), ""]:
        if line.lstrip().startswith("|"):
            table.append(line)
            continue
        if table:
            if not tables and (kept := _table_item(table)):
                items.append(kept)  # the first table only: the rest of a long answer is in the transcript
            table, tables = [], tables + 1
        if not line.strip() or _HEADING.match(line):
            continue
        item = _ITEM.match(line)
        if item:
            kept = inline(FILLER.sub("", item.group(1)))
            if kept and not is_filler(kept) and not _is_rule(kept):
                items.append(kept)
            continue
        for sentence in _SENTENCE_END.split(line.strip()):
            kept = inline(_OPENER.sub("", FILLER.sub("", sentence).strip()))
            if kept and not is_filler(kept):
                prose.append(kept)
    # A closing "…:" only announces what follows; it stays when a list follows it.
    while prose and prose[-1].endswith(":") and not items:
        prose.pop()
    if not items and all(s.endswith(":") for s in prose):
        return "", []
    return " ".join(prose), items


def _is_rule(text: str) -> bool:
    return not text.strip("-*_= ")
