"""``memdown stale``: the memories whose code has changed since they were written."""
from __future__ import annotations

from pathlib import Path

import click

from .common import dir_option, json_option, print_json, resolve_root


@click.command("stale")
@click.option("--all", "include_fresh", is_flag=True, help="Also list entries whose citations still hold.")
@dir_option
@json_option
def stale(include_fresh: bool, memory_dir: Path | None, as_json: bool) -> None:
    """List memories whose cited code changed, moved or was deleted since they were written.

    Each entry cites the files and symbols it talks about (docs/freshness.md); update it, or retire it
    with `memdown forget`.
    """
    from .. import paths
    from ..services.recall.staleness import stale_entries
    from ..store.citations import summary_line

    root = resolve_root(memory_dir)
    paths.require_root(root)
    found = stale_entries(root, include_fresh=include_fresh)
    if as_json:
        print_json(found)
        return
    if not found:
        click.echo("no stale memories: every entry's cited code still holds (or cites nothing checkable)")
        return
    for item in found:
        first = next((line for line in item["text"].splitlines() if line.strip()), "")
        click.echo(f"{item['source']}  {item['day']} {item['time']}  [{item['freshness']['state']}]")
        click.echo(f"    {first[:160]}")
        line = summary_line(item["freshness"])
        if line:
            click.echo(f"    {line}")
    click.echo(f"{len(found)} entr{'y' if len(found) == 1 else 'ies'}; update them, or retire one with `memdown forget`")


COMMANDS = (stale,)
