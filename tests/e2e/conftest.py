"""Harness for the end-to-end suite: the REAL Claude Code CLI, our plugin, a fake model.

Each test gets a ``World``: an isolated HOME / CLAUDE_CONFIG_DIR, a git project,
a PATH folder holding ``claude`` (and, unless the test is about plugin-only
installs, this checkout's ``memdown``), and a ``FakeMessagesAPI`` on 127.0.0.1
that plays the model. ``World.claude(...)`` runs ``claude -p --plugin-dir <repo>``
with ``--debug-file`` so the client's own hook log can be read back.

The CLI comes from ``$MEMDOWN_E2E_CLAUDE`` or the repo-local install that
``.ci/run`` makes (``.e2e/claude-code``). Without it every e2e test skips with
one line; they never fail for that reason.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from .fake_api import FakeMessagesAPI, Reply, Request

REPO = Path(__file__).resolve().parents[2]
PINNED = "2.1.328"
LOCAL_CLI = REPO / ".e2e" / "claude-code" / "node_modules" / ".bin" / "claude"
RECALL_SKILL = "memdown:memory-recall"
SKILL_BODY_MARK = "# Recall from memdown memory"  # the first heading of skills/memory-recall/SKILL.md
HOOK_LINE = re.compile(r"Hooks: (?P<event>[A-Za-z]+)(?::(?P<matcher>\S+))? \[(?P<cmd>.*?)\].* finished with status "
                       r"(?P<status>-?\d+) \((?P<ms>\d+)ms\)")
# PreCompact and SessionEnd are logged without a duration in 2.1.328.
END_LINE = re.compile(r"\] (?P<event>[A-Za-z]+)(?::(?P<matcher>\S+))? \[(?P<cmd>.*?)\] completed with status (?P<status>-?\d+)")

CLAUDE = "Claude Code CLI"


def find_claude() -> tuple[str | None, str]:
    """(path, why-not): the pinned CLI, or None and a one-line reason (the finder every client's suite uses)."""
    from .agent_cli import find_cli  # at call time: agent_cli imports this module

    return find_cli(CLAUDE, "MEMDOWN_E2E_CLAUDE", LOCAL_CLI, PINNED, ".e2e/claude-code", timeout=60,
                    env={**os.environ, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})


@pytest.fixture(scope="session")
def claude_cli() -> str:
    path, why = find_claude()
    if path is None:
        pytest.skip(why)
    return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Report every "no CLI" skip at one place, so `-ra` folds them into ONE line."""
    outcome = yield
    report = outcome.get_result()
    from .agent_cli import cached

    _, why = cached(CLAUDE) or (None, "")
    if report.skipped and why and isinstance(report.longrepr, tuple) and report.longrepr[2].endswith(why):
        report.longrepr = (str(Path(__file__).relative_to(REPO)), 1, report.longrepr[2])


@dataclass
class HookRun:
    event: str
    matcher: str | None
    status: int
    ms: int | None


@dataclass
class Run:
    proc: subprocess.CompletedProcess
    debug_log: str
    session_id: str

    @property
    def out(self) -> str:
        return self.proc.stdout

    def hooks(self, event: str | None = None, *, ours: bool = True) -> list[HookRun]:
        found = []
        for line in self.debug_log.splitlines():
            m = HOOK_LINE.search(line) or END_LINE.search(line)
            if not m or (ours and "memdown-hook" not in m["cmd"]):
                continue
            if event and m["event"] != event:
                continue
            ms = m.groupdict().get("ms")
            found.append(HookRun(m["event"], m["matcher"], int(m["status"]), int(ms) if ms else None))
        return found


@dataclass
class World:
    cli: str
    tmp: Path
    api: FakeMessagesAPI
    home: Path = field(init=False)
    project: Path = field(init=False)
    bin: Path = field(init=False)
    runs: list[Run] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.home = self.tmp / "home"
        self.project = self.tmp / "project"
        self.bin = self.tmp / "bin"
        for folder in (self.home, self.project, self.bin):
            folder.mkdir(parents=True, exist_ok=True)
        (self.bin / "claude").symlink_to(self.cli)
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)

    # -- layout ------------------------------------------------------------------
    @property
    def memory(self) -> Path:
        return self.project / ".memdown"

    @property
    def config_dir(self) -> Path:
        return self.home / ".claude"

    @property
    def plugin_data(self) -> Path:
        return self.config_dir / "plugins" / "data" / "memdown-inline"

    def with_memdown_on_path(self) -> "World":
        """This checkout's memdown, as a pip/pipx/uv install puts it on PATH."""
        (self.bin / "memdown").symlink_to(Path(sys.executable).parent / "memdown")
        return self

    def init_memory(self) -> "World":
        self.memory.joinpath("memory").mkdir(parents=True, exist_ok=True)
        return self

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            "PATH": os.pathsep.join([str(self.bin), "/usr/local/bin", "/usr/bin", "/bin"]),
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.config_dir),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", str(self.tmp)),
            "MEMDOWN_HOME": str(self.home / ".local" / "share" / "memdown"),
            "MEMDOWN_CONFIG": str(self.home / ".config" / "memdown" / "config.toml"),
            "MEMDOWN_WATCH_ENABLED": "0",  # no live-index daemon left behind by a test
            "LANCEDB_LOG": "error",
            "ANTHROPIC_BASE_URL": self.api.url,
            "ANTHROPIC_API_KEY": "sk-ant-e2e-fake",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "LANG": "C.UTF-8",
        }
        for name in ("TMPDIR", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CACHE_DIR"):
            if os.environ.get(name):
                env[name] = os.environ[name]
        env.update(extra)
        return env

    # -- running the client ----------------------------------------------------------
    def claude(self, prompt: str, *, resume: str | None = None, args: tuple[str, ...] = (),
               timeout: float = 180, **env: str) -> Run:
        debug = self.tmp / f"debug-{len(self.runs)}.log"
        forking = "--fork-session" in args
        session_id = str(uuid.uuid4()) if forking or not resume else resume
        cmd = [str(self.bin / "claude"), "-p", "--plugin-dir", str(REPO), "--debug-file", str(debug),
               *(["--resume", resume] if resume else []), *([] if resume and not forking else ["--session-id", session_id]),
               *args, "--", prompt]
        proc = subprocess.run(cmd, cwd=self.project, env=self.env(**env), capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        run = Run(proc, debug.read_text(encoding="utf-8", errors="replace") if debug.exists() else "", session_id)
        self.runs.append(run)
        return run

    def transcript(self, session_id: str) -> Path:
        key = re.sub(r"[^A-Za-z0-9]", "-", str(self.project))
        return self.config_dir / "projects" / key / f"{session_id}.jsonl"

    # -- memory ------------------------------------------------------------------
    def daily_text(self) -> str:
        folder = self.memory / "memory"
        return "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))) if folder.is_dir() else ""

    def recall_text(self) -> str:
        """Recall turns are recorded as pointers in memory/recalls/, apart from the daily log."""
        folder = self.memory / "memory" / "recalls"
        return "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))) if folder.is_dir() else ""

    def memdown(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        env = self.env()
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])
        return subprocess.run([sys.executable, "-m", "memdown", *args], cwd=self.project, env=env,
                              capture_output=True, text=True, timeout=timeout)

    def hooks_log(self) -> str:
        log = self.memory / "logs" / "hooks.log"
        return log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""

    def worker_log(self) -> str:
        log = self.memory / "logs" / "worker.log"
        return log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


def jobs_pending(world: World) -> list[Path]:
    jobs = world.memory / "state" / "jobs"
    return sorted(jobs.glob("*.json")) if jobs.is_dir() else []


def wait_for_workers(world: World, timeout: float = 90) -> None:
    """Detached workers are done when no job file is left (failed ones move to jobs/failed/)."""
    wait_until(lambda: not jobs_pending(world), timeout, "memdown's detached workers to finish their jobs")


# -- scripted model behaviour ---------------------------------------------------------

def summary_reply(req: Request) -> Reply | None:
    """memdown's own Stop-hook summarizer (`claude -p --model haiku`) through the same server."""
    if "haiku" in req.model:
        return Reply.text("- Decided to keep the retry budget at 3 attempts (fake summary)\n"
                          "- Wrote the decision down in NOTES.md")
    return None


def is_recall_fork(req: Request) -> bool:
    return SKILL_BODY_MARK in req.all_text() or SKILL_BODY_MARK in req.system_text


class RecallScript:
    """Plays the main agent (calls the recall Skill, then answers with its result) and the
    forked recall agent (``fork``); records what each saw. Subclasses script the fork."""

    skill_args = "past decisions"
    first_prompts: dict[str, str] = {}  # prompt substring -> plain answer (turns that do not recall)

    def __init__(self) -> None:
        self.fork_commands: list[str] = []
        self.fork_results: list[str] = []
        self.main_results: list[str] = []

    def __call__(self, req: Request) -> Reply:
        summary = summary_reply(req)
        if summary:
            return summary
        if is_recall_fork(req):
            return self.fork(req)
        prompt = req.last_user_text()
        for needle, answer in self.first_prompts.items():
            if needle in prompt:
                return Reply.text(answer)
        result = req.last_tool_result()
        if result is None:
            return Reply.tool("Skill", {"skill": RECALL_SKILL, "args": self.skill_args})
        self.main_results.append(result)
        return Reply.text(f"MAIN AGENT ANSWER based on recall: {result[:2000]}")

    def fork(self, req: Request) -> Reply:
        raise NotImplementedError


def json_from(text: str) -> Any:
    """The first JSON value in a tool result (Bash output may carry a prefix)."""
    start = min([i for i in (text.find("["), text.find("{")) if i >= 0], default=-1)
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text[start:])[0]
    except ValueError:
        return None


@pytest.fixture
def make_world(claude_cli: str, tmp_path: Path):
    """``make_world(responder)`` → a World with its fake server running."""
    servers: list[FakeMessagesAPI] = []

    def make(responder: Callable[[Request], Reply], name: str = "w") -> World:
        api = FakeMessagesAPI(responder).__enter__()
        servers.append(api)
        return World(claude_cli, tmp_path / name, api)

    yield make
    for api in servers:
        api.__exit__(None, None, None)
