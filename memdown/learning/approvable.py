"""What keeps a candidate off the review queue because a person could not approve it as written
(issue 30 item 3), beyond ``candidates.actionable`` and ``candidates.one_off``.

* A fix that throws something away is not a step to repeat: it removes files (``rm``, ``rmdir``,
  ``unlink``), discards work (``git checkout``/``switch``/``restore``/``reset``/``clean``/``stash``), closes or
  deletes on a forge (``gh pr close``, ``gh repo delete``…) or kills processes. Read with the guards' shell
  parser (``shellcmd.command_views``: wrappers, ``bash -c``, ``&&`` chains), never by substring.
* A rule holds no question: "…应该是和base一样吗？" and "我就是想问…" ask; the rule is in the answer.
* A rule is one line a person reads at a glance: past ``MAX_RULE_CHARS`` it is a task, a spec or a pasted
  message (a self-introduction taken as a memory request), kept as evidence.
"""
from __future__ import annotations

import re

MAX_RULE_CHARS = 200
_REMOVES = frozenset({"rm", "rmdir", "unlink", "shred", "kill", "pkill", "killall", "taskkill"})
_GIT_DISCARDS = frozenset({"git checkout", "git switch", "git restore", "git reset", "git clean", "git stash",
                           "git rm"})
_FORGE_DISCARDS = frozenset({"close", "delete", "archive", "lock"})
_QUESTION = re.compile(r"[?？]|[吗嗎呢](?:[\s。.!！]|$)|想问|想問|请问|請問|問一下|问一下|"
                       r"(?i:\bi (?:just )?(?:want|wanted|was going) to ask\b|\bje (?:voulais|veux) (?:te |vous )?demander\b|"
                       r"\bqueria (?:te )?(?:perguntar|saber)\b|\bхотел (?:бы )?спросить\b)")
_FIX_SPANS = re.compile(r"`([^`]+)`")


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


def not_a_rule(text: str) -> str:
    """Why a proposed rule's text is no rule a person could approve as written, or ''."""
    if len(text) > MAX_RULE_CHARS:
        return "longer than a rule"
    if _QUESTION.search(text):
        return "holds a question"
    return ""
