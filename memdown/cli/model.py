"""``memdown model pull``: embedding models (the default one ships with memdown)."""
from __future__ import annotations

from pathlib import Path

import click

from .common import dir_option, json_option, load_settings, resolve_root, say


@click.group()
def model() -> None:
    """Embedding model management (the default model ships with memdown)."""


@model.command("pull")
@click.argument("name", required=False)
@dir_option
@json_option
def model_pull(name: str | None, memory_dir: Path | None, as_json: bool) -> None:
    """Download a hub model for offline use (needs network; the packaged model needs nothing)."""
    from ..index.embedder import pull_model

    name = name or load_settings(resolve_root(memory_dir))["embedding.model"]
    where = pull_model(name)
    say(as_json, {"model": name, "path": str(where)}, f"{name} ready in {where}")


COMMANDS = (model,)
