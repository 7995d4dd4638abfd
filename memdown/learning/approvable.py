"""What keeps a candidate off the review queue because a person could not approve it as written
(issue 30 item 3), beyond ``candidates.actionable`` and ``candidates.one_off``.

* A fix that throws something away is not a step to repeat: it removes files (``rm``, ``rmdir``,
  ``unlink``), discards work (``git checkout``/``switch``/``restore``/``reset``/``clean``/``stash``), closes or
  deletes on a forge (``gh pr close``, ``gh repo delete``…) or kills processes. Read with the guards' shell
  parser (``shellcmd.command_views``: wrappers, ``bash -c``, ``&&`` chains), never by substring.
* A rule holds no question: "…应该是和base一样吗？" and "我就是想问…" ask; the rule is in the answer.
* A rule is one line a person reads at a glance: past ``MAX_RULE_CHARS`` it is a task, a spec or a pasted
  message (a self-introduction taken as a memory request), kept as evidence; so is a paragraph (three
  sentences, or two past ``PARAGRAPH_CHARS``): a decision written out, whose rule a person would still
  have to find in it.

Session 8 (``hold_reason``: every group kept off the queue gets a reason, counted by ``reflect list``):

* An edit streak is an observation about one file, not a rule, however many sessions saw it.
* "remember to add a transition effect…" is a to-do for this task, not something to keep.
* An order for the task at hand, said once: "DO NOT EXECUTE ANY TASKS. PLAN AND DEFINE ONLY.", "no code yet",
  "先别提交", "帮我看看那个autonomy" — a time or task scope (yet, for now, this time, plan only, 先, 暂时…) or a request
  for help with the work ("help me", 帮我, помоги, 도와줘…) and no standing word
  (always, never, from now on, 以后, 每次, 不再…). Restated in other prompts or sessions, it is a preference.
"""
from __future__ import annotations

import re

from ..signals.reaction import prohibition

MAX_RULE_CHARS = 200
PARAGRAPH_CHARS = 120
_REMOVES = frozenset({"rm", "rmdir", "unlink", "shred", "kill", "pkill", "killall", "taskkill"})
_GIT_DISCARDS = frozenset({"git checkout", "git switch", "git restore", "git reset", "git clean", "git stash",
                           "git rm"})
_FORGE_DISCARDS = frozenset({"close", "delete", "archive", "lock"})
_QUESTION = re.compile(r"[?？]|[吗嗎呢](?:[\s。.!！]|$)|想问|想問|请问|請問|問一下|问一下|"
                       r"(?i:\bi (?:just )?(?:want|wanted|was going) to ask\b|\bje (?:voulais|veux) (?:te |vous )?demander\b|"
                       r"\bqueria (?:te )?(?:perguntar|saber)\b|\bхотел (?:бы )?спросить\b)")
_FIX_SPANS = re.compile(r"`([^`]+)`")
_ONLY_CODE = re.compile(r"^\W*(?:`[^`]+`\W*)+$")


def discards(command: str) -> str:
    """Why running ``command`` throws something away ('' when it does not, or cannot be read)."""
    from ..shellcmd import command_views, program, subcommand_key

    try:
        views = command_views(command)
    except Exception:  # noqa: BLE001 - not a command the parser reads: nothing to judge
        return ""
    for _chain, words in views:
        if not words:
            continue
        name = program(words[0])
        if name in _REMOVES:
            return f"removes with {name}"
        if subcommand_key(words) in _GIT_DISCARDS:
            return f"discards with {subcommand_key(words)}"
        if name == "gh" and any(w in _FORGE_DISCARDS for w in words[1:3]):
            return "closes or deletes on the forge"
    return ""


def fix_discards(fix: str) -> str:
    """Why a recorded fix (``Bash `…```, possibly several) throws something away, or ''."""
    for span in _FIX_SPANS.findall(fix or ""):
        why = discards(span)
        if why:
            return why
    return ""


_SENTENCE_END = re.compile(r"[.!?;。！？；](?=\s|$|[^\x00-\x7f])")
_TODO = re.compile(r"(?i)\b(?:remember|don'?t forget|do not forget) to\b|n'oublie pas de|no olvides|"
                   r"não (?:se )?esque[çc]a de|non dimenticare di|не забудь|别忘了|別忘了|不要忘了|忘れずに")
_FOR_NOW = re.compile(
    r"(?i)\b(?:yet|for now|right now|for the moment|this time|at this point|today|tonight|until|any tasks?|"
    r"(?:plan|define|read|analy[sz]e|discuss) only|only (?:plan|define|read|analy[sz]e|discuss)|"
    r"pour (?:l'instant|le moment)|pas encore|ainda|por (?:enquanto|ahora|agora)|todav[ií]a|per ora|ancora|"
    r"jeszcze|na razie|пока|ещё|chưa|tạm thời|help me|aide-moi|ajude-me|me ajuda|ayúdame|помоги|pomóż|aiutami|giúp tôi)\b|"
    r"先(?!前)|暂时|暫時|这次|這次|目前|今は|とりあえず|まず|일단|우선|아직|[帮幫]我|[帮幫]忙|도와|手伝って")
# "help me …", "帮我看看…": a request for work on the task at hand, whatever else the sentence says ("…那个应该是没用的")
_STANDING = re.compile(
    r"(?i)\b(?:always|never|every ?time|each time|whenever|from now on|going forward|anymore|again|by default|"
    r"in (?:this|our|the) (?:repo|repository|project|codebase)|toujours|jamais|désormais|siempre|nunca|sempre|"
    r"mai più|zawsze|nigdy|всегда|никогда|впредь|luôn|không bao giờ)\b|"
    r"以后|以後|每次|永远|永遠|一律|总是|總是|始终|始終|(?:不要|不|别|別)再|再也|いつも|今後|常に|毎回|항상|앞으로|매번|절대")
# 再 alone is "then" ("先记下来，…后再想办法优化": note it first, optimise later); "don't … again" is 不要再 / 别再


def not_a_rule(text: str) -> str:
    """Why a proposed rule's text is no rule a person could approve as written, or ''."""
    if len(text) > MAX_RULE_CHARS:
        return "longer than a rule"
    if _QUESTION.search(text):
        return "holds a question"
    sentences = len([s for s in _SENTENCE_END.split(text) if len(s.strip()) >= 2])
    if sentences >= 3 or sentences >= 2 and len(text) > PARAGRAPH_CHARS:
        return "a paragraph, not one rule"
    return ""


def order_for_now(text: str) -> bool:
    """An order scoped to the task at hand (yet, for now, plan only, 先…) with no standing word."""
    return bool(_FOR_NOW.search(text)) and not _STANDING.search(text)


def hold_reason(kind: str, type_: str, text: str, quotes: list[str], sessions: int, restated: int) -> str:
    """Why a candidate (its kind, signal type, proposed text, its quotes, the sessions it was seen in and
    how often the user restated it) is evidence rather than a rule a person would approve, or ''."""
    if type_ == "multi_edit":
        return "an edit streak: an observation about a file, not a rule"
    if kind == "reflexion" and len(text) > MAX_RULE_CHARS:
        return "a recipe longer than a rule (a pasted error and a chain of steps)"
    if kind != "rule":
        return ""
    if _ONLY_CODE.match(text):
        return "a command with no word of when or why to run it"
    if type_ == "memory_request" and quotes and all(_TODO.search(q) for q in quotes):
        return "a to-do for the task at hand, not something to keep"
    if type_ in ("correction", "convention", "memory_request") and sessions < 2 and restated < 2 \
            and any(order_for_now(q) for q in quotes or [text]):
        return "an order for the task at hand, said once"
    return ""


SAID_AGAIN = 0.7   # trigram Jaccard: "use pnpm not npm" / "use yarn not npm" is 0.5, "always …" / "never …" 0.59


def said_again(a: str, b: str) -> bool:
    """The same words said again in any script, up to a letter's accent ("Nie wywołuj xcodebuild." / "Nie
    wywoluj xcodebuild.", 0.76) where word tokens differ: character trigrams (``repetition.grams``) overlapping
    by ``SAID_AGAIN``, above what one changed word or a flipped polarity leaves."""
    from ..signals.repetition import grams

    ga, gb = grams(a), grams(b)
    return bool(ga and gb) and len(ga & gb) >= SAID_AGAIN * len(ga | gb)


_DENSE_SCRIPT = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def repeated_correction(members: list, text: str) -> bool:
    """A correction the user made in two or more prompts is a rule however it is worded ("Nie wywołuj
    xcodebuild." twice), when it says more than a report ("Non funziona.", "还是不行": under three words or six
    characters of a script written without spaces)."""
    said = len(text.split()) >= 3 or len(_DENSE_SCRIPT.findall(text)) >= 6
    return said and all(s.type == "correction" for s in members) and len({(s.session, s.turn) for s in members}) >= 2


# A correction is said about one step; it is a rule only when worded as one (a directive, a standing cue). A
# directive word directs where it opens a clause ("Never run…", "ok, only use…") or follows the one it is said to
# ("you should…", "we always…", "你应该…"); in a statement about the code or a bug report it describes: "it should be
# possible to…", "…never updates and the spinner keeps showing", "a break point … not hit after backfill", "那个应该是
# 没用的" (应该: "probably"), "我记得…" ("I recall").
_DIRECTIVE_ANYWHERE = re.compile(r"\b(?:doesn'?t need|instead|from now on|going forward|every time|each time)\b|"
                                 r"不要|别|別|必[须須]|以[后後]|每次|永[远遠]|一律|[总總]是|[请請]|(?<!我)[记記]得|只[能用要]|"
                                 r"(?:你|您|我们|我們|咱们|咱們)\w{0,4}?[應应][該该]", re.I)
_DIRECTIVE_OPENS = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|and|but|also|then|now|please|pls|just|yes|no|nope|hey|oh|ah|well|hmm+|ugh|argh?|actually|"
    r"again)\W+)*(?:(?:i (?:want|need|would like|'d like) )?(?:you|we|u)\s+(?:\w+\s+){0,2}?)?"
    r"(?:always|never|don'?t|do not|must|should(?:n'?t)?|stop|avoid|prefer|make sure|remember|before|after|only|"
    r"use|run|call|keep|put|add|write|name|ask|check|be)\b", re.I)


def worded_as_rule(text: str) -> bool:
    """A directive (``_DIRECTIVE_ANYWHERE``, or a directive word where it directs) or a prohibition in any language."""
    if _DIRECTIVE_ANYWHERE.search(text) or prohibition(text):
        return True
    return any(_DIRECTIVE_OPENS.match(clause) for clause in _CLAUSES.split(text))


_CLAUSES = re.compile(r"[.!?;:,](?=\s|$)\s*|[，。！？；：]\s*|\s+[-–—]\s+")   # "role.name" is one word
