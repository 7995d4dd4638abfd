"""The one list of agent-safe commands (memdown/cli/agentsafe.py), checked against the whole click tree.

Every command must be classified; every command that changes a person's settings, rules, guards,
approvals or CLAUDE.md refuses in an agent's shell (exit 11, one line, nothing written) unless a
person types the confirmation at a terminal; reading and memory commands keep working there.
"""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from memdown.cli import agentsafe
from memdown.cli.app import cli
from memdown.envflags import AGENT_ENV
from memdown.errors import AgentRefusedError

REPO = Path(__file__).resolve().parents[1]
TREE = dict(agentsafe.command_paths(cli))
PERSON_PATHS = sorted(p for p, rule in agentsafe.COMMANDS.items() if rule.kind == agentsafe.PERSON)
# The arguments that make a command with a read-only form write (the others get placeholder arguments).
WRITE_FORMS = {"reflect guards": ["--remove", "LRN-1"], "mining": ["off"], "capture": ["off", "--global"],
               "config set": ["search.k", "7"]}


def test_every_command_of_the_tree_is_classified() -> None:
    missing = sorted(set(TREE) - set(agentsafe.COMMANDS))
    assert not missing, (f"classify these commands in memdown/cli/agentsafe.py COMMANDS (READ, MEMORY or PERSON): "
                         f"{missing}")
    stale = sorted(set(agentsafe.COMMANDS) - set(TREE))
    assert not stale, f"agentsafe.COMMANDS lists commands that no longer exist: {stale}"
    assert {rule.kind for rule in agentsafe.COMMANDS.values()} <= {agentsafe.READ, agentsafe.MEMORY, agentsafe.PERSON}


def test_every_callback_of_the_tree_is_gated() -> None:
    for path, command in TREE.items():
        if command.callback is not None:
            assert getattr(command.callback, "_memdown_gated", False), path


def test_the_known_writers_of_a_persons_settings_are_person_commands() -> None:
    for path in ("config set", "config approve", "reflect promote", "reflect dismiss", "reflect undo",
                 "reflect sweep", "mining", "capture", "reflect guards"):
        assert agentsafe.COMMANDS[path].kind == agentsafe.PERSON, path
    assert {"search", "expand", "transcript", "stats"} <= agentsafe.AGENT_SAFE


def test_an_unclassified_command_counts_as_a_persons() -> None:
    assert agentsafe.needs_person("no-such-command", {})


def _placeholder_args(path: str) -> list[str]:
    if path in WRITE_FORMS:
        return list(WRITE_FORMS[path])
    args: list[str] = []
    for param in TREE[path].params:
        if isinstance(param, click.Argument) and param.required:
            choices = getattr(param.type, "choices", None)
            args.append(str(choices[0]) if choices else "X-1")
        elif isinstance(param, click.Option) and param.required:
            choices = getattr(param.type, "choices", None)
            args += [param.opts[0], str(choices[0]) if choices else "X-1"]
    return args


def _tree_snapshot(*folders: Path) -> dict[str, bytes]:
    found = {}
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                found[str(path)] = path.read_bytes()
    return found


@pytest.mark.parametrize("path", PERSON_PATHS)
def test_each_person_command_refuses_in_claude_codes_shell(path: str, isolate_paths: Path) -> None:
    home = Path(os.environ["HOME"])
    (isolate_paths / ".memdown" / "memory").mkdir(parents=True)
    before = _tree_snapshot(home, isolate_paths)
    result = CliRunner().invoke(cli, [*path.split(), *_placeholder_args(path)], env={"CLAUDECODE": "1"})
    assert result.exit_code == 11, (path, result.output)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("Error: `memdown ") and "CLAUDECODE" in lines[-1], result.stderr
    assert _tree_snapshot(home, isolate_paths) == before, f"{path} wrote a file before refusing"


@pytest.mark.parametrize("name", AGENT_ENV)
def test_every_agent_variable_counts(name: str) -> None:
    result = CliRunner().invoke(cli, ["config", "set", "search.k", "7", "--global"], env={name: "1"})
    assert result.exit_code == 11, result.output
    assert not (Path(os.environ["HOME"]) / ".config" / "memdown" / "config.toml").exists()


def test_without_an_agent_a_person_command_runs() -> None:
    result = CliRunner().invoke(cli, ["config", "set", "search.k", "7", "--global"])
    assert result.exit_code == 0, result.output
    assert (Path(os.environ["HOME"]) / ".config" / "memdown" / "config.toml").exists()


@pytest.mark.parametrize("args", [["config", "get", "search.k"], ["mining", "status"], ["mining"],
                                  ["reflect", "guards"], ["config", "list"]])
def test_reading_forms_keep_working_in_an_agents_shell(args: list[str], isolate_paths: Path) -> None:
    (isolate_paths / ".memdown" / "memory").mkdir(parents=True)
    result = CliRunner().invoke(cli, args, env={"CLAUDECODE": "1", "AI_AGENT": "claude-code_2-1-328_agent"})
    assert result.exit_code == 0, result.output


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("typed, allowed", [("yes\n", True), ("YES\n", True), ("y\n", False), ("\n", False)])
def test_a_person_at_a_terminal_confirms_by_typing(typed: str, allowed: bool, monkeypatch) -> None:
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setattr(sys, "stdin", _Terminal(typed))
    monkeypatch.setattr(sys, "stdout", _Terminal())
    if allowed:
        agentsafe.check("config set", {})
    else:
        with pytest.raises(AgentRefusedError):
            agentsafe.check("config set", {})


def test_a_terminal_on_one_side_only_is_not_a_person(monkeypatch) -> None:
    """An agent can give memdown a terminal on neither side; a pipe on stdout (or stdin) is refused unasked."""
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setattr(sys, "stdin", _Terminal("yes\n"))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    with pytest.raises(AgentRefusedError):
        agentsafe.check("reflect promote", {})
    assert sys.stdin.read() == "yes\n", "nothing may be read from stdin when stdout is not a terminal"


def test_the_real_command_refuses_with_exit_11(isolate_paths: Path) -> None:
    env = {**os.environ, "CLAUDECODE": "1"}
    proc = subprocess.run([sys.executable, "-m", "memdown", "config", "set", "mining.enabled", "false", "--global"],
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 11, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "refuses to run from an agent's shell" in proc.stderr
    assert not (Path(env["HOME"]) / ".config" / "memdown" / "config.toml").exists()


def test_the_recall_skill_may_run_only_reading_commands() -> None:
    text = (REPO / "skills" / "memory-recall" / "SKILL.md").read_text(encoding="utf-8")
    tools = re.search(r"^allowed-tools:(.*)$", text, re.MULTILINE)
    assert tools, "skills/memory-recall/SKILL.md has no allowed-tools line"
    bash = re.findall(r"Bash\(([^)]*)\)", tools[1])
    assert bash and all(re.fullmatch(r"memdown [a-z-]+:\*", rule) for rule in bash), bash
    named = {rule.split()[1].rstrip(":*") for rule in bash}
    assert named == {"search", "expand", "transcript", "stats"}
    assert all(agentsafe.COMMANDS[name].kind == agentsafe.READ for name in named)
    assert re.search(r"\bBash\b(?!\()", tools[1]) is None, "a bare Bash grants every command"
