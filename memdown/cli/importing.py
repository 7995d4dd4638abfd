"""``memdown import``: bring existing Claude Code history into memory (``services.importer``)."""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from .common import dir_option, json_option, load_settings, print_json, resolve_root, stderr_is_tty

PLAIN_EVERY_SECONDS = 2.0  # plain progress lines (not a terminal): at most one per this many seconds


class _ImportProgress:
    """A rich bar on a terminal; otherwise a plain line now and then (never with --json on stdout's behalf)."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.task: Any = None
        self.last_line = 0.0

    def __call__(self, stage: str, done: int, total: int, what: str) -> None:
        if stderr_is_tty():
            self._bar(done, total, what)
            return
        now = time.monotonic()
        if done == total or now - self.last_line >= PLAIN_EVERY_SECONDS:
            self.last_line = now
            click.echo(f"import: {done}/{total} session(s)" + (f" ({what})" if what else ""), err=True)

    def _bar(self, done: int, total: int, what: str) -> None:
        if self.bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self.bar = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                                TimeRemainingColumn(), console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("importing", total=total)
        self.bar.update(self.task, completed=done, total=total, description=f"importing {what[:40]}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _index_progress() -> Any:
    """The index stage's progress: the bar ``memdown index`` shows on a terminal, a line otherwise."""
    if stderr_is_tty():
        from .indexing import _Progress

        return _Progress()
    click.echo("import: updating the index", err=True)
    return None


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
        calls = pending_units(root, transcripts)
        click.echo(f"import: --summarize claude makes {calls} `claude -p` call(s) on your quota "
                   f"({len(transcripts)} session(s)).", err=True)
    progress = _ImportProgress()
    index_progress = None
    started = time.monotonic()
    try:
        report = import_transcripts(root, transcripts, config=config, use_claude=use_claude, progress=progress,
                                    index=False)
        progress.close()
        if not no_index:
            index_progress = _index_progress()
            report.indexed_files = update_index(root, config, index_progress)
            report.seconds = round(time.monotonic() - started, 2)
    except KeyboardInterrupt:
        progress.close()
        click.echo("import: interrupted; what was written is kept. Run `memdown import` again to continue.",
                   err=True)
        sys.exit(130)
    finally:
        if index_progress is not None:
            index_progress.close()
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
