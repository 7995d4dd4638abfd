"""``memdown transcript``: list a session's turns or drill into one.

Memory entries point at ``session-id`` + turn uuid; this command resolves the
pointer back to what was said and done, from the live transcript or the archive.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .common import dir_option, fence_option, json_option, print_json, resolve_root
from .recorded import Fenced, labelled, wanted


@click.command("transcript")
@click.argument("ref")
@click.option("--turn", "turn_ref", metavar="UUID_PREFIX", default=None,
              help="Show this turn (uuid prefix from the list, or 'last').")
@click.option("--context", "-C", type=click.IntRange(0, 50), default=0, show_default=True,
              help="Also show N turns before and after it.")
@click.option("--raw", is_flag=True,
              help="Show secrets unredacted (a person at a terminal only; refused under a coding agent).")
@dir_option
@json_option
@fence_option
def transcript(ref: str, turn_ref: str | None, context: int, memory_dir: Path | None, as_json: bool,
               fence: bool | None, raw: bool) -> None:
    """List the turns of a Claude Code session, or show one turn.

    REF is a transcript path, a ~/ path, or a session id (a unique prefix of
    8+ characters is enough); archived sessions are found too. Only Claude Code
    transcripts are read: under ~/.claude/projects, the archive, or sessions
    the memory (--dir) recorded. Secrets are redacted as in the daily log and
    the archive; --raw shows the recorded text to a person at a terminal.
    """
    if raw:
        _require_person_at_terminal()
    from ..services.recall.drilldown import transcript_view

    shown = transcript_view(resolve_root(memory_dir), ref, turn_ref, context, as_json=as_json, raw=raw)
    _show(shown, as_json, wanted(fence))


def _require_person_at_terminal() -> None:
    """``--raw`` puts secrets on the screen: only for a person at a terminal, never for an agent
    (whose Bash tool reads it into the model's context) or a pipe."""
    import sys

    from .. import config
    from ..errors import UsageError

    if config.agent_running():
        raise UsageError("--raw is refused under a coding agent (CLAUDECODE …): it would put secrets into the "
                         "model's context")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("--raw needs a person at a terminal (stdin and stdout a TTY)")


def _show(shown: Any, as_json: bool, fenced: bool) -> None:
    """JSON (labelled records when fenced), or the text view (one fenced block when fenced)."""
    if as_json:
        print_json(labelled(shown) if fenced else shown)
    elif fenced:
        block = Fenced("transcript", click.echo)
        block(shown)
        block.close()
    else:
        click.echo(shown)


COMMANDS = (transcript,)
