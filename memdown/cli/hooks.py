"""``memdown hook EVENT`` (what the plugin's shims call) and the hidden worker."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from .common import dir_option, load_settings, resolve_root


@click.command()
@click.argument("event")
@click.argument("client", required=False, type=click.Choice(["codex", "copilot", "cursor", "gemini"]))
def hook(event: str, client: str | None) -> None:
    """Run a Claude Code hook: reads the hook JSON on stdin, prints JSON, always exits 0.

    EVENT is SessionStart, UserPromptSubmit, Stop, PreCompact,
    PostToolUseFailure or SessionEnd (kebab-case works too).
    CLIENT names another agent whose hook this is (`memdown install CLIENT` writes it): codex
    (PreToolUse), copilot, cursor, gemini (Gemini CLI's own event names work too: BeforeAgent,
    BeforeTool, AfterAgent, PreCompress).
    MEMDOWN_DISABLE=1 turns every hook into a no-op.
    """
    from ..hooks.runner import main as hook_main

    if client is not None and event.replace("-", "").replace("_", "").lower() in ("pretooluse", "beforetool"):
        from ..hooks.pretool import main as pretool_main

        sys.exit(pretool_main(client))
    sys.exit(hook_main([event, *([client] if client else [])]))


@click.command(hidden=True)
@click.argument("job_file", type=click.Path(path_type=Path))
@dir_option
def worker(job_file: Path, memory_dir: Path | None) -> None:
    """Run one detached job written by a hook (internal)."""
    import logging

    from ..services.capture.worker import run_job_file

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    root = resolve_root(memory_dir)
    ok = run_job_file(root, load_settings(root), job_file)
    sys.exit(0 if ok else 1)


COMMANDS = (hook, worker)
