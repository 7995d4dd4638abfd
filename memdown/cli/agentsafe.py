"""THE list of which memdown commands an agent may run, enforced once for the whole click tree.

Every command (each leaf, and each group that runs code of its own) is classified here:

- ``READ``: prints what memory holds; changes nothing a person decided (``search``, ``expand``, …).
- ``MEMORY``: writes memory, the index or caches, as the hooks do on their own (``index``, ``import``,
  ``watch``, ``hook``); never a person's settings, rules, guards, approvals or CLAUDE.md.
- ``PERSON``: changes what a person decides: settings, approvals, rules, guards, CLAUDE.md, mining on/off.

READ and MEMORY are agent-safe. A PERSON command refuses when it runs in an agent's environment
(one of ``envflags.AGENT_ENV`` is set: what Claude Code, Codex, Gemini CLI, Cursor, Copilot and OpenCode
put in their shell tools' environment) unless a person confirms at a terminal: stdin and stdout are
both terminals (an agent's Bash tool has neither) and the person types ``yes``. It then ends with
``AgentRefusedError`` (exit 11). A command missing from ``COMMANDS`` counts as PERSON (fail closed);
``tests/test_agent_safe.py`` walks the click tree and fails on any command not listed here.

This stops a cooperative model that follows an injected instruction ("run memdown reflect promote
…"); a model that deliberately clears its environment (``env -u CLAUDECODE``) or builds a terminal
(``script``) is not stopped by it: that is what the client's own permission rules are for (the
recall skill may run only ``memdown search|expand|transcript|stats``, see skills/memory-recall).
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from functools import wraps
from typing import Any

import click

from ..agentcommands import AGENT_SAFE, COMMANDS, MEMORY, PERSON, READ, Rule, needs_person  # noqa: F401 - the one list
from ..envflags import agent_variables
from ..errors import AgentRefusedError

CONFIRM_WORD = "yes"


def command_paths(group: click.Group, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    """Every command of the tree: each leaf, and each group (which may run code of its own)."""
    for name, command in sorted(group.commands.items()):
        path = f"{prefix} {name}".strip()
        yield path, command
        if isinstance(command, click.Group):
            yield from command_paths(command, path)


def check(path: str, params: dict[str, Any]) -> None:
    """Raise ``AgentRefusedError`` when an agent runs a PERSON command without a person confirming."""
    if not needs_person(path, params):
        return
    found = agent_variables()
    if not found or _person_confirms(path, found):
        return
    raise AgentRefusedError(
        f"`memdown {path}` changes a person's settings, rules or approvals and refuses to run from an agent's "
        f"shell ({', '.join(found)} set)", hint="run it yourself in a terminal")


def _person_confirms(path: str, found: list[str]) -> bool:
    try:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return False
        sys.stderr.write(f"memdown: {', '.join(found)} is set, as in an agent's shell. `memdown {path}` changes "
                         f"your settings, rules or approvals; type {CONFIRM_WORD} to go on: ")
        sys.stderr.flush()
        return sys.stdin.readline().strip().lower() == CONFIRM_WORD
    except (OSError, ValueError):
        return False


def enforce(group: click.Group) -> None:
    """Put ``check`` in front of every callback of the tree (once, where the application is built)."""
    for path, command in command_paths(group):
        if command.callback is not None and not getattr(command.callback, "_memdown_gated", False):
            command.callback = _gated(path, command.callback)


def _gated(path: str, callback: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        check(path, kwargs)
        return callback(*args, **kwargs)

    run._memdown_gated = True  # type: ignore[attr-defined]
    return run
