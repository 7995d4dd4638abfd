"""``memdown watch start|stop|status``: the live index daemon of a memory root.

Bare ``memdown watch`` means ``watch start``. The old flags ``--stop`` and
``--status`` still work for one release and print a one-line notice.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from .. import paths
from .common import dir_option, json_option, print_json, resolve_root, say

_Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def _start_options(func: Callable[..., Any]) -> Callable[..., Any]:
    decorators: tuple[_Decorator, ...] = (
        click.option("--debounce-ms", type=click.IntRange(min=0), default=None,
                     help="Wait this long after the last file event before re-indexing "
                          "(default: config watch.debounce_ms)."),
        click.option("--foreground", is_flag=True, help="Run in this process instead of starting a background daemon."),
        click.option("--idle-seconds", type=float, default=None, hidden=True,
                     help="Exit after this many idle seconds (overrides watch.idle_minutes; 0 = never)."),
        dir_option,
        json_option,
    )
    for decorate in reversed(decorators):
        func = decorate(func)
    return func


@click.group(invoke_without_command=True)
@click.option("--stop", "do_stop", is_flag=True, hidden=True, help="Deprecated: use `memdown watch stop`.")
@click.option("--status", "do_status", is_flag=True, hidden=True, help="Deprecated: use `memdown watch status`.")
@_start_options
@click.pass_context
def watch(ctx: click.Context, do_stop: bool, do_status: bool, debounce_ms: int | None, foreground: bool,
          idle_seconds: float | None, memory_dir: Path | None, as_json: bool) -> None:
    """Keep the index current as markdown changes, and answer searches warm.

    One background daemon per memory root re-indexes changed files shortly
    after they change, serves search/expand/stats over a private Unix socket,
    and exits after watch.idle_minutes without searches or file events.
    Logs go to .memdown/logs/watch.log. `memdown watch` alone means
    `memdown watch start`.
    """
    from ..errors import UsageError

    if ctx.invoked_subcommand is not None:
        if do_stop or do_status:
            raise UsageError("--stop/--status cannot be combined with a watch subcommand")
        return
    if sum((foreground, do_stop, do_status)) > 1:
        raise UsageError("use only one of --foreground, --stop and --status")
    root = resolve_root(memory_dir)
    if do_status or do_stop:
        name = "status" if do_status else "stop"
        click.echo(f"memdown: `memdown watch --{name}` is deprecated and goes away in the next release; "
                   f"use `memdown watch {name}`", err=True)
        (_show_status if do_status else _stop)(root, as_json)
        return
    _start(root, debounce_ms, foreground, idle_seconds, as_json)


def _inherited(ctx: click.Context, name: str, value: Any) -> Any:
    """A subcommand's option, or the same option given before it (`memdown watch --dir X stop`)."""
    if value not in (None, False) or ctx.parent is None:
        return value
    return ctx.parent.params.get(name, value)


@watch.command("start")
@_start_options
@click.pass_context
def start_cmd(ctx: click.Context, debounce_ms: int | None, foreground: bool, idle_seconds: float | None,
              memory_dir: Path | None, as_json: bool) -> None:
    """Start the daemon for this memory root (a second start says one is running)."""
    root = resolve_root(_inherited(ctx, "memory_dir", memory_dir))
    _start(root, _inherited(ctx, "debounce_ms", debounce_ms), _inherited(ctx, "foreground", foreground),
           _inherited(ctx, "idle_seconds", idle_seconds), _inherited(ctx, "as_json", as_json))


@watch.command("stop")
@dir_option
@json_option
@click.pass_context
def stop_cmd(ctx: click.Context, memory_dir: Path | None, as_json: bool) -> None:
    """Stop the daemon for this memory root."""
    _stop(resolve_root(_inherited(ctx, "memory_dir", memory_dir)), _inherited(ctx, "as_json", as_json))


@watch.command("status")
@dir_option
@json_option
@click.pass_context
def status_cmd(ctx: click.Context, memory_dir: Path | None, as_json: bool) -> None:
    """Show whether a daemon runs for this memory root, and what it is doing."""
    _show_status(resolve_root(_inherited(ctx, "memory_dir", memory_dir)), _inherited(ctx, "as_json", as_json))


def _start(root: Path, debounce_ms: int | None, foreground: bool, idle_seconds: float | None,
           as_json: bool) -> None:
    from ..live import lifecycle
    from ..errors import MemdownError

    paths.require_root(root)
    if foreground:
        _run_foreground(root, debounce_ms, idle_seconds)
        return
    pid = lifecycle.running_pid(root, wait=0.5)
    if pid is not None:
        say(as_json, {"root": str(root), "running": True, "started": False, "pid": pid},
            f"memdown watch is already running for {root} (pid {pid})")
        return
    child = lifecycle.start_detached(root, debounce_ms=debounce_ms, idle_seconds=idle_seconds)
    if not lifecycle.wait_until_ready(root, child):
        raise MemdownError(f"the watch daemon did not come up; see {lifecycle.log_file(root)}")
    pid = lifecycle.running_pid(root) or child
    started = pid == child
    say(as_json, {"root": str(root), "running": True, "started": started, "pid": pid},
        f"memdown watch {'started' if started else 'is already running'} for {root} (pid {pid}); "
        f"log: {lifecycle.log_file(root)}")


def _stop(root: Path, as_json: bool) -> None:
    from ..live import lifecycle

    pid = lifecycle.stop(root)
    say(as_json, {"root": str(root), "stopped": pid is not None, "pid": pid},
        f"stopped (pid {pid})" if pid else f"not running for {root}")


def _show_status(root: Path, as_json: bool) -> None:
    from ..live import lifecycle

    info = lifecycle.status(root)
    if as_json:
        print_json(info)
        return
    if info["running"]:
        line = f"running (pid {info['pid']}) for {root}"
        daemon = info.get("daemon")
        if daemon:
            line += (f"; {daemon['requests']} queries, {daemon['files_indexed']} file updates, "
                     f"{'warm' if daemon['warm'] else 'warming up'}, idle {daemon['idle_seconds']:.0f}s")
        else:
            line += "; not answering on its socket"
        click.echo(line)
    else:
        click.echo(f"not running for {root}")
        if info["stale_files"]:
            click.echo(f"  stale files from a stopped daemon (the next start replaces them): "
                       f"{', '.join(info['stale_files'])}")
    click.echo(f"socket: {info['socket']}")
    click.echo(f"log: {info['log']}")


def _run_foreground(root: Path, debounce_ms: int | None, idle_seconds: float | None) -> None:
    """Run the daemon here; exit the process hard afterwards (no lingering threads)."""
    import logging

    from ..daemon.process import serve

    os.environ.setdefault("LANCEDB_LOG", "error")
    code, message = serve(root, debounce_ms=debounce_ms, idle_seconds=idle_seconds)
    click.echo(message, err=True)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


COMMANDS = (watch,)
