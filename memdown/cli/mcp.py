"""``memdown mcp``: serve the read-only recall tools over MCP (stdio)."""
from __future__ import annotations

from pathlib import Path

import click

from .common import dir_option, resolve_root


@click.command("mcp")
@dir_option
def mcp(memory_dir: Path | None) -> None:
    """Serve search, expand, transcript and stats over the Model Context Protocol (stdio).

    For MCP clients (Claude Desktop, Cursor, Zed, Codex …): add a server whose command is
    `memdown mcp` (with --dir, or started in the project). Read-only; every answer is labelled
    as recorded data.
    """
    from ..mcpserver import serve

    serve(resolve_root(memory_dir))


COMMANDS = (mcp,)
