"""`memdown --help`/`--version` stay light (no lancedb, fastembed, pyarrow, numpy),
and every command and subcommand documents itself."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import click
import pytest
from click.testing import CliRunner

from conftest import REPO_ROOT
from memdown.cli import cli

HEAVY = ("lancedb", "fastembed", "pyarrow", "numpy", "onnxruntime", "pandas")


def command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None, name
        out.append(prefix + (name,))
        if isinstance(cmd, click.Group):
            out.extend(command_paths(cmd, prefix + (name,)))
    return out


def run_isolated(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "LANCEDB_LOG": "error"}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=120)


CHECK = """
import json, runpy, sys
HEAVY = {heavy!r}
results = {{}}
for argv in {argvs!r}:
    sys.argv = ["memdown", *argv]
    code = None
    try:
        runpy.run_module("memdown", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exc.code
    results[" ".join(argv)] = {{"code": code, "heavy": sorted(m for m in HEAVY if m in sys.modules)}}
print("@@" + json.dumps(results))
"""


def check(argvs: list[list[str]]) -> dict:
    proc = run_isolated(CHECK.format(heavy=HEAVY, argvs=argvs))
    assert "Traceback" not in proc.stderr, proc.stderr
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@")][-1]
    return json.loads(line[2:])


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["-h"]])
def test_top_level_help_and_version_are_light(argv: list[str]):
    result = check([argv])[" ".join(argv)]
    assert result["code"] in (0, None)
    assert result["heavy"] == [], f"memdown {' '.join(argv)} imported {result['heavy']}"


def test_every_subcommand_help_is_light():
    paths = command_paths(cli)
    results = check([[*p, "--help"] for p in paths])
    for key, result in results.items():
        assert result["code"] in (0, None), key
        assert result["heavy"] == [], f"memdown {key} imported {result['heavy']}"


def test_importtime_of_help_has_no_heavy_modules():
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "memdown", "--help"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0
    imported = {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert not imported & set(HEAVY), imported & set(HEAVY)
    assert "Usage: memdown" in proc.stdout


def test_version_output():
    from memdown import __version__

    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output


def test_every_command_has_help_text():
    paths = command_paths(cli)
    names = {" ".join(p) for p in paths}
    for required in ("init", "index", "search", "expand", "stats", "config", "config get", "config set",
                     "config list", "model", "model pull"):
        assert required in names
    runner = CliRunner()
    for path in paths:
        ctx = click.Context(cli)
        cmd: click.Command = cli
        for part in path:
            cmd = cmd.get_command(ctx, part)  # type: ignore[attr-defined]
        summary = (cmd.help or cmd.short_help or "").strip()
        assert summary, f"`memdown {' '.join(path)}` has no help text"
        result = runner.invoke(cli, [*path, "--help"])
        assert result.exit_code == 0, path
        assert "Usage:" in result.output and summary.splitlines()[0][:30] in " ".join(result.output.split())
        for param in cmd.params:
            if isinstance(param, click.Option) and not param.hidden:
                assert (param.help or "").strip() or param.is_flag and param.name in ("help", "version"), (
                    f"option {param.opts} of `memdown {' '.join(path)}` has no help")
