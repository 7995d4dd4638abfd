"""The user's own words in a prompt: code, quotes, tags, tables and pasted logs removed.

Used by phrase detection, so a correction quoted in code, a pasted CI log or
hook-injected context never fires. Standard library plus markdown-it-py
(block structure only).
"""
from __future__ import annotations

import re

from .text import block_parser, strip_ansi

_TAG_BLOCK = re.compile(r"<([a-zA-Z][\w:-]*)(?:\s[^<>]*)?>[\s\S]*?</\1\s*>")
_INLINE_CODE = re.compile(r"(`+)([^`]+?)\1")
_LONE_TAG = re.compile(r"</?[a-zA-Z][\w:-]*\s*>")
_QUOTED = re.compile(r"\"[^\"\n]{12,}\"|“[^”\n]{12,}”")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+|(?<=[。！？])")
_LOG_LINE = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[T ]\d|\[?\d\d:\d\d(?::\d\d)|\[(?:info|warn|warning|error|debug|trace|fatal)\]"
    r"|(?:info|warn|warning|error|debug|trace|fatal|npm err!|err!)\s*[:\]]|at\s+[\w.$<>]+\s*\(|file\s+\".*\",\s+line"
    r"|traceback|\^+\s*$|\$\s|#\s*\d+\s|\d+\s*\||[\w./-]+\.\w+:\d+|exit code \d+|[│├└─┌┐┘┼╭╰]"
    r"|\w+(?:error|exception|warning):\s|\d+ (?:passed|failed|errors?)\b|>\s)",
    re.IGNORECASE)
TAG_BLOCK, INLINE_CODE = _TAG_BLOCK, _INLINE_CODE


def _log_like(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if _LOG_LINE.search(stripped):
        return True
    letters = sum(ch.isalpha() for ch in stripped)
    return len(stripped) > 20 and letters / len(stripped) < 0.55


def clean_prompt(text: str) -> str:
    """The user's own prose: no code, quotes, tags, pasted logs or tables."""
    text = strip_ansi(text or "").replace("\r\n", "\n")
    for _ in range(3):  # nested tag blocks
        text = _TAG_BLOCK.sub(" ", text)
    lines = text.split("\n")
    drop: set[int] = set()
    try:
        tokens = block_parser().parse(text)
    except Exception:  # markdown-it never should, but a prompt must not break mining
        tokens = []
    for tok in tokens:
        if tok.level == 0 and tok.map and tok.type in ("fence", "code_block", "html_block", "blockquote_open",
                                                      "table_open"):
            drop.update(range(tok.map[0], tok.map[1]))
    # Paragraphs that are mostly pasted log or output go whole.
    block: list[int] = []
    for k in range(len(lines) + 1):
        if k < len(lines) and lines[k].strip() and k not in drop:
            block.append(k)
            continue
        if block:
            logish = [i for i in block if _log_like(lines[i])]
            if len(logish) >= 2 and len(logish) / len(block) >= 0.4:
                drop.update(block)
            else:
                drop.update(logish)
            block = []
    _drop_pasted_tail(lines, drop)
    kept = "\n".join(line for k, line in enumerate(lines) if k not in drop)
    kept = _LONE_TAG.sub(" ", kept)
    kept = _INLINE_CODE.sub(" ‹code› ", kept)
    kept = _QUOTED.sub(lambda m: m.group(0) if len(m.group(0).split()) < 4 else " ‹quote› ", kept)
    return kept.strip()


def _drop_pasted_tail(lines: list[str], drop: set[int]) -> None:
    """A message followed by a long paste (CI log, terminal output, a review): keep the message only."""
    kept = [k for k in range(len(lines)) if lines[k].strip() and k not in drop]
    if len(kept) < 5:
        return
    pasted = [k for k in kept if _log_like(lines[k]) or lines[k].startswith(("  ", "\t"))]
    for n, k in enumerate(kept[:5]):  # "this is from the ci run:" / "pr feedback:" + paste
        rest = kept[n + 1:]
        if lines[k].rstrip().endswith(":") and len(rest) >= 4:
            share = sum(1 for j in rest if j in pasted) / len(rest)
            if share >= 0.2 or len(rest) >= 15:
                tail = _trailing_message(lines, rest)
                drop.update(j for j in rest if j not in tail)
                return
    frags = [k for k in kept if k in pasted or _fragment(lines[k])]
    for n in range(1, len(kept) - 3):  # prose, then mostly short fragments: a pasted log or listing
        rest = kept[n:]
        if kept[n] in frags and sum(1 for j in rest if j in frags) / len(rest) >= 0.5:
            tail = _trailing_message(lines, rest)
            drop.update(j for j in rest if j not in tail)
            return
    if len(pasted) / len(kept) < 0.3:
        return
    first, last = pasted[0], pasted[-1]
    tail = [k for k in kept if k > last]
    drop.update(k for k in kept if first <= k <= last or (len(tail) > 3 and k > last))


def _fragment(line: str) -> bool:
    text = line.strip()
    if re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", text):
        return False
    if text.endswith((".", "?", "!", ",")) or re.match(r"^(?:[-*+]|\d+[.)])\s", text):
        return False  # prose, or a list the user typed
    return len(text.split()) <= 6 or bool(re.search(r"[/\\@(){}\[\]=<>|✔✓✗×]", text))


def _trailing_message(lines: list[str], rest: list[int]) -> set[int]:
    """The last one or two lines after a paste, when they read like the user's question."""
    last = rest[-2:] if len(rest) >= 2 and rest[-1] - rest[-2] == 1 else rest[-1:]
    if last and last[0] - 1 not in rest and not any(_log_like(lines[k]) for k in last):
        return set(last)
    return set()


_STRUCTURE = re.compile(r"^\s{0,3}#{1,4}\s+\S|^\s*(?:-{3,}|\*{3,}|_{3,})\s*$|\*\*[^*\n]+\*\*", re.MULTILINE)
_THIRD_PERSON = re.compile(r"(?<![a-z])(?:claude|cc)(?:['’]s\b|\s+(?:is|was|has|did|should|said)\b|(?=[\u4e00-\u9fff]))",
                           re.IGNORECASE)
_RELAY = re.compile(r"(?:它|他|ds|deepseek|gemini|codex|gpt|chatgpt|perplexity|grok)的?(?:回复|回覆|回答|回應|回应)[:：]"
                    r"|\b(?:codex|gemini|gpt|chatgpt|perplexity|grok|copilot|deepseek)(?:['’]s)? (?:reply|response|report"
                    r"|review|answer)\b[^:：\n]{0,30}[:：]", re.IGNORECASE)


def looks_relayed(text: str) -> bool:
    """Another agent's reply pasted as a prompt (markdown-styled, or about Claude in the third person)."""
    text = text or ""
    if len(text) < 300:
        return False
    if _RELAY.search(text[:300]):
        return True
    return len(_STRUCTURE.findall(text)) >= 2 or bool(_THIRD_PERSON.search(text))


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]
