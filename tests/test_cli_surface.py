"""The CLI's surface as the README promises it: every command has help and takes
``--dir`` (and ``--json`` where promised); errors under ``--json`` are one JSON
object; a reader that goes away (``| head``) ends a command quietly; ``stats``
says which days memory covers and whether capture is on; ``watch`` has
subcommands and its old flags still work."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from conftest import REPO_ROOT, FakeEmbedder
from memdown import paths
from memdown.cli import cli
from memdown.cli.failure import BROKEN_PIPE_EXIT
from test_fastpath import HIT, _FakeDaemon
from transcript_factory import TranscriptBuilder

TESTS = Path(__file__).resolve().parent

# Commands that act on no memory root of their own, with the reason.
NO_DIR = {
    "hook": "the memory root comes from the hook JSON's cwd",
    "merge-file": "git passes the three files to merge",
    "install": "writes a client's settings (~/.codex, or the repository's .codex with --project), not memory",
    "uninstall": "the same settings as install",
}

DAY = "# 2026-03-14\n\n## Session 09:12\n\n### 09:40\n<!-- session:sess-aaa turn:t-1 -->\n- Quote cache TTL lowered.\n"


@pytest.fixture(autouse=True)
def fake_model(monkeypatch):
    monkeypatch.setattr("memdown.services.upkeep.memory.embedder_from_config", lambda config: FakeEmbedder())


def md(*args: str):
    return CliRunner().invoke(cli, list(args))


def leaf_commands(group: click.Group = cli, prefix: tuple[str, ...] = ()) -> dict[str, click.Command]:
    out: dict[str, click.Command] = {}
    for name, cmd in group.commands.items():
        if isinstance(cmd, click.Group):
            out.update(leaf_commands(cmd, prefix + (name,)))
        else:
            out[" ".join(prefix + (name,))] = cmd
    return out


def flags(cmd: click.Command) -> set[str]:
    return {opt for param in cmd.params for opt in getattr(param, "opts", [])}


def readme_json_promises() -> set[str]:
    """Commands whose README table row shows ``--json`` (``reflect list|show|…`` names each subcommand)."""
    promised: set[str] = set()
    text = (REPO_ROOT / "README.md").read_text()
    for row in re.findall(r"^\| `memdown ([^`]+)` \|", text, re.M):
        if "--json" not in row:
            continue
        name, _, rest = row.partition(" ")
        cmd = cli.commands[name]
        if isinstance(cmd, click.Group):
            promised.update(f"{name} {alt.split()[0]}" for alt in rest.split("\\|"))
        else:
            promised.add(name)
    return promised


# --- the README's promises, for every command ------------------------------------------

def test_every_command_takes_dir_has_help_and_json_where_the_readme_says():
    leaves = leaf_commands()
    without_dir = {name for name, cmd in leaves.items() if "--dir" not in flags(cmd)}
    assert without_dir == set(NO_DIR), f"commands without --dir: {sorted(without_dir - set(NO_DIR))}"
    promised = readme_json_promises()
    assert {"init", "config get", "config set", "config list", "stats", "watch status", "reflect list"} <= promised
    for name in sorted(promised):
        assert name in leaves, f"README names `memdown {name}`, which does not exist"
        assert "--json" in flags(leaves[name]), f"README promises `memdown {name} --json`"
    for name, cmd in leaves.items():
        if cmd.hidden:
            continue
        assert (cmd.help or "").strip(), f"`memdown {name}` has no help"
        result = md(*name.split(), "--help")
        assert result.exit_code == 0 and "Usage:" in result.stdout, name


def test_config_get_and_init_json(memory_root: Path):
    init = json.loads(md("init", "--json").stdout)
    assert init["root"] == str(memory_root) and "memory" in " ".join(init["created"])
    got = json.loads(md("config", "get", "search.k", "--json").stdout)
    assert got == {"key": "search.k", "value": 8, "source": "default"}
    other = memory_root.parent / "other" / ".memdown"
    assert md("init", "--dir", str(other)).exit_code == 0
    assert md("config", "set", "search.k", "3", "--dir", str(other)).exit_code == 0
    assert json.loads(md("config", "get", "search.k", "--json", "--dir", str(other)).stdout)["value"] == 3
    assert md("config", "get", "search.k").stdout.strip() == "8"  # the default root is untouched


def test_transcript_dir_chooses_whose_recorded_sessions_may_be_read(memory_root: Path, tmp_path: Path):
    """A transcript outside ~/.claude/projects is readable only when the memory given by --dir recorded it."""
    b = TranscriptBuilder()
    b.prompt("Fix the deploy")
    b.reply("Ran alembic upgrade head.")
    recorded = b.write(tmp_path / "old-claude" / f"{b.session_id}.jsonl")
    other = tmp_path / "other" / ".memdown"
    assert md("init", "--dir", str(other)).exit_code == 0
    assert md("init").exit_code == 0
    paths.daily_file(other, "2026-11-21").write_text(
        f"# 2026-11-21\n\n## Session 10:00\n<!-- session:{b.session_id} turn:t1 transcript:{recorded} -->\n\n- x\n")
    assert md("transcript", str(recorded)).exit_code == 7  # the default memory never recorded it
    from memdown.services.recall.drilldown import note_imported

    note_imported(recorded)  # an import on this machine recorded it (an anchor alone is repository data)
    assert md("transcript", str(recorded)).exit_code == 7  # still not the default memory's
    shown = md("transcript", str(recorded), "--dir", str(other))
    assert shown.exit_code == 0 and "Fix the deploy" in shown.stdout


# --- errors under --json ---------------------------------------------------------------

@pytest.fixture
def root(memory_root: Path) -> Path:
    assert md("init").exit_code == 0
    paths.daily_file(memory_root, "2026-03-14").write_text(DAY)
    assert md("index").exit_code == 0
    return memory_root


@pytest.mark.parametrize("argv", [["expand", "ffffffff"], ["search", "x", "--nope"], ["config", "get", "no.such"],
                                  ["reflect", "show", "zzzz"], ["transcript", "deadbeef-0000"]])
def test_json_errors_are_one_object_with_the_text_errors_exit_code(root: Path, argv: list[str]):
    text = md(*argv)
    as_json = md(*argv, "--json")
    assert text.exit_code == as_json.exit_code and text.exit_code not in (0, None), (text.output, as_json.output)
    assert text.stderr.strip().splitlines()[-1].startswith("Error: ")
    assert as_json.stdout == ""
    lines = as_json.stderr.strip().splitlines()
    assert len(lines) == 1, as_json.stderr
    error = json.loads(lines[0])
    assert error["code"] == as_json.exit_code and error["error"] and error["type"]
    assert error["error"] in text.stderr


def test_json_error_from_the_warm_fast_path(memory_root: Path):
    memory_root.mkdir(parents=True)
    daemon = _FakeDaemon(memory_root, {"ok": False, "error": "no chunk with id ffff", "exit_code": 6})
    try:
        proc = run_entry(["expand", "ffff", "--json"])
    finally:
        daemon.close()
    assert proc.returncode == 6 and proc.stdout == ""
    assert json.loads(proc.stderr) == {"error": "no chunk with id ffff", "code": 6, "type": "MemdownError"}


# --- a reader that goes away -------------------------------------------------------------

RUNNER = f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
from conftest import FakeEmbedder
import memdown.services.upkeep.memory as memory
memory.embedder_from_config = lambda config: FakeEmbedder()
sys.argv = ["memdown", *sys.argv[1:]]
from memdown.entry import main
main()
"""


def run_entry(args: list[str], *, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "LANCEDB_LOG": "error"}
    return subprocess.run([sys.executable, "-c", RUNNER, *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=env, timeout=120)


def run_into_closed_pipe(args: list[str]) -> subprocess.CompletedProcess:
    """Like ``memdown ARGS | head -0``: the reader is gone before the first write."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return run_entry(args, stdout=write_end)
    finally:
        os.close(write_end)


def assert_quiet_exit(proc: subprocess.CompletedProcess) -> None:
    for noise in ("Traceback", "BrokenPipe", "Exception ignored", "Errno 32"):
        assert noise not in proc.stderr, proc.stderr
    assert proc.returncode == BROKEN_PIPE_EXIT, (proc.returncode, proc.stderr)


@pytest.mark.parametrize("argv", [["stats"], ["search", "quote", "cache"], ["expand", "{id}"], ["config", "list"],
                                  ["init"], ["reflect", "list"], ["watch", "status"], ["verify", "--json"],
                                  ["mining"], ["--help"], ["transcript", "{transcript}"]])
def test_closed_stdout_ends_every_command_quietly(root: Path, argv: list[str], tmp_path: Path):
    hit_id = json.loads(md("search", "quote", "--json").stdout)[0]["id"]
    b = TranscriptBuilder()
    b.prompt("Fix the deploy")
    live = b.write(paths.claude_home() / "projects" / "-repo" / f"{b.session_id}.jsonl")
    args = [a.format(id=hit_id, transcript=live) for a in argv]
    assert_quiet_exit(run_into_closed_pipe(args))


def test_expand_into_head_prints_no_traceback(root: Path):
    """The issue's exact case, with a section longer than a pipe holds, read by a real `head -5`."""
    day = paths.daily_file(root, "2026-03-15")
    day.write_text("# 2026-03-15\n\n## Notes\n\n" + "".join(f"- line {n} of a long note\n" for n in range(20000)))
    assert md("index").exit_code == 0
    hit_id = json.loads(md("search", "long", "note", "--json").stdout)[0]["id"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "LANCEDB_LOG": "error"}
    memdown = subprocess.Popen([sys.executable, "-c", RUNNER, "expand", hit_id, "--lines", "20000"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    head = subprocess.run(["head", "-5"], stdin=memdown.stdout, capture_output=True, timeout=120)
    memdown.stdout.close()
    err = memdown.stderr.read().decode()
    memdown.wait(timeout=120)
    assert len(head.stdout.decode().splitlines()) == 5
    for noise in ("Traceback", "BrokenPipe", "Exception ignored", "Errno 32"):
        assert noise not in err, err
    # 0 when the kernel took the whole section before head left (one large write can), else 141
    assert memdown.returncode in (0, BROKEN_PIPE_EXIT), (memdown.returncode, err)


def test_closed_stdout_on_the_warm_fast_path(memory_root: Path):
    memory_root.mkdir(parents=True)
    daemon = _FakeDaemon(memory_root, {"ok": True, "result": [HIT] * 50, "notices": []})
    try:
        assert_quiet_exit(run_into_closed_pipe(["search", "redis"]))
    finally:
        daemon.close()


# --- stats: days covered, capture on or off ------------------------------------------------

def test_stats_reports_days_covered_and_capture(root: Path):
    paths.daily_file(root, "2026-03-10").write_text("# 2026-03-10\n\n- earlier\n")
    (paths.daily_dir(root) / "notes.md").write_text("not a day\n")
    data = json.loads(md("stats", "--json").stdout)
    assert data["days"] == {"count": 2, "first": "2026-03-10", "last": "2026-03-14"}
    assert data["capture"]["enabled"] is True and data["capture"]["source"] == "default"
    text = md("stats").stdout
    assert "days covered: 2 (2026-03-10 to 2026-03-14)" in text and "signal mining: on (from default)" in text
    assert md("mining", "off").exit_code == 0
    off = json.loads(md("stats", "--json").stdout)["capture"]
    assert off["enabled"] is False and off["source"].endswith("config.toml")
    assert "signal mining: off" in md("stats").stdout


def test_stats_of_an_empty_memory(memory_root: Path):
    assert md("init").exit_code == 0
    data = json.loads(md("stats", "--json").stdout)
    assert data["days"] == {"count": 0, "first": None, "last": None}
    assert "days covered: 0\n" in md("stats").stdout


# --- watch start|stop|status -----------------------------------------------------------------

def test_watch_subcommands_and_the_old_flags(memory_root: Path):
    assert md("init").exit_code == 0
    status = md("watch", "status", "--json")
    assert status.exit_code == 0 and json.loads(status.stdout)["running"] is False and status.stderr == ""
    old = md("watch", "--status", "--json")
    assert old.exit_code == 0 and old.stdout == status.stdout
    notice = old.stderr.strip().splitlines()
    assert len(notice) == 1 and "deprecated" in notice[0] and "memdown watch status" in notice[0]
    stop = md("watch", "stop")
    assert stop.exit_code == 0 and stop.stdout.startswith("not running") and stop.stderr == ""
    old_stop = md("watch", "--stop")
    assert old_stop.stdout == stop.stdout and "memdown watch stop" in old_stop.stderr
    other = memory_root.parent / "elsewhere" / ".memdown"
    inherited = json.loads(md("watch", "--dir", str(other), "status", "--json").stdout)
    assert inherited["socket"] == str(paths.socket_path(other))
    assert md("watch", "--stop", "--status").exit_code == 2
    assert md("watch", "--stop", "status").exit_code == 2
