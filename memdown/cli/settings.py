"""``memdown config get|set|list|approve``: settings from global < project < ``MEMDOWN_*`` env."""
from __future__ import annotations

from pathlib import Path

import click

from .common import dir_option, json_option, load_settings, print_json, resolve_root, say


@click.group()
def config() -> None:
    """Read and write settings (global, project, MEMDOWN_* env)."""


@config.command("get")
@click.argument("key")
@dir_option
@json_option
def config_get(key: str, memory_dir: Path | None, as_json: bool) -> None:
    """Print one setting, e.g. `memdown config get search.k`."""
    settings = load_settings(resolve_root(memory_dir))
    value = settings.get(key)
    say(as_json, {"key": key, "value": value, "source": settings.sources.get(key, "default")}, str(value))


@config.command("set")
@click.argument("key")
@click.argument("value")
@click.option("--global", "is_global", is_flag=True, help="Write the global config instead of the project's.")
@dir_option
@json_option
def config_set(key: str, value: str, is_global: bool, memory_dir: Path | None, as_json: bool) -> None:
    """Persist a setting to the project (or --global) config file."""
    from ..config import coerce, set_value

    target = set_value(key, value, root=resolve_root(memory_dir), scope="global" if is_global else "project")
    say(as_json, {"key": key, "value": coerce(key, value), "file": str(target)}, f"{key} = {value}  ({target})")


@config.command("list")
@dir_option
@json_option
def config_list(memory_dir: Path | None, as_json: bool) -> None:
    """Every setting with its value and where it came from."""
    settings = load_settings(resolve_root(memory_dir))
    flat = settings.flat()
    if as_json:
        print_json({k: {"value": v, "source": settings.sources.get(k, "default")} for k, v in flat.items()})
        return
    for key, value in flat.items():
        click.echo(f"{key} = {value!r}  ({settings.sources.get(key, 'default')})")


@config.command("approve")
@click.argument("keys", nargs=-1, required=True)
@dir_option
@json_option
def config_approve(keys: tuple[str, ...], memory_dir: Path | None, as_json: bool) -> None:
    """Let this project's committed config choose a model or turn on a paid step (this machine only)."""
    from ..committed_config import approve
    from ..config import project_value

    root = resolve_root(memory_dir)
    done = []
    for name in keys:
        key, value = project_value(root, name)
        approve(root, key, value)
        done.append({"key": key, "value": value, "root": str(root)})
    if as_json:
        print_json(done)
        return
    for item in done:
        click.echo(f"approved {item['key']} = {item['value']!r} for {root} (recorded under MEMDOWN_HOME)")


COMMANDS = (config,)
