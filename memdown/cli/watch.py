"""``memdown watch`` (the live index daemon) and ``memdown verify``."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from .. import paths
from .common import dir_option, json_option, print_json, resolve_root


def register(cli: click.Group) -> None:
    @cli.command()
    @click.option("--debounce-ms", type=click.IntRange(min=0), default=None,
                  help="Wait this long after the last file event before re-indexing (default: config watch.debounce_ms).")
    @click.option("--foreground", is_flag=True, help="Run in this process instead of starting a background daemon.")
    @click.option("--stop", "do_stop", is_flag=True, help="Stop the daemon for this memory root.")
    @click.option("--status", "do_status", is_flag=True, help="Show whether a daemon runs, and what it is doing.")
    @click.option("--idle-seconds", type=float, default=None, hidden=True,
                  help="Exit after this many idle seconds (overrides watch.idle_minutes; 0 = never).")
    @dir_option
    @json_option
    def watch(debounce_ms, foreground, do_stop, do_status, idle_seconds, memory_dir, as_json) -> None:
        """Keep the index current as markdown changes, and answer searches warm.

        Starts one background daemon per memory root (a second `memdown watch`
        just says one is running). It re-indexes changed files shortly after
        they change, serves search/expand/stats over a private Unix socket,
        and exits after watch.idle_minutes without searches or file events.
        Logs go to .memdown/logs/watch.log.
        """
        from ..daemon import lifecycle
        from ..errors import UsageError

        if sum((foreground, do_stop, do_status)) > 1:
            raise UsageError("use only one of --foreground, --stop and --status")
        root = resolve_root(memory_dir)
        if do_status:
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
            return
        if do_stop:
            pid = lifecycle.stop(root)
            if as_json:
                print_json({"root": str(root), "stopped": pid is not None, "pid": pid})
            else:
                click.echo(f"stopped (pid {pid})" if pid else f"not running for {root}")
            return
        paths.require_root(root)
        if foreground:
            _run_foreground(root, debounce_ms, idle_seconds)
            return
        pid = lifecycle.running_pid(root, wait=0.5)
        if pid is not None:
            _say(as_json, {"root": str(root), "running": True, "started": False, "pid": pid},
                 f"memdown watch is already running for {root} (pid {pid})")
            return
        child = lifecycle.start_detached(root, debounce_ms=debounce_ms, idle_seconds=idle_seconds)
        if not lifecycle.wait_until_ready(root, child):
            from ..errors import MemdownError

            raise MemdownError(f"the watch daemon did not come up; see {lifecycle.log_file(root)}")
        pid = lifecycle.running_pid(root) or child
        started = pid == child
        _say(as_json, {"root": str(root), "running": True, "started": started, "pid": pid},
             f"memdown watch {'started' if started else 'is already running'} for {root} (pid {pid}); "
             f"log: {lifecycle.log_file(root)}")

    @cli.command()
    @click.option("--repair", is_flag=True, help="Fix what is found (re-index affected files, or rebuild); never touches markdown.")
    @dir_option
    @json_option
    def verify(repair: bool, memory_dir: Path | None, as_json: bool) -> None:
        """Check the index against the markdown: missing, outdated and orphaned
        chunks, row counts, model, unreadable index files. Exit code 5 if
        problems remain."""
        from ..api import Memory
        from ..services import verify as verify_service

        mem = Memory.open(resolve_root(memory_dir))
        before = verify_service.verify(mem)
        after = verify_service.repair(mem, before) if repair and not before.ok else None
        final = after or before
        if as_json:
            data = before.to_dict()
            if after is not None:
                data = {**data, "repaired": after.repaired, "after": after.to_dict()}
            print_json(data)
        else:
            _print_report(before)
            if after is not None:
                for action in after.repaired:
                    click.echo(f"repaired: {action}")
                click.echo("after repair: " + ("ok" if after.ok else "; ".join(after.problems)))
        if not final.ok:
            if not as_json and not repair:
                click.echo("run `memdown verify --repair` to fix (markdown is never changed)", err=True)
            click.get_current_context().exit(5)


def _say(as_json: bool, data: dict, line: str) -> None:
    if as_json:
        print_json(data)
    else:
        click.echo(line)


def _run_foreground(root: Path, debounce_ms, idle_seconds) -> None:
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


def _print_report(report) -> None:
    click.echo(f"root: {report.root}")
    rows = "unreadable" if report.rows is None else str(report.rows)
    click.echo(f"index: {report.index_state}; {report.markdown_files} markdown file(s), "
               f"{report.chunks_expected} chunk(s) expected, {rows} in the index")
    click.echo(f"model: config {report.model.get('configured')}, index {report.model.get('index') or '-'}")
    for name, items in (("not indexed", report.not_indexed), ("outdated", report.outdated),
                        ("orphaned", report.orphaned)):
        if items:
            shown = ", ".join(items[:5]) + (f", … ({len(items) - 5} more)" if len(items) > 5 else "")
            click.echo(f"{name}: {shown}")
    for item in report.unreadable_markdown:
        click.echo(f"unreadable markdown (not indexed): {item['source']}: {item['reason']}")
    for line in getattr(report, "capture", []):
        click.echo(f"capture: {line}")
    if report.ok:
        click.echo("ok")
    else:
        for problem in report.problems:
            click.echo(f"problem: {problem}")
