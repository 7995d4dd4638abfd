"""``memdown transcript``: list a session's turns or drill into one.

Memory entries point at ``session-id`` + turn uuid; this command resolves the
pointer back to what was said and done, from the live transcript or the archive.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from .. import fsutil
from .common import dir_option, fence_option, json_option, print_json, resolve_root
from .recorded import Fenced, labelled, wanted


def _recorded_transcripts(root: Path) -> Iterator[Path]:
    """Transcript paths named by this memory's anchors (read lazily, only when needed)."""
    from .. import paths
    from ..store.anchors import ANCHOR_RE, anchor_unescape, parse_anchor
    from ..transcript.archive import resolve_portable

    for day in paths.daily_files(root):
        try:
            text = fsutil.read_text(day, errors="replace")
        except OSError:
            continue
        for match in ANCHOR_RE.finditer(text):
            anchor = parse_anchor(match.group(0))
            if anchor is not None and anchor.transcript:
                yield resolve_portable(anchor_unescape(anchor.transcript))


@click.command("transcript")
@click.argument("ref")
@click.option("--turn", "turn_ref", metavar="UUID_PREFIX", default=None,
              help="Show this turn (uuid prefix from the list, or 'last').")
@click.option("--context", "-C", type=click.IntRange(0, 50), default=0, show_default=True,
              help="Also show N turns before and after it.")
@dir_option
@json_option
@fence_option
def transcript(ref: str, turn_ref: str | None, context: int, memory_dir: Path | None, as_json: bool,
               fence: bool | None) -> None:
    """List the turns of a Claude Code session, or show one turn.

    REF is a transcript path, a ~/ path, or a session id (a unique prefix of
    8+ characters is enough); archived sessions are found too. Only Claude Code
    transcripts are read: under ~/.claude/projects, the archive, or sessions
    the memory (--dir) recorded.
    """
    from ..errors import NotFoundError
    from ..transcript.archive import find_transcript
    from ..transcript.layout import require_transcript
    from ..clients import parse_log
    from ..transcript.parser import last_turn, locate_turn
    from ..transcript.render import format_turn_list, list_turns_json, render_turns, render_turns_json

    recorded = _recorded_transcripts(resolve_root(memory_dir))
    parsed = parse_log(require_transcript(find_transcript(ref), recorded))
    if turn_ref is None:
        _show(list_turns_json(parsed) if as_json else format_turn_list(parsed), as_json, wanted(fence))
        return
    if turn_ref.strip().lower() == "last":
        turn = last_turn(parsed)
        if turn is None:
            raise NotFoundError(f"session {parsed.session_id} has no turns")
    else:
        turn = locate_turn(parsed, turn_ref)[1]
    shown = render_turns_json(parsed, turn, context) if as_json else render_turns(parsed, turn, context)
    _show(shown, as_json, wanted(fence))


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
