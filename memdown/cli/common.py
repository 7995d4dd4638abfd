"""Options and helpers shared by the command modules."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from .. import paths
from .queryspec import DIR, JSON
from .render import to_json

# The same declarations the query commands and the warm fast path use.
dir_option = click.option(*DIR.flags, DIR.dest, type=click.Path(file_okay=False, path_type=Path),
                          default=None, help=DIR.help)
json_option = click.option(*JSON.flags, JSON.dest, is_flag=True, help=JSON.help)


def resolve_root(memory_dir: Path | None) -> Path:
    return paths.memory_root(memory_dir)


def print_json(data: Any) -> None:
    click.echo(to_json(data))


def stderr_is_tty() -> bool:
    return sys.stderr.isatty()
