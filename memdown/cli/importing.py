"""``memdown import``: bring existing Claude Code history into memory (``services.capture.importer``)."""
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
    from ..services.capture.importer import import_transcripts, pending_units, survey, update_index

    root = resolve_root(memory_dir)
    found = survey(list(targets), cwd=Path.cwd(), root=root)
    transcripts = found.transcripts
    if not transcripts:
        _nothing_found(found, as_json)
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
            report = import_transcripts(root, found, config=config, use_claude=use_claude,
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
    _summary(report)


def _nothing_found(found, as_json: bool) -> None:
    """No transcript to import: where memdown looked, and what it found there instead."""
    from ..services.capture.importer import ImportReport

    report = ImportReport(looked_in=[str(p) for p in found.looked_in])
    for path, reason in found.skipped:
        report.skip(path, reason)
    if as_json:
        print_json(report.to_dict())
        return
    where = "; ".join(f"{p}{'' if p.is_dir() else ' (no such folder)'}" for p in found.looked_in)
    click.echo(f"Nothing to import: no Claude Code transcript in {where or 'the named folders'}.")
    _reasons(report)


def _summary(report) -> None:
    click.echo(f"Looked at {report.files} file(s): {report.imported} session(s) imported, "
               f"{report.already_imported} already imported, {report.skipped_sessions} skipped.")
    if report.imported:
        click.echo(f"Imported {report.imported} session(s): {report.entries} entr(ies) from {report.turns} new "
                   f"turn(s), {report.signals} signal(s); {report.skipped} turn(s) already recorded or not "
                   f"memories; {report.seconds:.1f} s.")
    else:
        click.echo(f"Nothing new: every session read was imported before; {report.seconds:.1f} s.")
    _reasons(report)
    if report.signals:
        click.echo("Review what the signals propose with `memdown reflect list`.")


def _reasons(report) -> None:
    """One line per reason a file was skipped or a turn held back, with its count."""
    for reason, count in report.reasons().items():
        click.echo(f"skipped {count} file(s): {reason}")
    held: dict[str, int] = {}
    for item in report.held_back:
        held[item["reason"]] = held.get(item["reason"], 0) + 1
    for reason, count in held.items():
        click.echo(f"held back the last turn of {count} session(s): {reason}")
    for reason, count in getattr(report, "left_out", {}).items():
        click.echo(f"left out {count} prompt(s): {reason}")


COMMANDS = (import_cmd,)
