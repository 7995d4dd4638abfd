"""Shared fixtures: every test runs against its own memory root and home.

``isolate_paths`` is autouse: no test can touch the real ~/.claude, the real
memdown home or a real project. ``FakeEmbedder`` is the deterministic stand-in
for unit tests; integration tests use the real packaged model.
"""
from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from memdown.config import AGENT_ENV

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = Path(os.environ.get("MEMDOWN_SHARED") or REPO_ROOT.parent / "shared")  # a worktree's checkout: set it
SHARED_TRANSCRIPTS = SHARED_DIR / "transcripts"
SHARED_AGENTS = SHARED_DIR / "agents"


@pytest.fixture(autouse=True)
def isolate_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEMDOWN_HOME", str(home / ".local" / "share" / "memdown"))
    monkeypatch.setenv("MEMDOWN_CONFIG", str(home / ".config" / "memdown" / "config.toml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("MEMDOWN_DIR", str(project / ".memdown"))
    # Short runtime dir: Unix socket paths must stay under ~100 bytes.
    runtime = Path("/tmp") / f"mdrt-{os.getpid()}-{hashlib.sha1(str(tmp_path).encode()).hexdigest()[:8]}"
    runtime.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.delenv("LANCEDB_LOG", raising=False)  # tests see what users see (memdown quiets LanceDB itself)
    for name in list(os.environ):
        if name.startswith("MEMDOWN_") and name not in (
            "MEMDOWN_HOME", "MEMDOWN_CONFIG", "MEMDOWN_DIR"
        ):
            monkeypatch.delenv(name, raising=False)
    for name in AGENT_ENV:  # run inside a coding agent, recall output would be fenced (tests of that set these)
        monkeypatch.delenv(name, raising=False)
    # No test starts a live-index daemon by accident (SessionStart would);
    # daemon tests turn it back on explicitly.
    monkeypatch.setenv("MEMDOWN_WATCH_ENABLED", "0")
    monkeypatch.setenv("MEMDOWN_WATCH_START_ON_QUERY", "0")  # nor does a cold CLI search (tests of it turn it on)
    monkeypatch.chdir(project)
    yield project
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture
def memory_root(isolate_paths: Path) -> Path:
    return isolate_paths / ".memdown"


@pytest.fixture
def shared_transcripts() -> Path:
    if not SHARED_TRANSCRIPTS.is_dir():
        pytest.skip("../shared/transcripts is absent")
    return SHARED_TRANSCRIPTS


@pytest.fixture
def shared_agents() -> Path:
    """Other agents' real session logs (README.md + FORMATS.md there describe them)."""
    if not (SHARED_AGENTS / "README.md").is_file():
        pytest.skip("../shared/agents is absent")
    return SHARED_AGENTS


_WORD = re.compile(r"[a-z0-9]+")


class FakeEmbedder:
    """Deterministic bag-of-words hashing embedder (unit tests only).

    Texts sharing words get similar vectors, so ranking tests are meaningful
    without loading a model.
    """

    model_id = "fake/hashing-64"
    dim = 64

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)

    @property
    def embedded_count(self) -> int:
        return sum(len(c) for c in self.calls)

    def _one(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for word in _WORD.findall(text.lower()):
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
            vec[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        norm = math.sqrt(sum(x * x for x in vec)) or 1.0
        return [x / norm for x in vec]


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


def install_fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> Path:
    """Put ``script`` (a Python program; ``{python}`` is this interpreter) on PATH as ``claude`` and
    return the log file it may write to (``$FAKE_CLAUDE_LOG``)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "claude"
    exe.write_text(script.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | 0o111)
    log = tmp_path / "claude.log"
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CLAUDE_LOG", str(log))
    return log


def run_memdown(*args: str, input: str | None = None, env: dict | None = None, timeout: float = 600):
    """Run the real CLI in a subprocess (same interpreter). ``timeout`` only guards against a hang: on a
    loaded 2-core machine a cold `memdown index` took over 120 s (#19), which is slow, not broken."""
    import subprocess

    return subprocess.run(
        [sys.executable, "-m", "memdown", *args],
        input=input,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def wait_for(predicate, timeout: float = 10.0, interval: float = 0.05):
    """Poll ``predicate`` until it returns something truthy or ``timeout`` passes; its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()
