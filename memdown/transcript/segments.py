"""Which turns deserve an entry, and which belong together.

Standard library only. ``parser`` splits a transcript at every real prompt;
this module decides what a memory log should make of those turns:

- client-only turns (``!cmd`` shell mode; a local slash command such as
  ``/model`` or ``/login`` that the model never answered) are not memories;
- a turn with nothing in it (only an "API Error: …" reply, or interrupted
  before any work) is folded into the next turn, so its ask is kept but it gets
  no entry of its own; left as the last turn, it waits for the next one;
- a one-word retry ("retry", "continue", …) after such a turn, or after one
  that ended in an API error or an interruption, carries the earlier ask;
- a turn whose work was a memory recall is flagged with what it cited.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import content as C
from .model import ToolCall, Turn

# One-word (or nearly) prompts that only ask to carry on with the previous ask.
RETRY_PROMPTS = frozenset({
    "retry", "try again", "again", "continue", "go on", "go ahead", "keep going", "carry on",
    "resume", "proceed", "please continue", "continue please", "pls continue", "ok continue",
    "继续", "繼續", "重试", "重試", "再试一次",
})

_RECALL_BASH = re.compile(r"(?:^|[\s;&|/\"'(])memdown\s+(?:search|expand|transcript)\b")
_RECALL_SKILL = re.compile(r"(?:^|:)memory-recall$")
_MEMORY_PATH = re.compile(r"\.memdown/")
# Where recalled facts live: a daily file (with lines), or a chunk id given to `expand`.
_CITED_FILE = re.compile(r"(?:\.memdown/)?(memory/(?:[\w.-]+/)*\d{4}-\d{2}-\d{2}\.md(?::\d+(?:-\d+)?)?)")
_EXPAND_ID = re.compile(r"memdown\s+expand\s+([0-9a-f]{8,40})\b")
_RECALL_COMMAND = re.compile(r"^/(?:memdown:)?memory-recall\b")
_NEUTRAL_TOOLS = frozenset({"TodoWrite", "TodoRead", "ToolSearch"})


def is_retry_prompt(text: str) -> bool:
    words = " ".join(re.sub(r"[.!?。！？,，]+", " ", text.lower()).split())
    return words in RETRY_PROMPTS


def is_client_only(turn: Turn) -> bool:
    """A ``!cmd`` shell-mode turn, or a slash command the model did no work for."""
    if turn.kind == C.BASH:
        return True
    return turn.kind == C.COMMAND and not turn.assistant_texts and not turn.tool_calls


def has_work(turn: Turn) -> bool:
    return bool(turn.assistant_texts or turn.tool_calls)


def _is_recall_call(call: ToolCall) -> bool:
    if call.name == "Skill":
        return bool(_RECALL_SKILL.search(str(call.input.get("skill") or call.input.get("command") or "")))
    if call.name == "Bash":
        return bool(_RECALL_BASH.search(str(call.input.get("command") or "")))
    if call.name in ("Read", "Grep", "Glob"):
        where = " ".join(str(call.input.get(k) or "") for k in ("file_path", "path", "pattern", "glob"))
        return bool(_MEMORY_PATH.search(where))
    return False


@dataclass
class Recall:
    only: bool                 # the turn did nothing but recall
    cited: list[str] = field(default_factory=list)  # "memory/2026-11-18.md:12-16", chunk ids


def recall_of(turn: Turn) -> Recall | None:
    """What a turn recalled from memdown memory, or None when it recalled nothing."""
    recall_calls = [c for c in turn.tool_calls if _is_recall_call(c)]
    # "/memdown:memory-recall …" typed by the user: a forked skill leaves no calls in this turn.
    by_command = turn.kind == C.COMMAND and bool(_RECALL_COMMAND.match(turn.prompt))
    if not recall_calls and not by_command:
        return None
    work = [c for c in turn.tool_calls if c not in recall_calls and c.name not in _NEUTRAL_TOOLS]
    cited: dict[str, None] = {}
    texts = [str(c.result or "") for c in recall_calls] + turn.assistant_texts[-1:]
    for text in texts:
        for match in _CITED_FILE.finditer(text):
            cited.setdefault(match.group(1), None)
    for call in recall_calls:
        for match in _EXPAND_ID.finditer(str(call.input.get("command") or "")):
            cited.setdefault(match.group(1), None)
    return Recall(only=not work, cited=list(cited))


@dataclass
class Unit:
    """One memory entry's worth of turns: ``turn`` is where it is anchored."""

    turn: Turn
    earlier: list[Turn] = field(default_factory=list)  # empty turns folded in (their asks kept)
    retry_of: Turn | None = None    # the ask a one-word retry carries on with
    recall: Recall | None = None

    @property
    def turns(self) -> list[Turn]:
        return [*self.earlier, self.turn]


@dataclass
class Plan:
    units: list[Unit] = field(default_factory=list)
    skipped: list[Turn] = field(default_factory=list)   # client-only: never an entry
    pending: list[Turn] = field(default_factory=list)   # empty turns waiting for the next turn


def ended_badly(turn: Turn) -> bool:
    """Interrupted, cut off by an API error, or never answered."""
    return turn.interrupted or bool(turn.api_errors) or not has_work(turn)


def plan_entries(turns: list[Turn], history: list[Turn] | None = None, *, final: bool = False) -> Plan:
    """Group ``turns`` (in order) into entries. ``history`` is every turn of the
    transcript, so a retry can find the ask it continues even when that turn
    was recorded (or folded) by an earlier capture. With ``final`` (the session
    ended) empty turns still waiting become one entry of their own: no later
    turn will carry their ask, and a memory is never dropped."""
    history = history if history is not None else turns
    position = {id(t): n for n, t in enumerate(history)}
    plan = Plan()
    waiting: list[Turn] = []
    for turn in turns:
        if is_client_only(turn):
            plan.skipped.append(turn)
            continue
        if not has_work(turn):
            waiting.append(turn)
            continue
        unit = Unit(turn=turn, earlier=waiting, recall=recall_of(turn))
        waiting = []
        if is_retry_prompt(turn.prompt):
            unit.retry_of = _previous_ask(turn, history, position)
        plan.units.append(unit)
    if final and waiting:
        plan.units.append(Unit(turn=waiting[-1], earlier=waiting[:-1], recall=recall_of(waiting[-1])))
        waiting = []
    plan.pending = waiting
    return plan


def _previous_ask(turn: Turn, history: list[Turn], position: dict[int, int]) -> Turn | None:
    """The last real ask before ``turn`` (skipping client-only turns and other retries)."""
    n = position.get(id(turn), len(history))
    before = [t for t in history[:n] if not is_client_only(t)]
    for earlier in reversed(before):
        if not is_retry_prompt(earlier.prompt):
            return earlier
    return None
