"""``memdown install CLIENT`` / ``memdown uninstall CLIENT``: memdown in another coding agent's settings.

Claude Code gets memdown as a plugin (README); these commands set up the clients that take hooks from
their own settings files: Codex CLI (``services.codex_setup``), GitHub Copilot CLI and Cursor
(``services.agent_hooks``). They write a person's settings, so they are never run for an agent (the
agent-safe command list).
"""
from __future__ import annotations

import click

from ..fence import clean
from .common import json_option
from .render import to_json

CLIENTS = ("codex", "copilot", "cursor")
_client = click.argument("client", type=click.Choice(CLIENTS))
_project = click.option("--project", is_flag=True,
                        help="The repository's settings (.codex/, .github/hooks/, .cursor/: committed, shared) "
                             "instead of your own (~/.codex, ~/.copilot/hooks, ~/.cursor).")
_TRUST = {"codex": "Codex runs new hooks only after you trust them: start codex and review them in /hooks.",
          "cursor": "Cursor loads hooks.json when it starts: restart Cursor."}


def _setup(client: str, verb: str, project: bool):
    """Run ``verb`` (install or uninstall) of the service that writes ``client``'s settings."""
    if client == "codex":
        from ..services import codex_setup

        return getattr(codex_setup, verb)(project=project)
    from ..services import agent_hooks

    return getattr(agent_hooks, verb)(client, project=project)


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
    report = _setup(client, "install", project)
    _show(report, "wrote", as_json)
    if report.changes and not as_json and client in _TRUST:
        click.echo(_TRUST[client])


@click.command()
@_client
@_project
@json_option
def uninstall(client: str, project: bool, as_json: bool) -> None:
    """Remove exactly what `memdown install CLIENT` added (your other settings stay)."""
    _show(_setup(client, "uninstall", project), "", as_json)  # each change already says "removed …"


COMMANDS = (install, uninstall)
