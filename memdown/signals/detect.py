"""Signal detection: phrase tables on the user's own words, plus tool-call patterns (``tool_patterns``).

Only real user prompts are read for phrases (never the assistant's text,
subagent prompts, hook-injected context or pasted material): code fences,
inline code, quoted lines, quoted sentences, XML-ish tag blocks and pasted
logs are removed first (``clean.clean_prompt``). Tool-call detectors look at what
happened: the same tool failing twice in a row, one file edited 3+ times in a
row, 3+ empty searches before a hit. Standard library plus markdown-it-py.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from . import patterns as P
from .clean import INLINE_CODE, TAG_BLOCK, clean_prompt, looks_relayed, split_sentences
from .store import Signal
from .text import content_tokens, fold_typos, normalize, one_line, polar_terms, strip_ansi, to_simplified
from .tool_patterns import detect_tool_patterns, failed, find_fix, fix_text  # the last three re-exported for mining

__all__ = ["Context", "Hit", "clean_prompt", "detect_commands", "detect_missing_context", "detect_phrases",
           "detect_tool_patterns", "detect_turns", "failed", "find_fix", "fix_text", "scope_of", "split_sentences"]

PRIORITY = ("memory_request", "revert", "correction", "convention", "positive")
COMMAND_WORDS = frozenset("""npm pnpm yarn npx bun bunx deno node make cmake just pytest python python3 pip pip3 uv
uvx poetry pipenv tox nox ruff mypy black cargo rustc go gradle gradlew mvn dotnet rake bundle rails ruby php composer
docker docker-compose podman kubectl helm terraform git gh ./ bash sh zsh source . tsc eslint prettier jest vitest
playwright swift xcodebuild flutter dart mix elixir iex lein clojure sbt stack cabal ghc odoo odoo-bin psql mysql
sqlite3 redis-cli curl wget rsync scp ssh ansible-playbook pre-commit alembic django-admin manage.py memdown
claude adb emulator avdmanager sdkmanager""".split())

@dataclass
class Context:
    """What came before the prompt, for the pattern flags."""

    after_reply: bool = True  # the assistant said or did something before
    after_action: bool = False  # the previous turn ran 2+ tools
    after_question: bool = False  # the assistant's last words were a question


@dataclass
class Hit:
    type: str
    confidence: int
    patterns: list[str]
    lang: str
    quote: str
    tags: list[str] = field(default_factory=list)
    prob: float | None = None  # the classifier's probability, when it decided


def _flags_ok(pattern: P.Pattern, ctx: Context, norm: str, start: int) -> bool:
    flags = pattern.flags
    if "after_action" in flags and not ctx.after_action:
        return False
    if "after_reply" in flags and not ctx.after_reply:
        return False
    if "not_after_question" in flags and ctx.after_question:
        return False
    if "neg_guard" in flags and P.NEGATION_BEFORE.search(norm[max(0, start - 24):start]):
        return False
    return True


def match_sentence(sentence: str, ctx: Context) -> list[tuple[P.Pattern, re.Match[str]]]:
    norm = fold_typos(to_simplified(normalize(sentence)), P.typos())
    found = []
    for pattern in P.patterns():
        match = pattern.regex.search(norm)
        if match and _flags_ok(pattern, ctx, norm, match.start()):
            found.append((pattern, match))
    return found


def _quote(sentences: list[str], k: int, limit: int = 300) -> str:
    """Sentence ``k``, extended with following ones while it is short ("No." → "No. Use pnpm.")."""
    parts = [sentences[k]]
    j = k + 1
    while j < len(sentences) and len(" ".join(parts)) < 40:
        parts.append(sentences[j])
        j += 1
    if k > 0 and len(" ".join(parts)) < 25:
        parts.insert(0, sentences[k - 1])
    return one_line(" ".join(parts), limit)


def detect_phrases(prompt: str, ctx: Context | None = None) -> list[Hit]:
    """One hit per signal type found in the user's prompt (highest confidence wins)."""
    ctx = ctx or Context()
    if looks_relayed(prompt):  # another agent's words, relayed by the user: not the user's corrections
        return []
    sentences = split_sentences(clean_prompt(prompt))
    best: dict[str, Hit] = {}
    for k, sentence in enumerate(sentences):
        found = match_sentence(sentence, ctx)
        if not found:
            continue
        kind = min((p.type for p, _ in found), key=PRIORITY.index)
        chosen = [p for p, _ in found if p.type == kind]
        confidence = max(p.confidence for p in chosen)
        hit = best.get(kind)
        if hit is None:
            best[kind] = Hit(kind, confidence, [p.id for p in chosen], chosen[0].lang, _quote(sentences, k))
        else:
            hit.confidence = max(hit.confidence, confidence)
            hit.patterns.extend(p.id for p in chosen if p.id not in hit.patterns)
    for hit in best.values():
        hit.tags = _tags(hit.quote, hit.lang)
    return sorted(best.values(), key=lambda h: PRIORITY.index(h.type))


def _looks_like_command(code: str) -> bool:
    code = code.strip()
    if not code or "\n" in code or len(code) > 200:
        return False
    first = code.split()[0]
    return first in COMMAND_WORDS or first.startswith("./") or (len(code.split()) > 1 and " --" in f" {code}")


def detect_commands(prompt: str) -> list[Hit]:
    """Backticked commands the user shares ("run `make test`"); confidence 2 with a run-verb."""
    text = strip_ansi(prompt or "")
    text = TAG_BLOCK.sub(" ", text)
    verbs = P.command_verbs()
    hits: list[Hit] = []
    seen: set[str] = set()
    for match in INLINE_CODE.finditer(text):
        code = match.group(2).strip()
        if code in seen or not _looks_like_command(code):
            continue
        seen.add(code)
        before = normalize(text[max(0, match.start() - 40):match.start()])
        confidence = 2 if verbs.search(before) else 1
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        quote = one_line(text[line_start:line_end if line_end >= 0 else len(text)], 300)
        hits.append(Hit("command", confidence, ["cmd.backticks" if confidence == 1 else "cmd.run-verb"], "",
                        quote, tags=[code.split()[0]]))
    return hits


_MEMORY_INPUT = re.compile(r"<user-memory-input>(.*?)</user-memory-input>", re.S)


def cross_language_hits(prompt: str, prev, found: list[Hit]) -> list[Hit]:
    """What the phrase tables missed in any language (``reaction``): an explicit memory request, and a
    reaction to what the agent just did in the turn before (its tool calls or its words)."""
    from .reaction import memory_request, reaction, standing_clause

    if looks_relayed(prompt):
        return []
    own = clean_prompt(prompt)
    kinds = {hit.type for hit in found}
    noted = _MEMORY_INPUT.search(prompt)   # Claude Code's "#" memory input: the tag block clean_prompt drops
    quote = one_line(noted.group(1) if noted else own, 300)
    if not quote:
        return []
    if "memory_request" not in kinds and (noted or memory_request(own)):
        return [Hit("memory_request", 2, ["x.memory_request.explicit"], "", quote, _tags(quote, ""))]
    acted = prev is not None and (bool(prev.tool_calls) or bool(prev.assistant_texts))
    kind = "" if kinds & {"correction", "memory_request", "revert"} else reaction(own, agent_acted=acted)
    if kind:
        return [Hit("correction", 2, [f"x.correction.{kind}"], "", quote, _tags(quote, ""))]
    standing = "" if kinds & RULE_TYPES else standing_clause(own)
    return [Hit("convention", 2, ["x.convention.standing"], "", standing, _tags(standing, ""))] if standing else []


def _tags(text: str, lang: str) -> list[str]:
    tags = [t for t in polar_terms(text)][:4]
    for match in INLINE_CODE.finditer(text):
        word = match.group(2).split()[0] if match.group(2).split() else ""
        if word and word not in tags:
            tags.append(word)
    if lang and lang != "en":
        tags.append(lang)
    return tags[:6]


def scope_of(text: str) -> str:
    norm = normalize(text)
    if re.search(r"\b(?:in (?:all|every|any) (?:of my )?(?:projects?|repos?|repositories)|globally|everywhere"
                 r"|across (?:all )?(?:projects|repos)|all my projects)\b|所有项目|全局", norm):
        return "global"
    if re.search(r"\b(?:don't|do not|stop|never|no need to)\s+(?:\w+\s+)?(?:ask|asking)\b|不要(?:停下来)?问我", norm):
        return "global"
    return "project"


def detect_missing_context(question_text: str, facts: Iterable[str]) -> tuple[str, str] | None:
    """(question, fact) when the assistant asks something a known fact already answers."""
    questions = [s for s in split_sentences(question_text or "") if s.endswith("?")]
    for question in questions[-3:]:
        q = content_tokens(question)
        if len(q) < 3:
            continue
        for fact in facts:
            f = content_tokens(fact)
            shared = q & f
            if len(shared) >= 3 and len(shared) / len(q) >= 0.5:
                return one_line(question, 300), one_line(fact, 300)
    return None


# --- whole turns ---------------------------------------------------------------------

def _action_summary(turn) -> str:
    if turn is None:
        return ""
    steps = [one_line(c.summary(), 100) for c in turn.tool_calls[-3:]]
    said = one_line(turn.assistant_texts[-1], 160) if turn.assistant_texts else ""
    parts = []
    if steps:
        parts.append("After: " + "; ".join(steps))
    if said:
        parts.append(f"Assistant: {said}")
    return "\n\n".join(parts)


RULE_TYPES = frozenset({"correction", "convention", "memory_request", "revert"})


def _prompt_ok(turn, is_sidechain: bool) -> bool:
    if is_sidechain or getattr(turn, "kind", "prompt") != "prompt":
        return False
    from ..redact import should_skip

    return not should_skip(turn.prompt)


def _decisions(turns: list, previous, classify, is_sidechain: bool) -> dict[str, tuple[bool, float, str]]:
    """The classifier's (flagged, probability, type) per prompt turn uuid, in one batch."""
    if classify is None:
        return {}
    uuids, pairs, prev = [], [], previous
    for turn in turns:
        if _prompt_ok(turn, is_sidechain):
            uuids.append(turn.uuid)
            pairs.append((turn.prompt, prev))
        prev = turn
    return dict(zip(uuids, classify.decide_turns(pairs)))


def _decided(hits: list[Hit], decision: tuple[bool, float, str] | None, prompt: str) -> list[Hit]:
    """The phrase hits the classifier keeps: rule types only when it flags the prompt (their patterns
    then explain why); a flagged prompt no phrase matched gets the classifier's own hit."""
    if decision is None:
        return hits
    flagged, prob, kind = decision
    kept = [h for h in hits if h.type not in RULE_TYPES or flagged]
    confidence = 3 if prob >= 0.8 else 2
    for hit in kept:
        if hit.type in RULE_TYPES:
            hit.patterns.insert(0, "model")
            hit.confidence, hit.prob = max(hit.confidence, confidence), prob
    if flagged and not any(h.type in RULE_TYPES for h in kept):
        quote = one_line(clean_prompt(prompt), 300)
        kept.insert(0, Hit(kind, confidence, ["model"], "", quote, tags=_tags(quote, ""), prob=prob))
    return kept


# long: one pass over the turns wiring phrase hits, the classifier's decision, facts and tool patterns
def detect_turns(turns: list, *, previous=None, facts: Iterable[str] = (),
                 adjust: Callable[[str, str], int] | None = None, is_sidechain: bool = False,
                 classify=None) -> list[Signal]:
    """Signals for ``turns`` in order; ``previous`` is the turn before the first (or None).

    ``classify`` (``classifier.Classifier``), when given, decides which prompts are rule candidates;
    without it the phrase tables decide alone."""
    facts = list(facts)
    decisions = _decisions(turns, previous, classify, is_sidechain)
    out: list[Signal] = []
    prev = previous
    for turn in turns:
        found: list[Signal] = []
        if _prompt_ok(turn, is_sidechain):
            ctx = Context(
                after_reply=prev is not None,  # even an interrupted turn was a reply the user reacts to
                after_action=prev is not None and len(prev.tool_calls) >= 2,
                after_question=prev is not None and prev.assistant_text().rstrip().endswith("?"),
            )
            phrase_hits = detect_phrases(turn.prompt, ctx)
            hits = _decided(phrase_hits + cross_language_hits(turn.prompt, prev, phrase_hits), decisions.get(turn.uuid),
                            turn.prompt)
            for hit in hits + detect_commands(turn.prompt):
                extra = {"lang": hit.lang} if hit.lang and hit.lang != "en" else {}
                if hit.prob is not None:
                    extra["p"] = f"{hit.prob:.2f}"
                found.append(Signal(hit.type, hit.quote, hit.confidence, pattern=", ".join(hit.patterns[:3]),
                                    tags=hit.tags, scope=scope_of(hit.quote), context=_action_summary(prev),
                                    extra=extra))
            if facts and turn.assistant_texts:
                missing = detect_missing_context(turn.assistant_texts[-1], facts)
                if missing:
                    found.append(Signal("missing_context", missing[0], 1, pattern="ctx.known-answer",
                                        context=f"Already known: {missing[1]}"))
        found.extend(detect_tool_patterns(turn.tool_calls))
        for sig in found:
            sig.turn = turn.uuid
            sig.seen = turn.timestamp or ""
            if adjust is not None:
                first = sig.pattern.split(",")[0].strip()
                sig.confidence = max(1, min(3, sig.confidence + adjust(first, sig.type)))
        out.extend(found)
        prev = turn
    return out
