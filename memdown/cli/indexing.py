"""``memdown index`` (build the cache from the markdown) and ``memdown verify`` (check it)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .common import dir_option, echo_notices, json_option, open_memory, print_json
from .progress import Progress


@click.command()
@click.argument("targets", nargs=-1, type=click.Path(path_type=Path))
@click.option("--rebuild", is_flag=True, help="Drop the index and rebuild it from the markdown.")
@click.option("--export", "export_to", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="After indexing, write a verified snapshot of the index to PATH (for a team to --import).")
@click.option("--import", "import_from", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Replace the index with the verified snapshot at PATH, then embed only files that differ.")
@dir_option
@json_option
def index(targets: tuple[Path, ...], rebuild: bool, export_to: Path | None, import_from: Path | None,
          memory_dir: Path | None, as_json: bool) -> None:
    """Index changed markdown files (all of them, or only TARGETS)."""
    from ..errors import InputFileError, UsageError

    if import_from is not None and (rebuild or targets or export_to is not None):
        raise UsageError("--import takes no TARGETS and no --rebuild/--export")
    mem = open_memory(memory_dir)
    if import_from is not None:
        from ..live.lifecycle import stop

        stop(mem.root)  # the daemon holds the old table open; the next search starts a fresh one
        info = mem.import_snapshot(import_from)
        click.echo(f"imported {info.rows} chunks of {info.files} file(s) ({info.model_id}) from {import_from}", err=True)
    progress = Progress("indexing", spinner=False)
    try:
        report = mem.index(list(targets) if targets else None, rebuild=rebuild, progress=progress)
    finally:
        progress.close()
        echo_notices(mem)
    if as_json:
        print_json(report.to_dict())
    else:
        from ..index.table import NO_INDEX_YET

        if report.rebuilt and report.rebuild_reason != NO_INDEX_YET:  # a first build is no news
            click.echo(f"rebuilt index ({report.rebuild_reason})", err=True)
        click.echo(
            f"{report.files_indexed} file(s) indexed, {report.files_unchanged} unchanged, "
            f"{report.files_removed} removed; +{report.chunks_added}/-{report.chunks_removed} chunks "
            f"({report.chunks_total} total), {report.embedded} embedded, {report.seconds:.2f}s"
        )
        if report.vectors_pending:
            click.echo(f"{report.vectors_pending} vectors pending: full-text search works now; vectors are "
                       "filled in the background, newest first (`memdown stats` shows progress)", err=True)
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    for skipped in report.skipped:
        click.echo(f"skipped {skipped['source']}: {skipped['reason']}", err=True)
    named = {Path(t).resolve() for t in targets}
    if any((mem.root / s["source"]).resolve() in named for s in report.skipped):
        raise InputFileError("a file you named could not be indexed (see above)")
    if export_to is not None:
        info = mem.export_snapshot(export_to)
        click.echo(f"exported {info.rows} chunks of {info.files} file(s) ({info.model_id}) to {export_to}, "
                   f"{info.bytes / 1e6:.1f} MB", err=True)


@click.command()
@click.option("--repair", is_flag=True,
              help="Fix what is found (re-index affected files, or rebuild); never touches markdown.")
@dir_option
@json_option
def verify(repair: bool, memory_dir: Path | None, as_json: bool) -> None:
    """Check the index against the markdown: missing, outdated and orphaned
    chunks, row counts, model, unreadable index files. Exit code 5 if
    problems remain."""
    from ..services.upkeep.repair import repair as repair_index
    from ..services.upkeep.verify import verify as verify_index

    mem = open_memory(memory_dir)
    with Progress("checking the index against the markdown") as progress:
        before = verify_index(mem, progress)
    with Progress("repairing the index") as progress:
        after = repair_index(mem, before, progress) if repair and not before.ok else None
    final = after or before
    if as_json:
        data = before.to_dict()
        if after is not None:
            data = {**data, "repaired": after.repaired, "after": after.to_dict()}
        print_json(data)
    else:
        _print_report(before)
        if after is not None:
            for action in after.repaired:
                click.echo(f"repaired: {action}")
            click.echo("after repair: " + ("ok" if after.ok else "; ".join(after.problems)))
    if not final.ok:
        if not as_json and not repair:
            click.echo("run `memdown verify --repair` to fix (the markdown changes only to write back lost entries)",
                       err=True)
        click.get_current_context().exit(5)


def _print_report(report: Any) -> None:
    click.echo(f"root: {report.root}")
    rows = "unreadable" if report.rows is None else str(report.rows)
    click.echo(f"index: {report.index_state}; {report.markdown_files} markdown file(s), "
               f"{report.chunks_expected} chunk(s) expected, {rows} in the index")
    click.echo(f"model: config {report.model.get('configured')}, index {report.model.get('index') or '-'}")
    for name, items in (("not indexed", report.not_indexed), ("outdated", report.outdated),
                        ("orphaned", report.orphaned)):
        if items:
            shown = ", ".join(items[:5]) + (f", … ({len(items) - 5} more)" if len(items) > 5 else "")
            click.echo(f"{name}: {shown}")
    if report.vectors_pending:
        click.echo(f"vectors: {report.vectors_pending} pending, filled in the background (not damage)")
    for item in report.unreadable_markdown:
        click.echo(f"unreadable markdown (not indexed): {item['source']}: {item['reason']}")
    for line in getattr(report, "capture", []):
        click.echo(f"capture: {line}")
    for line in report.missing_turns[:20]:
        click.echo(f"missing (recorded, lost in a race): {line}")
    if report.deleted_turns:
        click.echo(f"deleted by a person (respected): {len(report.deleted_turns)} entr(ies)")
    if report.purged:
        click.echo(f"forgotten everywhere else now (archive, signals, index history, cached vectors): "
                   f"{report.purged} entr(ies) a person deleted")
    if report.cut:
        click.echo(f"forgotten everywhere else now (signals, kept prompts, index history, cached vectors): "
                   f"the words a person cut from {report.cut} entr(ies)")
    if report.ok:
        click.echo("ok")
    else:
        for problem in report.problems:
            click.echo(f"problem: {problem}")


COMMANDS = (index, verify)
