"""A recalled fact whose code changed since reaches the main agent marked stale (real Claude Code).

The memory says "`retry_budget()` in `src/upload.py` returns 3"; the function was rewritten and
committed since. The forked recall agent runs `memdown search` through the real client's Bash tool
(so the output is the fenced agent view); its search result carries the `stale:` line with the commit
that changed it, and the scripted fork, as the skill tells it, reports the fact as stale. The main
agent gets that answer as the Skill's result in the same turn.
"""
from __future__ import annotations

import re
import subprocess
from datetime import datetime

import pytest

from memdown.services.recall.staleness import record

from .conftest import RECALL_SKILL, RecallScript, Reply, Request, World

pytestmark = pytest.mark.e2e

FACT = "`retry_budget()` in `src/upload.py` returns 3: the upstream API rate-limits bursts."


def _git(world: World, *args: str) -> None:
    subprocess.run(["git", "-C", str(world.project), *args], check=True, capture_output=True,
                   env={**world.env(), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


class Script(RecallScript):
    skill_args = "retry budget"

    def fork(self, req: Request) -> Reply:
        results = req.tool_results()
        if not results:
            self.fork_commands.append('memdown search "retry budget upload" -k 5')
            return Reply.tool("Bash", {"command": self.fork_commands[-1], "description": "memdown recall step"})
        self.fork_results.append(results[-1])
        stale = re.search(r"stale: [^\n]+", results[-1])
        if stale:  # the skill: a stale fact is history; say what changed since
            return Reply.text(f"RECALLED (was true when written, now STALE): {FACT} [{stale[0]}]")
        return Reply.text(f"RECALLED: {FACT}")


def test_the_recall_skill_says_a_recalled_fact_is_stale(make_world) -> None:
    script = Script()
    world = make_world(script).with_memdown_on_path().init_memory()
    source = world.project / "src" / "upload.py"
    source.parent.mkdir()
    source.write_text("def retry_budget():\n    return 3\n")
    _git(world, "add", "-A")
    _git(world, "commit", "-qm", "upload: retry budget")
    commit, cites = record(world.project, FACT, [], datetime.now(), live=True)
    assert "src/upload.py#retry_budget~" in cites
    (world.memory / "memory" / "2026-11-20.md").write_text(
        f"# 2026-11-20\n\n## Session 09:00\n\n### 09:10\n<!-- session:s1 turn:t1 commit:{commit} cites:{cites} -->\n"
        f"- {FACT}\n", encoding="utf-8")
    source.write_text("def retry_budget(attempt):\n    return min(5, 2 ** attempt)\n")
    _git(world, "commit", "-qam", "upload: exponential retry budget")
    assert world.memdown("index").returncode == 0

    run = world.claude("How many retries does the upload client allow?")
    assert run.proc.returncode == 0, run.proc.stderr
    assert script.fork_results, run.debug_log[-2000:]
    seen = script.fork_results[0]
    assert "<memdown-recorded-notes" in seen  # the agent's fenced view, through the client's Bash tool
    assert 'stale: src/upload.py retry_budget changed (1 commit(s) since; last' in seen
    assert "upload: exponential retry budget" in seen
    assert len(script.main_results) == 1
    assert f'Skill "{RECALL_SKILL}" completed (forked execution)' in script.main_results[0]
    assert "now STALE" in script.main_results[0] and "retry_budget changed" in script.main_results[0]
