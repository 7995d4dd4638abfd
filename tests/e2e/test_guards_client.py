"""Guards in the real client: what `ask` does under ``claude -p``, path guards on Edit/Write, and
that a committed but unapproved learning stops nothing.

Each test approves a rule through the real CLI (``memdown reflect promote --text``), then lets the
scripted model make the tool call the rule is about, and reads the client's answer back from the
model's next request (the tool_result) and from marks left by the programs that did run.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memdown.learning import learnings

from .agent_cli import approve, fake_programs, programs_ran
from .conftest import Reply, Request, summary_reply

pytestmark = pytest.mark.e2e


class Script:
    """Makes the tool calls in ``calls`` one per request, in order; records every tool result."""

    def __init__(self, calls: list[tuple[str, dict]]) -> None:
        self.calls = calls
        self.requests: list[Request] = []
        self.results: list[str] = []

    def __call__(self, req: Request) -> Reply:
        summary = summary_reply(req)
        if summary:
            return summary
        self.requests.append(req)
        result = req.last_tool_result()
        if result is not None:
            self.results.append(result)
        done = len(self.results)
        if done < len(self.calls):
            name, tool_input = self.calls[done]
            return Reply.tool(name, tool_input)
        return Reply.text("Done.")


# --- ask under `claude -p` ----------------------------------------------------------------------

ALLOW_BASH = ("--allowedTools", "Bash")
PERMISSION_MODES = {  # name: (arguments, environment); the suggested command runs only where Bash is allowed
    "no-allow-rule": ((), {}),
    "bash-allowed": (ALLOW_BASH, {}),
    "acceptEdits": (("--permission-mode", "acceptEdits", *ALLOW_BASH), {}),
    # bypassPermissions refuses to start as root unless the client is told it is in a sandbox
    "bypassPermissions": (("--permission-mode", "bypassPermissions"), {"IS_SANDBOX": "1"}),
}


@pytest.mark.parametrize("mode", list(PERMISSION_MODES))
def test_an_ask_guard_under_print_mode_stops_the_call_and_the_model_gets_the_reason(make_world, mode) -> None:
    """Claude Code 2.1.328 under -p has no one to ask: a hook's "ask" is answered no, in every
    permission mode (even with Bash allowed, even bypassPermissions), and the model gets our reason
    as the tool result, so it runs the suggested command next."""
    script = Script([("Bash", {"command": "pytest -q", "description": "Run the tests"}),
                     ("Bash", {"command": "uv run pytest -q", "description": "Run the tests as the rule says"})])
    world = make_world(script).with_memdown_on_path().init_memory()
    fake_programs(world, "pytest", "uv")
    assert "guard: ask" in approve(world, "run tests with uv run pytest", "Run tests with `uv run pytest`.")
    args, env = PERMISSION_MODES[mode]
    run = world.claude("Run the tests.", args=args, **env)
    assert run.proc.returncode == 0, run.proc.stderr
    assert "permissionDecision: ask" in run.debug_log  # the client got an ask, not a deny
    # the bare pytest never ran; the suggested command did, unless Bash needs a permission nobody gave
    assert programs_ran(world) == ([] if mode == "no-allow-rule" else ["uv run pytest -q"]), programs_ran(world)
    reason = script.results[0]
    assert reason.startswith("memdown guard LRN-") and "Run tests with `uv run pytest`." in reason, reason
    assert "Instead run: uv run pytest -q" in reason and "preference" in reason, reason
    assert "fair exception" in reason, reason  # the way out a person would have had in the prompt
    assert "PreToolUse ask" in world.hooks_log(), world.hooks_log()


# --- path guards on Edit / Write ------------------------------------------------------------------

def test_a_rule_naming_a_path_stops_edit_and_write_there_and_nowhere_else(make_world) -> None:
    script = Script([])
    world = make_world(script).with_memdown_on_path().init_memory()
    project = world.project
    (project / "migrations").mkdir()
    (project / "migrations" / "0001_initial.sql").write_text("create table t (id int);\n")
    (project / "package-lock.json").write_text('{"lockfileVersion": 3}\n')
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("x = 1\n")
    assert "guard: deny" in approve(world, "never edit migrations by hand", "Never edit `migrations/` by hand.")
    assert "guard: deny" in approve(world, "do not touch the lockfile", "Do not touch `package-lock.json`.")
    lock, app = str(project / "package-lock.json"), str(project / "src" / "app.py")
    script.calls = [
        ("Write", {"file_path": str(project / "migrations" / "0002_add_name.sql"), "content": "alter table t;\n"}),
        ("Read", {"file_path": lock}),
        ("Edit", {"file_path": lock, "old_string": "3", "new_string": "2"}),
        ("Read", {"file_path": app}),
        ("Edit", {"file_path": app, "old_string": "x = 1", "new_string": "x = 2"}),
        ("Write", {"file_path": str(project / "src" / "new.py"), "content": "y = 1\n"}),
    ]
    run = world.claude("Add a name column and bump things.", args=("--permission-mode", "acceptEdits"))
    assert run.proc.returncode == 0, run.proc.stderr
    assert len(script.results) == len(script.calls), script.results
    write_mig, _, edit_lock, _, edit_app, write_new = script.results
    assert "memdown guard" in write_mig and "Never edit `migrations/` by hand." in write_mig, write_mig
    assert "memdown guard" in edit_lock and "Do not touch `package-lock.json`." in edit_lock, edit_lock
    assert not (project / "migrations" / "0002_add_name.sql").exists()
    assert (project / "package-lock.json").read_text() == '{"lockfileVersion": 3}\n'
    # a different path goes through
    assert "memdown guard" not in edit_app + write_new, (edit_app, write_new)
    assert (project / "src" / "app.py").read_text() == "x = 2\n"
    assert (project / "src" / "new.py").read_text() == "y = 1\n"
    assert world.hooks_log().count("PreToolUse deny") == 2, world.hooks_log()


# --- a committed but unapproved learning ------------------------------------------------------------

@pytest.mark.parametrize("status", ["promoted", "pending"])
def test_a_committed_but_unapproved_learning_stops_nothing(make_world, status: str) -> None:
    """The repository brings a rule (learnings.md, CLAUDE.md) approved on someone else's machine, if at
    all: the model may read it, but no guard stops anything until it is approved here. A pending one is
    what crash recovery finishes (`reflect list` runs it), but only with an approval made here. A rule
    approved here (on grep) is in the guard file, so the hook takes its full path, not the shortcut."""
    script = Script([("Bash", {"command": "npm install", "description": "Install dependencies"}),
                     ("Bash", {"command": "grep -r TODO src", "description": "Find TODOs"})])
    world = make_world(script).with_memdown_on_path().init_memory()
    fake_programs(world, "npm", "grep")
    rule = "Use pnpm for every install and script, not npm."
    learnings.add(world.memory, learnings.Learning(id="", text=rule, status=status,
                                                   extra={"target": "project", "token": "deadbeef"}), day="2026-11-20")
    (world.project / "CLAUDE.md").write_text(f"## Learned rules (memdown)\n\n- {rule} "
                                              "<!-- memdown:LRN-20261120-0001 #deadbeef -->\n")
    subprocess.run(["git", "-C", str(world.project), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(world.project), "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm",
                    "a teammate's rule"], check=True)
    assert "guard: deny" in approve(world, "never grep, use rg", "Never use grep, use `rg` instead.")
    assert world.memdown("reflect", "list").returncode == 0  # recovery of interrupted promotions runs here

    run = world.claude("Install and look for TODOs.", args=ALLOW_BASH)
    assert run.proc.returncode == 0, run.proc.stderr
    assert rule in script.requests[0].all_text() + script.requests[0].system_text  # the model may read it
    assert programs_ran(world) == ["npm install"], programs_ran(world)  # not stopped: nobody approved it here
    assert "memdown guard" not in script.results[0] and "memdown guard" in script.results[1], script.results
    listed = world.memdown("reflect", "guards")
    assert "pnpm" not in listed.stdout and "Never use grep" in listed.stdout, listed.stdout

    # the control: approved here, the same rule stops the same command
    committed = next(item.id for item in learnings.load(world.memory) if item.text == rule)
    approved = world.memdown("reflect", "promote", committed, "--to", "project")
    assert approved.returncode == 0 and "guard: deny" in approved.stdout, approved.stdout + approved.stderr
    script.results.clear()
    again = world.claude("Install again.", args=ALLOW_BASH)
    assert again.proc.returncode == 0, again.proc.stderr
    assert programs_ran(world) == ["npm install"] and "memdown guard" in script.results[0], script.results
