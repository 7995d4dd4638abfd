"""Core commands: init, index, search, expand, stats, config, model."""
from __future__ import annotations

import time
from pathlib import Path

import click

from .common import dir_option, json_option, print_json, resolve_root, stderr_is_tty

SEARCH_HELP_FOOTER = "Expand a hit with: memdown expand <id>"


def _memory(memory_dir: Path | None):
    from ..api import Memory  # heavy imports stay out of --help

    return Memory.open(resolve_root(memory_dir))


def _query(memory_dir: Path | None, op: str, params: dict) -> object:
    """Ask the warm daemon first; fall back to answering in this process.

    Both paths run ``services.queries.run_query``, so output is the same.
    """
    from ..daemon.client import ask_daemon
    from ..errors import MemdownError

    root = resolve_root(memory_dir)
    reply = ask_daemon(root, op, params)
    if reply is not None:
        for note in reply.get("notices", []):
            click.echo(f"memdown: {note}", err=True)
        if reply.get("ok"):
            return reply.get("result")
        error = MemdownError(str(reply.get("error", "the daemon failed")))
        error.exit_code = int(reply.get("exit_code", 1))
        raise error
    from ..services.queries import run_query

    mem = _memory(root)
    try:
        return run_query(mem, op, params)
    finally:
        for note in mem.notices:
            click.echo(f"memdown: {note}", err=True)


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
        created = init_layout(root)
        click.echo(f"memory root: {root}")
        for item in created:
            click.echo(f"  created {item}")
        click.echo("Write markdown under memory/, then run `memdown index`.")

    @cli.command()
    @click.argument("targets", nargs=-1, type=click.Path(path_type=Path))
    @click.option("--rebuild", is_flag=True, help="Drop the index and rebuild it from the markdown.")
    @dir_option
    @json_option
    def index(targets: tuple[Path, ...], rebuild: bool, memory_dir: Path | None, as_json: bool) -> None:
        """Index changed markdown files (all of them, or only TARGETS)."""
        from ..errors import InputFileError

        mem = _memory(memory_dir)
        progress = _Progress()
        try:
            report = mem.index(list(targets) if targets else None, rebuild=rebuild, progress=progress)
        finally:
            progress.close()
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

    @cli.command()
    @click.argument("query", nargs=-1)
    @click.option("-k", "k", type=int, default=None, help="How many results (default: config search.k).")
    @click.option("--kind", default=None, help="Only this kind: summary, signal, learning, improvement, reflexion, note.")
    @click.option("--since", default=None, metavar="YYYY-MM-DD", help="Only entries dated on or after.")
    @click.option("--until", default=None, metavar="YYYY-MM-DD", help="Only entries dated on or before.")
    @click.option("--source", default=None, metavar="GLOB", help="Only files matching GLOB (relative to the memory root).")
    @click.option("--mode", type=click.Choice(["hybrid", "vector", "text"]), default=None, help="Retriever (default hybrid).")
    @click.option("--concept", "concepts", multiple=True,
                  help="Multi-concept AND search: repeat for each concept; only sessions/files matching all are returned.")
    @dir_option
    @json_option
    def search(query: tuple[str, ...], k, kind, since, until, source, mode, concepts, memory_dir, as_json) -> None:
        """Search memory: hybrid full-text + vector ranking, fused with RRF."""
        from ..errors import UsageError

        text = " ".join(query).strip()
        if not text and not concepts:
            raise UsageError("give a query, or two or more --concept options")
        filters = dict(k=k, kind=kind, since=since, until=until, source=source, mode=mode)
        if concepts:
            matches = _query(memory_dir, "concepts", {"concepts": ([text] if text else []) + list(concepts), **filters})
            if as_json:
                print_json(matches)
                return
            if not matches:
                click.echo("no session or file matches every concept")
            for m in matches:
                click.echo(f"{m['group']}  score {m['score']:.4f}")
                for hit in m["hits"]:
                    click.echo(f"  {hit['id'][:12]}  {hit['source']}:{hit['start_line']}-{hit['end_line']}  "
                               f"{_snippet(hit['text'], 100)}")
            return
        hits = _query(memory_dir, "search", {"query": text, **filters})
        if as_json:
            print_json(hits)
            return
        if not hits:
            click.echo("no matches")
            return
        for hit in hits:
            where = f"{hit['source']}:{hit['start_line']}-{hit['end_line']}"
            session = f"session {hit['session'][:8]}" if hit["session"] else ""
            meta = " ".join(x for x in (hit["kind"], hit["date"], session) if x)
            click.echo(f"{hit['id'][:12]}  {hit['score']:.4f}  {where}  [{meta}]")
            click.echo(f"    {hit['heading']}")
            click.echo(f"    {_snippet(hit['text'], 220)}")
        click.echo(SEARCH_HELP_FOOTER)

    @cli.command()
    @click.argument("chunk_id")
    @click.option("--lines", type=click.IntRange(min=0), default=0, help="Also show N lines before and after the section.")
    @dir_option
    @json_option
    def expand(chunk_id: str, lines: int, memory_dir: Path | None, as_json: bool) -> None:
        """Show the whole section containing a search hit, with its session anchor."""
        exp = _query(memory_dir, "expand", {"id": chunk_id, "lines": lines})
        if as_json:
            print_json(exp)
            return
        click.echo(f"{exp['source']}:{exp['start_line']}-{exp['end_line']}  ({exp['kind']}"
                   f"{', ' + exp['date'] if exp['date'] else ''})")
        click.echo(f"heading: {exp['heading']}")
        if exp["session"]:
            click.echo(f"session: {exp['session']}  turn: {exp['turn'] or '-'}  transcript: {exp['transcript'] or '-'}")
            if exp["turn"]:
                click.echo(f"drill down: memdown transcript {exp['session']} --turn {exp['turn'][:8]}")
        if exp["stale"]:
            click.echo("note: the file changed since indexing; run `memdown index`", err=True)
        click.echo("")
        click.echo(exp["text"])

    @cli.command()
    @dir_option
    @json_option
    def stats(memory_dir: Path | None, as_json: bool) -> None:
        """Files, chunks per kind, index size, model and last indexing time."""
        data = _query(memory_dir, "stats", {})
        if as_json:
            print_json(data)
            return
        click.echo(f"root: {data['root']}")
        click.echo(f"index: {data['index_state']}; {data['files']} files, {data['chunks']} chunks, "
                   f"{data['index_bytes'] / 1e6:.1f} MB")
        for kind, count in data["chunks_by_kind"].items():
            click.echo(f"  {kind}: {count}")
        click.echo(f"model: {data['model']}")
        click.echo(f"last indexed: {data['last_indexed'] or 'never'}")

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


def _snippet(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
