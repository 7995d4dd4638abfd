"""Core commands: init, index, search, expand, stats, config, model."""
from __future__ import annotations

import time
from pathlib import Path

import click

from .common import dir_option, json_option, print_json, resolve_root, stderr_is_tty
from .queryspec import EXPAND, SEARCH, STATS, Opt, request_for
from .render import render


def _memory(memory_dir: Path | None):
    from ..api import Memory  # heavy imports stay out of --help

    return Memory.open(resolve_root(memory_dir))


def _query(memory_dir: Path | None, op: str, params: dict) -> object:
    """Ask the warm daemon first; fall back to answering in this process.

    Both paths run ``services.queries.run_query``, so output is the same.
    """
    from .fastpath import answer_from_daemon

    root = resolve_root(memory_dir)
    answered, result = answer_from_daemon(root, op, params, lambda line: click.echo(line, err=True))
    if answered:
        return result
    from ..services.queries import run_query

    mem = _memory(root)
    try:
        return run_query(mem, op, params)
    finally:
        for note in mem.notices:
            click.echo(f"memdown: {note}", err=True)
        if mem.root.is_dir():
            from ..daemon.client import start_for_next_query

            start_for_next_query(mem.root)  # the next search in a fresh process is answered warm


def _declared(specs: tuple[Opt, ...]):
    """Click options from the shared declarations in ``queryspec``."""
    def decorate(func):
        for opt in reversed(specs):
            kwargs: dict = {"help": opt.help, "metavar": opt.metavar}
            if opt.kind == "flag":
                kwargs.update(is_flag=True)
            elif opt.kind == "int":
                kwargs.update(type=int, default=None)
            elif opt.kind == "nonneg":
                kwargs.update(type=click.IntRange(min=0), default=0)
            elif opt.kind == "multi":
                kwargs.update(multiple=True)
            elif opt.kind == "choice":
                kwargs.update(type=click.Choice(list(opt.choices)), default=None)
            elif opt.kind == "path":
                func = dir_option(func)
                continue
            else:
                kwargs.update(default=None)
            func = click.option(*opt.flags, opt.dest, **kwargs)(func)
        return func
    return decorate


def _run_query_command(command: str, values: dict) -> None:
    op, params = request_for(command, values)
    result = _query(values.get("memory_dir"), op, params)
    render(op, result, as_json=bool(values.get("as_json")), out=click.echo,
           err=lambda line: click.echo(line, err=True))


class _Progress:
    """A rich progress bar on a TTY, shown only once a run passes one second."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.bar = None
        self.task = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not stderr_is_tty():
            return
        if self.bar is None:
            if time.monotonic() - self.started < 1.0 and done < total:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self.bar = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                                TimeRemainingColumn(), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(stage, total=total)
        self.bar.update(self.task, completed=done, total=total, description=stage)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def register(cli: click.Group) -> None:
    @cli.command()
    @dir_option
    def init(memory_dir: Path | None) -> None:
        """Create the memory layout (.memdown/ with memory/ and a .gitignore)."""
        from ..store.layout import init_layout

        root = resolve_root(memory_dir)
        created = init_layout(root, register_driver=True)
        click.echo(f"memory root: {root}")
        for item in created:
            click.echo(f"  created {item}")
        click.echo("Write markdown under memory/, then run `memdown index`.")

    @cli.command("merge-file")
    @click.argument("base", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    @click.argument("ours", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    @click.argument("theirs", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    def merge_file(base: Path, ours: Path, theirs: Path) -> None:
        """Git merge driver (set up by `memdown init`): merge memory files entry by entry into OURS."""
        from ..services.merge import merge_files

        if not merge_files(base, ours, theirs):
            click.echo(f"memdown: an entry was changed on both sides; marked in {ours}", err=True)
            click.get_current_context().exit(1)

    @cli.command()
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
        mem = _memory(memory_dir)
        if import_from is not None:
            from ..daemon.lifecycle import stop

            stop(mem.root)  # the daemon holds the old table open; the next search starts a fresh one
            info = mem.import_snapshot(import_from)
            click.echo(f"imported {info.rows} chunks of {info.files} file(s) ({info.model_id}) from {import_from}",
                       err=True)
        progress = _Progress()
        try:
            report = mem.index(list(targets) if targets else None, rebuild=rebuild, progress=progress)
        finally:
            progress.close()
            for note in mem.notices:
                click.echo(f"memdown: {note}", err=True)
        if as_json:
            print_json(report.to_dict())
        else:
            if report.rebuilt:
                click.echo(f"rebuilt index ({report.rebuild_reason})", err=True)
            click.echo(
                f"{report.files_indexed} file(s) indexed, {report.files_unchanged} unchanged, "
                f"{report.files_removed} removed; +{report.chunks_added}/-{report.chunks_removed} chunks "
                f"({report.chunks_total} total), {report.embedded} embedded, {report.seconds:.2f}s"
            )
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

    @cli.command()
    @click.argument("query", nargs=-1)
    @_declared(SEARCH)
    def search(**values) -> None:
        """Search memory: hybrid full-text + vector ranking, fused with RRF."""
        _run_query_command("search", values)

    @cli.command()
    @click.argument("chunk_id")
    @_declared(EXPAND)
    def expand(**values) -> None:
        """Show the whole section containing a search hit, with its session anchor."""
        _run_query_command("expand", values)

    @cli.command()
    @_declared(STATS)
    def stats(**values) -> None:
        """Files, chunks per kind, index size, model and last indexing time."""
        _run_query_command("stats", values)

    @cli.group()
    def config() -> None:
        """Read and write settings (global, project, MEMDOWN_* env)."""

    @config.command("get")
    @click.argument("key")
    @dir_option
    def config_get(key: str, memory_dir: Path | None) -> None:
        """Print one setting, e.g. `memdown config get search.k`."""
        from ..config import load_config

        click.echo(load_config(resolve_root(memory_dir)).get(key))

    @config.command("set")
    @click.argument("key")
    @click.argument("value")
    @click.option("--global", "is_global", is_flag=True, help="Write the global config instead of the project's.")
    @dir_option
    def config_set(key: str, value: str, is_global: bool, memory_dir: Path | None) -> None:
        """Persist a setting to the project (or --global) config file."""
        from ..config import set_value

        target = set_value(key, value, root=resolve_root(memory_dir), scope="global" if is_global else "project")
        click.echo(f"{key} = {value}  ({target})")

    @config.command("list")
    @dir_option
    @json_option
    def config_list(memory_dir: Path | None, as_json: bool) -> None:
        """Every setting with its value and where it came from."""
        from ..config import load_config

        cfg = load_config(resolve_root(memory_dir))
        flat = cfg.flat()
        if as_json:
            print_json({k: {"value": v, "source": cfg.sources.get(k, "default")} for k, v in flat.items()})
            return
        for key, value in flat.items():
            click.echo(f"{key} = {value!r}  ({cfg.sources.get(key, 'default')})")

    @cli.group()
    def model() -> None:
        """Embedding model management (the default model ships with memdown)."""

    @model.command("pull")
    @click.argument("name", required=False)
    @dir_option
    def model_pull(name: str | None, memory_dir: Path | None) -> None:
        """Download a hub model for offline use (needs network; the packaged model needs nothing)."""
        from ..config import load_config
        from ..index.embedder import pull_model

        name = name or load_config(resolve_root(memory_dir))["embedding.model"]
        where = pull_model(name)
        click.echo(f"{name} ready in {where}")
