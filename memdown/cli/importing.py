"""``memdown import``: bring existing Claude Code history into memory (``services.importer``)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from .common import dir_option, json_option, load_settings, print_json, resolve_root
from .progress import Progress


@click.command("import")
@click.argument("targets", nargs=-1, type=click.Path(path_type=Path))
@click.option("--summarize", type=click.Choice(["extractive", "claude"]), default="extractive", show_default=True,
              help="How entries are summarized: extractive (no model calls) or claude (`claude -p`, one call "
                   "per entry, on your quota; the number is said before it starts).")
@click.option("--no-index", is_flag=True, help="Leave the index to the next `memdown index` or search.")
@dir_option
@json_option
def import_cmd(targets: tuple[Path, ...], summarize: str, no_index: bool, memory_dir: Path | None,
               as_json: bool) -> None:
    """Bring in existing Claude Code history: this project's sessions, or the TARGETS transcripts/folders.

    Each turn lands on the day it happened; signals on the day they were said. Running it again adds
    nothing, and an interrupted import resumes where it stopped.
    """
    from ..services.importer import (find_transcripts, history_dirs, import_transcripts, pending_units,
                                     update_index)

    root = resolve_root(memory_dir)
    transcripts = find_transcripts(list(targets), cwd=Path.cwd(), root=root)
    if not transcripts:
        where = ", ".join(str(p) for p in history_dirs(Path.cwd(), root)) or "this project's Claude Code history"
        if as_json:
            print_json({"sessions": 0, "turns": 0, "entries": 0, "signals": 0, "skipped": 0, "seconds": 0.0})
        else:
            click.echo(f"Nothing to import: no transcripts in {where}.")
        return
    config = load_settings(root)
    use_claude = summarize == "claude"
    if use_claude:
        import shutil

        from ..errors import UsageError

        if shutil.which("claude") is None:
            raise UsageError("--summarize claude needs the `claude` CLI on PATH", hint="or leave it out: extractive")
        calls = pending_units(root, transcripts)
        click.echo(f"import: --summarize claude makes {calls} `claude -p` call(s) on your quota "
                   f"({len(transcripts)} session(s)).", err=True)
    started = time.monotonic()
    try:
        with Progress("importing sessions", plain=True) as progress:
            report = import_transcripts(root, transcripts, config=config, use_claude=use_claude,
                                        progress=lambda stage, done, total, _what: progress(stage, done, total),
                                        index=False)
        if not no_index:
            with Progress("updating the index", plain=True) as progress:
                report.indexed_files = update_index(root, config, progress)
            report.seconds = round(time.monotonic() - started, 2)
    except KeyboardInterrupt:
        click.echo("import: interrupted; what was written is kept. Run `memdown import` again to continue.",
                   err=True)
        sys.exit(130)
    if as_json:
        print_json(report.to_dict())
        return
    click.echo(f"Imported {report.sessions} session(s): {report.entries} entr(ies) from {report.turns} new turn(s), "
               f"{report.signals} signal(s); {report.skipped} turn(s) already recorded or not memories; "
               f"{report.seconds:.1f} s.")
    for error in report.errors:
        click.echo(f"skipped {error}", err=True)
    if report.signals:
        click.echo("Review what the signals propose with `memdown reflect list`.")


COMMANDS = (import_cmd,)
