"""From pending signals to review candidates: dedupe, group, classify, flag conflicts.

Pure functions over already-loaded data (signals, learnings, improvements,
CLAUDE.md lines); ``reflect`` persists what they decide.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from ..signals.detect import scope_of
from .approvable import fix_discards, not_a_rule, said_again, worded_as_rule
from ..signals.reaction import prohibition
from ..signals.store import Signal
from ..signals.text import (GENERIC, content_tokens, conflicting_terms, fingerprint, jaccard, one_line, polar_terms,
                            similar)

RULE_TYPES = ("correction", "convention", "positive", "memory_request", "command")
IMPROVEMENT_TYPES = ("search_thrash", "missing_context", "multi_edit")
FAILURE_TYPES = ("failure", "repeated_failure")
_LEAD = re.compile(
    r"^(?:\W*(?:ok(?:ay)?|uh+|um+|ah+|oh|no+|nope|nah|nein|actually|wait|hmm+|so|well|please|pls|and|also|sorry"
    r"|but|hey|eigentlich|bitte|también|en realidad)\b[\s,.!:;-]*)+", re.I)
_MEMORY_ANY = re.compile(
    r"\b(?:remember|memori[sz]e|keep in mind|merk(?:e)? dir|recuerda|记住)\b"
    r"(?:\s+and\s+\w+\s+(?:\w+\s+)?(?:in|to|into)\s+(?:your\s+|the\s+)?mem\w*)?\s*(?:that\b|dass\b|que\b|:)?\s*",
    re.I)
_SAVE_LEAD = re.compile(r"^\W*(?:save|store|add|write|put)\s+(?:this|that|it)\s+(?:to|in|into)\s+(?:your\s+|the\s+)?"
                        r"(?:memory|memories|claude\.md)\s*[:,-]?\s*", re.I)
_COMMANDS_HINT = re.compile(r"`[^`]+`|\b(?:npm|pnpm|yarn|make|pytest|cargo|uv|pip|poetry|docker|git|just|bun|go test"
                            r"|run|command|script|cli)\b", re.I)
_STRUCTURE_HINT = re.compile(r"\b(?:defined|located|lives?|goes|go|belongs?|stored|kept) (?:in|at|under|into)\b"
                             r"|\b(?:folder|directory|dir|path|module|package|base code)\b|[\\/]\w", re.I)
_PREFERENCE_HINT = re.compile(r"\b(?:i prefer|i like|i want|don't ask|ask me|tentative|verbose|be (?:more|less)"
                              r"|just do|without asking)\b|问我|询问", re.I)
_IMPROVEMENT_HINT = re.compile(r"\b(?:we should (?:add|document|write|create|rename|move|split)|should be documented"
                               r"|add a (?:script|make target|target|test|readme|doc)|the (?:readme|docs?) (?:should|is"
                               r" wrong|are wrong|is outdated))\b", re.I)
_COMMENT = re.compile(r"<!--.*?-->")
# Claude Code's own tool mechanics: how Edit/Read/Write want to be called, not facts about the project.
_MECHANICS = re.compile(
    r"has not been read yet|modified since (?:it was )?read|string to replace not found|found \d+ matches of the string"
    r"|no changes to make|old_string|new_string|inputvalidationerror|invalid tool parameters|exceeds maximum allowed"
    r" tokens|use offset and limit|file content \(\d+ tokens\)|is a directory|eisdir|must read the file|file is empty"
    r"|parameter .* is (?:missing|required)|unexpected parameter", re.I)
_SCRATCH = re.compile(r"(?:^|[\\/])(?:tmp|temp|\.claude|node_modules|\.venv|dist|build)(?:[\\/]|$)|^/tmp/|plan\w*\.md$", re.I)


@dataclass
class Candidate:
    id: str
    action: str  # promote | revert | globalize
    kind: str  # rule | improvement | reflexion
    type: str
    category: str
    scope: str
    text: str
    confidence: int
    sessions: int
    corroboration: int
    signal_ids: list[str]
    first_seen: str
    last_seen: str
    target: str
    quotes: list[str] = field(default_factory=list)
    context: str = ""
    conflicts: list[dict] = field(default_factory=list)
    learning_id: str = ""
    reflexion: dict = field(default_factory=dict)
    destructive: str = ""  # why the recorded fix is destructive (force push, rm -rf…): shown, never proposed as a fix
    restated: int = 0  # prompts in which the user restated this instruction (signals.restated); its quotes are theirs

    def to_dict(self) -> dict:
        return asdict(self)


def rule_text(sig: Signal) -> str:
    """A readable rule from a signal's quote (fillers and "remember that" dropped)."""
    text = one_line(sig.text)
    if sig.type == "memory_request":
        match = _MEMORY_ANY.search(text)
        if match and len(text[match.end():].split()) >= 3:
            text = text[match.end():]
        text = _SAVE_LEAD.sub("", text, count=1)
    stripped = _LEAD.sub("", text).strip(" ,;:-")
    # "no" is a filler in "No, use pnpm" and the negation in Spanish "No uses npm": never strip a prohibition's own
    text = text if prohibition(text) and not prohibition(stripped) else stripped
    if not text:
        text = one_line(sig.text)
    text = text[0].upper() + text[1:] if text else text
    if text and text[-1] not in ".!?。！？`)":
        text += "."
    return text


def proposal(sig: Signal) -> str:
    """The text proposed at review for a signal of any type."""
    extra = sig.extra
    if sig.type in FAILURE_TYPES:
        fix = one_line(extra.get("fix", ""), 160)
        base = f"When {extra.get('tool') or 'a tool'} fails with \"{one_line(sig.text, 160)}\""
        harm = destructive(fix) if fix else ""
        if harm:  # a force push that got past a rejected push is not a rule to learn
            return f"{base}, check the cause before retrying; do not {harm_phrase(harm)} without asking the user."
        return f"{base}, {fix} works." if fix else f"{base}, check the cause before retrying."
    if sig.type == "search_thrash":
        tried = sig.context.removeprefix("Tried: ")
        return (f"Document where this lives: found with {extra.get('found_with', '?')} after empty searches "
                f"({one_line(tried, 200)}).")
    if sig.type == "multi_edit":
        return f"{extra.get('file', 'A file')} needed {extra.get('attempts', 'several')} edits in a row: document its conventions."
    if sig.type == "missing_context":
        fact = sig.context.removeprefix("Already known: ")
        return f"Make this easier to find (the assistant asked about it): {one_line(fact, 240)}"
    if sig.type == "positive":
        steps = sig.context.split("\n\n")[0].removeprefix("After: ")
        return f"This approach worked ({one_line(sig.text, 60)}): {one_line(steps, 160)}" if steps else rule_text(sig)
    return rule_text(sig)


def harm_phrase(harm: str) -> str:
    return f"use a destructive command ({harm})"


def destructive_of(sig: Signal) -> str:
    """Why the command a signal recorded as its fix is destructive or irreversible, or ''."""
    return destructive(sig.extra.get("fix", "")) if sig.type in FAILURE_TYPES and sig.extra.get("fix") else ""


def destructive(text: str) -> str:
    from ..shellguard import destructive as judge  # here: the session-start digest never loads the parser

    return judge(text)


def kind_of(sig: Signal) -> str:
    if sig.type in FAILURE_TYPES:
        return "reflexion"
    if sig.type in IMPROVEMENT_TYPES or _IMPROVEMENT_HINT.search(sig.text):
        return "improvement"
    return "rule"


def category_of(sig: Signal, text: str) -> str:
    if sig.type in FAILURE_TYPES or sig.type == "multi_edit":
        return "Gotchas"
    if sig.type in ("search_thrash", "missing_context"):
        return "Project structure"
    if sig.type == "command":
        return "Commands"
    if _PREFERENCE_HINT.search(text) or sig.type == "positive":
        return "Preferences"
    if _STRUCTURE_HINT.search(text) and sig.type in ("memory_request", "convention"):
        return "Project structure"
    if _COMMANDS_HINT.search(text) and polar_terms(text):
        return "Commands"
    if sig.type in ("convention", "memory_request"):
        return "Conventions"
    return "Gotchas"


def reviewable(sig: Signal) -> bool:
    """Active signals worth a reviewer's time (a failure without a known fix is only evidence)."""
    if not sig.active or sig.type == "revert":
        return False
    return not (sig.type == "failure" and not sig.extra.get("fix"))


def mechanics(sig: Signal) -> bool:
    """An edit streak or a tool-mechanics failure: about how tools are called, rarely about the project."""
    if sig.type == "multi_edit":
        return True
    return sig.type in FAILURE_TYPES and bool(_MECHANICS.search(f"{sig.text} {sig.extra.get('fix', '')}"))


def _project_fact(sig: Signal) -> bool:
    """A mechanics signal that still names something of the project: a project file, or a shell step."""
    if sig.type == "multi_edit":
        target = str(sig.extra.get("file", ""))
        return bool(target) and not _SCRATCH.search(target)
    return "Bash `" in sig.extra.get("fix", "")


def proposable(members: list[Signal]) -> bool:
    """Tool mechanics and edit streaks become candidates only when they recur across sessions and point at a
    project fact; everything else is proposed as before."""
    if not all(mechanics(s) for s in members):
        return True
    sessions = {s.session or s.id for s in members}
    return len(sessions) >= 2 and any(_project_fact(s) for s in members)


# What a reviewer reads as a one-off observation rather than a rule: a tool failure and what got past it,
# an edit streak, a search that found its target late, "this approach worked". Seen in one session it is
# evidence; it reaches the queue when it recurs in another session. A failure reaches it only when its fix is
# a project step (without one the proposal is generic advice, "check the cause before retrying", or
# "another URL works"), however often it recurs.
ONE_OFF_TYPES = FAILURE_TYPES + ("multi_edit", "search_thrash", "positive")


_LOOKING = frozenset("ls cat find grep rg head tail echo pwd cd which du df stat wc sed awk command type file tree "
                     "printf env dir get-childitem get-content select-string test true sleep".split())
_FIX_COMMAND = re.compile(r"^Bash `([^`]+)`")
_FAILED_BASH = re.compile(r"^\s*Bash\b[:\s]*")


def _program(command: str) -> str:
    words = [w for w in command.split() if "=" not in w and w not in ("sudo", "command", "env")]
    return words[0].rsplit("/", 1)[-1].lower() if words else ""


def project_step(sig: Signal) -> bool:
    """A failure's fix that is a project step (install, build, a tool of its own), not looking around
    (ls, cat, find…), retrying the same program or another call of a tool (WebFetch, Edit, Read)."""
    match = _FIX_COMMAND.match(sig.extra.get("fix", ""))
    if not match or destructive_of(sig) or fix_discards(sig.extra.get("fix", "")):
        return False
    program = _program(match.group(1))
    failed = _program(_FAILED_BASH.sub("", str(sig.extra.get("input", ""))).replace("`", " "))
    return bool(program) and program not in _LOOKING and program != failed


def one_off(members: list[Signal]) -> str:
    """Why a group is an observation to hold as evidence rather than a candidate, or ''."""
    if not all(s.type in ONE_OFF_TYPES for s in members):
        return ""
    sessions = len({s.session or s.id for s in members})
    if all(s.type in FAILURE_TYPES for s in members):
        if not any(project_step(s) for s in members):
            return "a failure without a project step to repeat"
        # one session's recipe is how that session went, not yet how the project works (issue 30: 13 of
        # the 20 candidates on the dev projects' first screens, none approvable)
        return "" if sessions >= 2 else "a failure and its fix seen in one session"
    return "" if sessions >= 2 else "seen in one session"


# Words that name nothing a rule could be about: "I don't like any approach." says no more than "no".
_VAGUE = frozenset({"it", "them", "that", "this", "these", "those", "one", "ones", "thing", "things", "stuff", "same",
                    "way", "approach", "approaches", "option", "options", "any", "all", "some", "something",
                    "anything", "like", "likes", "want", "wanted", "mean", "meant", "think", "just", "really",
                    "good", "bad", "better", "fine", "wrong", "right", "ok", "okay", "sure", "yes", "no", "nope",
                    "again", "now", "here", "there", "actually", "don", "didn", "doesn", "isn", "not", "change",
                    "changed", "make", "do", "did", "done", "try", "use", "used", "instead", "please", "pls", "can",
                    "cant", "could", "would", "will", "let", "lets", "me", "you", "we", "us", "our", "my"})
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_CJK_VAGUE = re.compile(r"我是[說说]|我的意思是|就是|[這这那]個?个?|[一]個|一个|改成|改為|改为|不[對对是要]|[錯错]了|可以|"
                        r"[我你他它們们嗎吗呢吧啊了的對对好把要再也都還还樣样]")
_CONCRETE = re.compile(r"`[^`]+`|[\w.-]+/[\w./-]+|\b[\w-]+\.(?:py|ts|js|md|json|toml|ya?ml|sh|go|rs|java|rb|css|html)\b")
_IMPERATIVE = re.compile(r"^\W*(?:be|always|never|don'?t|do not|stop|avoid|prefer|keep|use|(?:we|i)\s+(?:always\s+|never\s+)?"
                         r"(?:use|prefer))\b", re.I)
_TOOL = re.compile(r"\b(?:npm|pnpm|yarn|pytest|cargo|uv|pip|poetry|docker|git|bun|npx|node|python3?|vitest|jest|ruff|"
                   r"mypy|tsc|eslint|prettier|kubectl|terraform|gradle|mvn|brew|apt)\b", re.I)
MIN_WORDS, MIN_CJK = 2, 4


def proposable_rule(kind_of_signal: str, text: str) -> bool:
    """A rule candidate worth a person's review: actionable, and a correction worded as a rule."""
    if not actionable(text) or not_a_rule(text):
        return False
    return kind_of_signal != "correction" or worded_as_rule(text)


def actionable(text: str) -> bool:
    """A statement a person could put in CLAUDE.md as it stands: it names a command, a path or a
    code span, or holds at least ``MIN_WORDS`` content words (``MIN_CJK`` characters in Chinese,
    Japanese or Korean) beyond vague and pointing words. "I don't like any approach." and
    "我是說改成一個." point at a conversation, not a rule: they stay signals, never rule candidates."""
    if _TOOL.search(text) or _CONCRETE.search(text):
        return True
    if text.rstrip().endswith(("?", "？")):
        return False  # a question points at the conversation; the rule is in its answer
    words = len(content_tokens(_CJK.sub(" ", text)) - _VAGUE)
    words += len(_CJK_VAGUE.sub("", "".join(_CJK.findall(text)))) * MIN_WORDS // MIN_CJK
    return words >= MIN_WORDS or (words >= 1 and bool(_IMPERATIVE.match(text)))


def clean_line(line: str) -> str:
    return one_line(_COMMENT.sub("", line))


def matches(text: str, other: str, threshold: float) -> bool:
    return similar(text, clean_line(other), threshold)


def conflicts_between(text: str, other: str) -> list[str]:
    return conflicting_terms(polar_terms(text), polar_terms(clean_line(other)))


def group(signals: list[Signal], threshold: float) -> list[list[Signal]]:
    """Union near-duplicates of the same kind ("use pnpm not npm" / "don't use npm"); groups worth proposing."""
    parent = list(range(len(signals)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    texts = [proposal(s) for s in signals]
    kinds = [kind_of(s) for s in signals]
    for i in range(len(signals)):
        for j in range(i + 1, len(signals)):
            if kinds[i] != kinds[j] or find(i) == find(j):
                continue
            same = _same(signals[i], signals[j], texts[i], texts[j], kinds[i], threshold)
            if same:
                parent[find(j)] = find(i)
    groups: dict[int, list[Signal]] = {}
    for i, sig in enumerate(signals):
        groups.setdefault(find(i), []).append(sig)
    # groups of one-off mechanics are left out: they stay captured and the reflector's TTL archives them
    return [sorted(g, key=lambda s: (s.captured, s.id)) for g in groups.values() if proposable(g)]


_KEYED = {"multi_edit": "file", "search_thrash": "found_with"}


def _same(a: Signal, b: Signal, ta: str, tb: str, kind: str, threshold: float) -> bool:
    if a.type in _KEYED or b.type in _KEYED:
        key = _KEYED.get(a.type)
        return a.type == b.type and bool(a.extra.get(key)) and a.extra.get(key) == b.extra.get(key)
    if a.type == "positive" or b.type == "positive":
        return False  # praise is about one action; never merged
    if kind == "reflexion":
        return (a.extra.get("tool") == b.extra.get("tool")
                and jaccard(content_tokens(a.text) - GENERIC, content_tokens(b.text) - GENERIC) >= 0.7)
    if a.type == "missing_context" or b.type == "missing_context":
        return a.context == b.context
    return similar(ta, tb, threshold) or said_again(ta, tb)


def build(members: list[Signal], consolidated: dict[str, list[Signal]]) -> Candidate:
    """One candidate from a group (oldest signal gives the id)."""
    everyone = list(members) + [c for m in members for c in consolidated.get(m.id, [])]
    lead = max(members, key=lambda s: (s.confidence, s.type in ("memory_request", "correction", "convention"),
                                       len(s.text) < 200, s.captured))
    text = proposal(lead)
    kind = kind_of(lead)
    sessions = len({s.session or s.id for s in everyone})
    corroboration = sum(s.corroboration for s in members)
    confidence = max(s.confidence for s in members)
    recurrence = max(sessions, corroboration)
    if recurrence >= 3:
        confidence = 3
    elif recurrence >= 2:
        confidence = max(confidence, 2)
    scope = "global" if any(s.scope == "global" for s in members) or scope_of(lead.text) == "global" else "project"
    target = {"improvement": "improvements", "reflexion": "reflexion"}.get(kind, "global" if scope == "global" else "project")
    times = sorted(s.seen or s.captured for s in everyone if s.seen or s.captured)
    cand = Candidate(id=members[0].id, action="promote", kind=kind, type=lead.type, category=category_of(lead, text),
                     scope=scope, text=text, confidence=confidence, sessions=sessions, corroboration=corroboration,
                     signal_ids=[s.id for s in members], first_seen=times[0][:10] if times else "",
                     last_seen=times[-1][:10] if times else "", target=target,
                     quotes=[one_line(s.text, 200) for s in members][:5], context=lead.context)
    cand.destructive = destructive_of(lead)
    _as_restated(cand, members)
    if kind == "reflexion":
        cand.reflexion = {"tool": lead.extra.get("tool", ""), "mistake": lead.extra.get("input", ""),
                          "evidence": one_line(lead.text, 300),
                          "fix": "" if cand.destructive else lead.extra.get("fix", ""),
                          "rule": text, "tags": lead.tags}
    return cand


def _as_restated(cand: Candidate, members: list[Signal]) -> None:
    """A group holding an instruction the user restated: the user's own words (their language) are the
    rule, the count and every wording are the evidence, and it is a preference of this user."""
    from ..signals.restated import restated

    count, quotes, sig = max(((*restated(s), s) for s in members), key=lambda t: t[0])
    if count < 1:
        return
    text = rule_text(sig)
    if text.endswith(".") and _CJK.search(text[-2:-1]):
        text = text[:-1] + "。"   # the user's script, its own full stop
    cand.restated, cand.quotes, cand.text = count, quotes[:8], text
    cand.category, cand.confidence = "Preferences", 3


def fingerprint_of(text: str) -> str:
    return fingerprint(text)
