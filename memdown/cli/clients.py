"""``memdown install CLIENT`` / ``memdown uninstall CLIENT``: memdown in another coding agent's settings.

Claude Code gets memdown as a plugin (README); these commands set up the clients that take hooks from
their own settings files: Codex CLI (``services.clients.codex_setup``), Gemini CLI (``services.clients.gemini_setup``),
GitHub Copilot CLI, Cursor and OpenCode's plugin (``services.clients.agent_hooks``). ``SETUPS`` is the one
place that knows them.
They write a person's settings, so they are never run for an agent (the agent-safe command list).
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import click

from ..fence import clean
from .common import json_option
from .render import to_json


def _codex(verb: str, project: bool) -> Any:
    from ..services.clients import codex_setup

    return getattr(codex_setup, verb)(project=project)


def _gemini(verb: str, project: bool) -> Any:
    from ..services.clients import gemini_setup

    return getattr(gemini_setup, verb)(project=project)


def _opencode(verb: str, project: bool) -> Any:
    from ..services.clients import agent_hooks

    return getattr(agent_hooks, f"{verb}_plugin")(project=project)


def _agent_hooks(client: str) -> Callable[[str, bool], Any]:
    def run(verb: str, project: bool) -> Any:
        from ..services.clients import agent_hooks

        return getattr(agent_hooks, verb)(client, project=project)

    return run


class Setup(NamedTuple):
    run: Callable[[str, bool], Any]  # (install|uninstall, project) -> the service's report
    settings: str  # where --project writes, and where it writes without it
    after_install: str = ""  # told after an install that changed something


SETUPS: dict[str, Setup] = {
    "codex": Setup(_codex, ".codex/ and .agents/skills/ (else ~/.codex)",
                   "Codex runs new hooks only after you trust them: start codex and review them in /hooks."),
    "gemini": Setup(_gemini, ".gemini/settings.json (else ~/.gemini/settings.json)",
                    "Gemini CLI runs a project's hooks only in a folder you trust (and warns once about new ones); "
                    "/hooks lists them."),
    "copilot": Setup(_agent_hooks("copilot"), ".github/hooks/ (else ~/.copilot/hooks)"),
    "cursor": Setup(_agent_hooks("cursor"), ".cursor/ (else ~/.cursor)",
                    "Cursor loads hooks.json when it starts: restart Cursor."),
    "opencode": Setup(_opencode, ".opencode/plugins/ (else ~/.config/opencode/plugins)",
                      "OpenCode loads plugins when it starts: restart opencode."),
}
CLIENTS = tuple(SETUPS)
_client = click.argument("client", type=click.Choice(CLIENTS))
_project = click.option("--project", is_flag=True, help="The repository's settings (committed, shared) instead of "
                        "your own: " + "; ".join(f"{name}: {s.settings}" for name, s in SETUPS.items()) + ".")


def _show(report, verb: str, as_json: bool) -> None:
    if as_json:
        skill = str(report.skill_file) if report.skill_file else None
        click.echo(to_json({"hooks_file": str(report.hooks_file), "skill_file": skill,
                            "changed": report.changes, "kept": report.kept}))
        return
    for change in report.changes:
        click.echo(clean(f"{verb} {change}".strip()))
    for kept in report.kept:
        click.echo(clean(f"kept {kept}"))
    if not report.changes:
        click.echo(clean(f"nothing to change in {report.hooks_file}"))


@click.command()
@_client
@_project
@json_option
def install(client: str, project: bool, as_json: bool) -> None:
    """Add memdown's hooks (and Codex's recall skill) to CLIENT's settings (idempotent; keeps your other settings)."""
    setup = SETUPS[client]
    report = setup.run("install", project)
    _show(report, "wrote", as_json)
    if report.changes and not as_json and setup.after_install:
        click.echo(setup.after_install)


@click.command()
@_client
@_project
@json_option
def uninstall(client: str, project: bool, as_json: bool) -> None:
    """Remove exactly what `memdown install CLIENT` added (your other settings stay)."""
    _show(SETUPS[client].run("uninstall", project), "", as_json)  # each change already says "removed …"


COMMANDS = (install, uninstall)
