"""The read-only query commands: ``search``, ``expand`` and ``stats``.

Their options come from the declarations in ``queryspec``, shared with the
click-free warm fast path (``fastpath``); output comes from ``render``, so
both paths print the same bytes for the same answer.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from .common import dir_option, echo_notices, fence_option, open_memory, resolve_root
from .queryspec import EXPAND, SEARCH, STATS, Opt, request_for
from .recorded import wanted
from .render import render

_KIND_OPTIONS: dict[str, dict[str, Any]] = {
    "flag": {"is_flag": True},
    "int": {"type": int, "default": None},
    "nonneg": {"type": click.IntRange(min=0), "default": 0},
    "multi": {"multiple": True},
    "str": {"default": None},
}


def declared(specs: tuple[Opt, ...]) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Click options from the shared declarations in ``queryspec``."""
    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        for opt in reversed(specs):
            if opt.kind == "path":
                func = dir_option(func)
                continue
            if opt.kind == "switch":
                func = fence_option(func)
                continue
            kwargs: dict[str, Any] = {"help": opt.help, "metavar": opt.metavar}
            if opt.kind == "choice":
                kwargs.update(type=click.Choice(list(opt.choices)), default=None)
            else:
                kwargs.update(_KIND_OPTIONS[opt.kind])
            func = click.option(*opt.flags, opt.dest, **kwargs)(func)
        return func
    return decorate


def _query(memory_dir: Path | None, op: str, params: dict[str, Any]) -> Any:
    """Ask the warm daemon first; fall back to answering in this process.

    Both paths run ``services.recall.queries.run_query``, so output is the same.
    """
    from .fastpath import answer_from_daemon

    root = resolve_root(memory_dir)
    answered, result = answer_from_daemon(root, op, params, lambda line: click.echo(line, err=True))
    if answered:
        return result
    from ..services.recall.queries import run_query
    from .progress import Progress

    mem = open_memory(root)
    mem.progress = progress = Progress("building the index", spinner=False)  # shown only if it has to build
    try:
        return run_query(mem, op, params)
    finally:
        progress.close()
        echo_notices(mem)
        if mem.root.is_dir():
            from ..live.lifecycle import start_for_next_query

            if start_for_next_query(mem.root, mem.config) == "started":  # the next query is answered warm
                click.echo(daemon_started(mem.config["watch.idle_minutes"]), err=True)


def daemon_started(idle_minutes: int) -> str:
    """The one line a query says when it started the daemon in the background."""
    return (f"memdown: started the live index for this memory in the background (answers the next queries warm, "
            f"exits after {idle_minutes} idle minutes; `memdown watch stop` ends it, "
            f"`memdown config set watch.start_on_query false` stops queries from starting it)")


def run_query_command(command: str, values: dict[str, Any]) -> None:
    op, params = request_for(command, values)
    result = _query(values.get("memory_dir"), op, params)
    render(op, result, as_json=bool(values.get("as_json")), out=click.echo,
           err=lambda line: click.echo(line, err=True), fenced=wanted(values.get("fence")))


@click.command()
@click.argument("query", nargs=-1)
@declared(SEARCH)
def search(**values: Any) -> None:
    """Search memory: hybrid full-text + vector ranking, fused with RRF."""
    run_query_command("search", values)


@click.command()
@click.argument("chunk_id")
@declared(EXPAND)
def expand(**values: Any) -> None:
    """Show the whole section containing a search hit, with its session anchor."""
    run_query_command("expand", values)


@click.command()
@declared(STATS)
def stats(**values: Any) -> None:
    """Files, chunks per kind, index size, model and last indexing time."""
    run_query_command("stats", values)


COMMANDS = (search, expand, stats)
