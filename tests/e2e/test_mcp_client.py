"""`memdown mcp` as a real agent uses it: Claude Code 2.1.328 starts it from `--mcp-config` (stdio),
lists its tools, and the scripted model calls `search`. The tool result the client hands back to
the model must carry the same hits as `memdown search --json`, inside the fence.
"""
from __future__ import annotations

import json
import re
import sys

import pytest

from memdown.fence import LABEL

from .conftest import Reply, Request, World, summary_reply

pytestmark = pytest.mark.e2e

QUERY = "why did the migrations fail after the postgres upgrade"


def test_claude_code_calls_memdown_mcp_search_and_gets_the_clis_hits(make_world) -> None:
    seen: dict[str, object] = {}

    def responder(req: Request) -> Reply:
        summary = summary_reply(req)
        if summary:
            return summary
        seen.setdefault("first_tools", [t.get("name") for t in req.body.get("tools", [])])
        results = req.tool_results()
        if not results:  # MCP tools are deferred behind ToolSearch (2.1.x): load the schema first, as a model does
            return Reply.tool("ToolSearch", {"query": "select:mcp__memdown__search", "max_results": 5})
        if len(results) == 1:
            seen["loaded_tools"] = [t.get("name") for t in req.body.get("tools", [])]
            return Reply.tool("mcp__memdown__search", {"query": QUERY})
        seen["result"] = results[-1]
        return Reply.text("Done.")

    world: World = make_world(responder)
    world.init_memory()
    (world.memory / "memory" / "2026-06-01.md").write_text(
        "# 2026-06-01\n\n## Session 09:00\n\n### 09:10\n\n- Postgres 15 upgrade broke migrations: PG15 revoked "
        "CREATE on schema public; fixed with GRANT CREATE ON SCHEMA public TO portolan_migrator.\n\n### 10:05\n\n"
        "- Chose Redis for the session cache over Memcached.\n", encoding="utf-8")
    assert world.memdown("index").returncode == 0
    cli = world.memdown("search", QUERY, "--json")
    assert cli.returncode == 0, cli.stderr
    cli_ids = [hit["id"][:12] for hit in json.loads(cli.stdout)]

    config = world.tmp / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"memdown": {
        "command": sys.executable, "args": ["-m", "memdown", "mcp", "--dir", str(world.memory)]}}}))
    run = world.claude("What went wrong with the migrations?", timeout=240,
                       args=("--mcp-config", str(config), "--allowedTools", "mcp__memdown__search"))
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    assert "ToolSearch" in seen["first_tools"]  # type: ignore[operator]
    assert "mcp__memdown__search" in seen["loaded_tools"]  # type: ignore[operator]
    result = str(seen.get("result", ""))
    assert LABEL in result and "GRANT CREATE" in result, result[:2000]
    assert re.findall(r"^\[\d+\] ([0-9a-f]{12}) ", result, flags=re.M) == cli_ids
