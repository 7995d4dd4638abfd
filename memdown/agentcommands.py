"""THE list of which memdown commands an agent may run (``cli/agentsafe.py`` enforces it on the click tree).

Here, below the CLI and without click, so the PreToolUse hook reads the same list: a PERSON command run
from any client's shell tool is refused there too, whatever the environment says (an agent can clear
its variables; it cannot hide the command from the hook that sees every shell call).

- ``READ``: prints what memory holds; changes nothing a person decided (``search``, ``expand``, …).
- ``MEMORY``: writes memory, the index or caches, as the hooks do on their own (``index``, ``import``,
  ``watch``, ``hook``); never a person's settings, rules, guards, approvals or CLAUDE.md.
- ``PERSON``: changes what a person decides: settings, approvals, rules, guards, CLAUDE.md, mining on/off.

A command missing from ``COMMANDS`` counts as PERSON (fail closed). Standard library only.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

READ, MEMORY, PERSON = "read", "memory", "person"



class Rule:
    """A command's kind; ``reads_when`` names the parameter values under which a PERSON command only reads."""

    __slots__ = ("kind", "reads_when")

    def __init__(self, kind: str, reads_when: Callable[[dict[str, Any]], bool] | None = None) -> None:
        self.kind = kind
        self.reads_when = reads_when


def _showing_mining(params: dict[str, Any]) -> bool:
    return params.get("state") in (None, "status")


# Keyed by the command path without the program name ("reflect promote"). Others adding a command add it here.
COMMANDS: dict[str, Rule] = {
    "search": Rule(READ), "expand": Rule(READ), "transcript": Rule(READ), "stats": Rule(READ),
    "stale": Rule(READ),  # lists memories whose cited code changed (git reads only)
    "mcp": Rule(READ),  # serves search, expand, transcript and stats (read-only tools)
    "config get": Rule(READ), "config list": Rule(READ),
    "reflect list": Rule(READ), "reflect show": Rule(READ), "reflect stats": Rule(READ),
    "watch status": Rule(READ),
    "config": Rule(READ), "reflect": Rule(READ), "model": Rule(READ),  # groups: they only pick a subcommand
    # memory, index and caches: what the hooks write anyway
    "init": Rule(MEMORY), "index": Rule(MEMORY), "import": Rule(MEMORY), "verify": Rule(MEMORY),
    "merge-file": Rule(MEMORY), "model pull": Rule(MEMORY), "reflect mine": Rule(MEMORY),
    "watch": Rule(MEMORY), "watch start": Rule(MEMORY), "watch stop": Rule(MEMORY),
    "hook": Rule(MEMORY), "worker": Rule(MEMORY),  # run by the client and by hooks (CLAUDECODE is set there)
    # a person's settings, approvals, rules, guards, CLAUDE.md
    "config set": Rule(PERSON), "config approve": Rule(PERSON),
    "reflect promote": Rule(PERSON), "reflect dismiss": Rule(PERSON), "reflect undo": Rule(PERSON),
    "reflect sweep": Rule(PERSON),
    "reflect guards": Rule(PERSON, reads_when=lambda params: not params.get("remove_id")),
    "mining": Rule(PERSON, reads_when=_showing_mining), "capture": Rule(PERSON, reads_when=_showing_mining),
    "install": Rule(PERSON), "uninstall": Rule(PERSON),  # a client's settings: hooks Codex runs, its skills
    "forget": Rule(PERSON),  # removes memory for good, everywhere: a person decides that, not an injected line
}
AGENT_SAFE = frozenset(path for path, rule in COMMANDS.items() if rule.kind != PERSON)


def needs_person(path: str, params: dict[str, Any]) -> bool:
    rule = COMMANDS.get(path, Rule(PERSON))
    return rule.kind == PERSON and not (rule.reads_when is not None and rule.reads_when(params))
