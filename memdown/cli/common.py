"""Options and helpers shared by the command modules."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from .. import paths

dir_option = click.option(
    "--dir",
    "memory_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Memory root (default: $MEMDOWN_DIR, else <main git worktree>/.memdown).",
)

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def resolve_root(memory_dir: Path | None) -> Path:
    return paths.memory_root(memory_dir)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def stderr_is_tty() -> bool:
    return sys.stderr.isatty()
