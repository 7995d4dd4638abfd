"""The click-free warm path for search/expand/stats."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memdown import paths
from memdown.cli.fastpath import parse
from memdown.cli.queryspec import EXPAND, QUERY_COMMANDS, SEARCH, STATS, request_for
from memdown.errors import UsageError


def test_parse_plain_arguments_like_click_does():
    values = parse(["redis", "cache", "-k", "3", "--mode=text", "--json", "--concept", "a", "--concept", "b"],
                   *QUERY_COMMANDS["search"])
    assert values["query"] == ("redis", "cache") and values["k"] == 3 and values["mode"] == "text"
    assert values["as_json"] is True and values["concepts"] == ["a", "b"]
    assert parse(["--", "-k"], *QUERY_COMMANDS["search"])["query"] == ("-k",)
    assert parse(["abcd1234", "--lines", "2"], *QUERY_COMMANDS["expand"])["lines"] == 2
    # --fence/--no-fence: unset means "decide from the environment"
    assert [parse(["x", *flag], *QUERY_COMMANDS["search"])["fence"] for flag in ([], ["--fence"], ["--no-fence"])] \
        == [None, True, False]


@pytest.mark.parametrize("argv", [
    ["--help"], ["-h"], ["x", "--bogus"], ["x", "-k"], ["x", "-k", "many"], ["x", "--mode", "fuzzy"],
    ["x", "--json=1"], ["x", "-k5"],
])
def test_anything_unusual_goes_to_click(argv):
    assert parse(argv, *QUERY_COMMANDS["search"]) is None


def test_expand_and_stats_arity():
    assert parse([], *QUERY_COMMANDS["expand"]) is None
    assert parse(["a", "b"], *QUERY_COMMANDS["expand"]) is None
    assert parse(["--lines", "-1", "abcd"], *QUERY_COMMANDS["expand"]) is None
    assert parse(["extra"], *QUERY_COMMANDS["stats"]) is None
    assert parse(["--json"], *QUERY_COMMANDS["stats"]) == {"memory_dir": None, "as_json": True}
    assert parse(["--fence"], *QUERY_COMMANDS["stats"]) is None  # stats prints no memory: nothing to fence


def test_request_for_matches_the_service_ops():
    assert request_for("search", {"query": ("a", "b"), "k": 2}) == (
        "search", {"query": "a b", "k": 2, "kind": None, "since": None, "until": None, "source": None, "mode": None,
                   "agent": None})
    op, params = request_for("search", {"query": ("x",), "concepts": ["y"]})
    assert op == "concepts" and params["concepts"] == ["x", "y"]
    assert request_for("expand", {"chunk_id": "abcd", "lines": None}) == ("expand", {"id": "abcd", "lines": 0})
    with pytest.raises(UsageError):
        request_for("search", {"query": (), "concepts": []})


def test_every_declared_option_exists_on_the_click_command():
    from memdown.cli import cli

    for name, specs in (("search", SEARCH), ("expand", EXPAND), ("stats", STATS)):
        declared = {flag for opt in specs for flag in opt.flags}
        actual = {flag for param in cli.commands[name].params
                  for flag in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]}
        assert declared <= actual, name


class _FakeDaemon:
    """A Unix socket that answers every request with a canned reply (records requests)."""

    def __init__(self, root: Path, reply: dict) -> None:
        self.path = paths.socket_path(root)
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.reply = reply
        self.requests: list[dict] = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(self.path))
        self.sock.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                self.requests.append(json.loads(data))
                conn.sendall(json.dumps(self.reply).encode() + b"\n")

    def close(self) -> None:
        self.sock.close()
        self.path.unlink(missing_ok=True)


HIT = {"id": "0123456789abcdef0123", "score": 0.5, "kind": "summary", "source": "memory/2026-11-20.md",
       "start_line": 5, "end_line": 7, "heading": "2026-11-20 > Session 10:00 > 10:00", "date": "2026-11-20",
       "session": "s1", "turn": "t1", "transcript": "~/x.jsonl", "text": "- fixed the redis ttl",
       "section_start": 3, "section_end": 7}


def _run(args: list[str]) -> subprocess.CompletedProcess:
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('CLICK=%s' % ('click' in sys.modules)))\n"
        f"sys.argv = ['memdown', *{args!r}]\n"
        "from memdown.entry import main\nmain()\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=os.environ.copy())


def test_warm_search_answers_without_click_and_prints_like_the_click_command(memory_root):
    memory_root.mkdir(parents=True)
    daemon = _FakeDaemon(memory_root, {"ok": True, "result": [HIT], "notices": []})
    try:
        fast = _run(["search", "redis", "ttl", "-k", "3"])
        assert fast.returncode == 0 and "CLICK=False" in fast.stderr
        assert daemon.requests[-1]["op"] == "search" and daemon.requests[-1]["params"]["query"] == "redis ttl"
        assert daemon.requests[-1]["params"]["k"] == 3
        # The click command (forced by an option the fast path leaves to click) prints the same.
        slow = _run(["search", "redis", "ttl", "-k3"])
        assert "CLICK=True" in slow.stderr and slow.stdout == fast.stdout
        assert "0123456789ab  0.5000  memory/2026-11-20.md:5-7" in fast.stdout
        as_json = _run(["search", "redis", "--json"])
        assert json.loads(as_json.stdout) == [HIT]
    finally:
        daemon.close()


def test_warm_error_reply_keeps_its_exit_code(memory_root):
    memory_root.mkdir(parents=True)
    daemon = _FakeDaemon(memory_root, {"ok": False, "error": "no chunk with id ffff", "exit_code": 6})
    try:
        proc = _run(["expand", "ffff"])
        assert proc.returncode == 6 and "Error: no chunk with id ffff" in proc.stderr and "CLICK=False" in proc.stderr
    finally:
        daemon.close()


def test_without_a_daemon_the_click_app_answers(memory_root):
    proc = _run(["stats"])
    assert "CLICK=True" in proc.stderr
