"""``memdown install CLIENT`` / ``memdown uninstall CLIENT``: memdown in another coding agent's settings.

Claude Code gets memdown as a plugin (README); these commands set up the clients that take hooks from
their own settings files (Codex CLI today). They write a person's settings, so they are never run for
an agent (the agent-safe command list).
"""
from __future__ import annotations

import click

from ..fence import clean
from .common import json_option
from .render import to_json

CLIENTS = ("codex",)
_client = click.argument("client", type=click.Choice(CLIENTS))
_project = click.option("--project", is_flag=True,
                        help="The repository's .codex/ (committed, shared) instead of your own ~/.codex (CODEX_HOME).")


def _show(report, verb: str, as_json: bool) -> None:
    if as_json:
        click.echo(to_json({"hooks_file": str(report.hooks_file), "skill_file": str(report.skill_file),
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
    """Add memdown's hooks and recall skill to CLIENT's settings (idempotent; keeps your other settings)."""
    from ..services.codex_setup import install as install_codex

    report = install_codex(project=project)
    _show(report, "wrote", as_json)
    if report.changes and not as_json:
        click.echo("Codex runs new hooks only after you trust them: start codex and review them in /hooks.")


@click.command()
@_client
@_project
@json_option
def uninstall(client: str, project: bool, as_json: bool) -> None:
    """Remove exactly what `memdown install CLIENT` added (your other settings stay)."""
    from ..services.codex_setup import uninstall as uninstall_codex

    _show(uninstall_codex(project=project), "", as_json)  # each change already says "removed …"


COMMANDS = (install, uninstall)
