"""Options and helpers shared by the command modules."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .. import paths
from .queryspec import DIR, FENCE, JSON
from .render import to_json

if TYPE_CHECKING:
    from ..api import Memory
    from ..config import Config

# The same declarations the query commands and the warm fast path use.
dir_option = click.option(*DIR.flags, DIR.dest, type=click.Path(file_okay=False, path_type=Path),
                          default=None, help=DIR.help)
json_option = click.option(*JSON.flags, JSON.dest, is_flag=True, help=JSON.help)
fence_option = click.option("/".join(FENCE.flags), FENCE.dest, default=None, help=FENCE.help)


def resolve_root(memory_dir: Path | None) -> Path:
    return paths.memory_root(memory_dir)


def load_settings(root: Path) -> "Config":
    """The configuration, read once per command at this edge and passed down."""
    from ..config import load_config

    return load_config(root)


def open_memory(memory_dir: Path | None) -> "Memory":
    from ..api import Memory  # heavy imports stay out of --help

    root = resolve_root(memory_dir)
    return Memory.open(root, config=load_settings(root))


def echo_notices(mem: "Memory") -> None:
    for note in mem.notices:
        click.echo(f"memdown: {note}", err=True)


def print_json(data: Any) -> None:
    click.echo(to_json(data))


def say(as_json: bool, data: Any, line: str) -> None:
    """``data`` as JSON under ``--json``, else the one-line summary."""
    if as_json:
        print_json(data)
    else:
        click.echo(line)


def stderr_is_tty() -> bool:
    return sys.stderr.isatty()
