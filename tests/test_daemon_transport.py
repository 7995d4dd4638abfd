"""The daemon's transport on its own: a Unix socket that serves any
``handle(line) -> reply`` function and knows nothing about the daemon."""
from __future__ import annotations

import ast
import logging
import os
import stat
import threading
from pathlib import Path

import pytest

from daemon_wire import raw_request as ask
from memdown.daemon import transport
from memdown.live.protocol import MAX_REQUEST_BYTES
from memdown.daemon.transport import LineServer


@pytest.fixture
def sock_path() -> Path:
    return Path(os.environ["XDG_RUNTIME_DIR"]) / "memdown-t" / "t.sock"


@pytest.fixture
def serve(sock_path: Path):
    servers: list[LineServer] = []

    def start(handle) -> LineServer:
        server = LineServer(sock_path, handle, log=logging.getLogger("memdown.test.transport"))
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def test_serves_any_handle_function_one_line_each(serve, sock_path: Path) -> None:
    seen: list[bytes] = []

    def echo(line: bytes) -> dict:
        seen.append(line)
        return {"ok": True, "result": line.decode()[::-1]}

    serve(echo)
    assert ask(sock_path, b"hello\n") == {"ok": True, "result": "olleh"}
    assert ask(sock_path, b"first\nsecond\n") == {"ok": True, "result": "tsrif"}  # one line per connection
    assert ask(sock_path, b"no newline", shutdown=True) == {"ok": True, "result": "enilwen on"}
    assert seen == [b"hello", b"first", b"no newline"]
    assert stat.S_IMODE(os.stat(sock_path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(sock_path.parent).st_mode) == 0o700


def test_refuses_oversized_and_ignores_empty_without_calling_handle(serve, sock_path: Path) -> None:
    calls: list[bytes] = []
    serve(lambda line: calls.append(line) or {"ok": True})
    big = ask(sock_path, b"x" * (MAX_REQUEST_BYTES + 10))
    assert big is None or big == {"ok": False, "error": "request too large", "exit_code": 2}
    assert ask(sock_path, b"", shutdown=True) is None  # connect and close
    assert ask(sock_path, b"  \n") is None
    assert calls == []


def test_slow_client_times_out(serve, sock_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "REQUEST_READ_TIMEOUT", 0.2)
    serve(lambda line: {"ok": True})
    assert ask(sock_path, b'{"half": ') == {"ok": False, "error": "request timed out", "exit_code": 2}


def test_clients_are_served_concurrently(serve, sock_path: Path) -> None:
    both_inside = threading.Barrier(2, timeout=5)

    def handle(line: bytes) -> dict:
        both_inside.wait()  # a server answering one client at a time never gets two here
        return {"ok": True, "result": line.decode()}

    serve(handle)
    replies: list[dict | None] = []
    clients = [threading.Thread(target=lambda n=n: replies.append(ask(sock_path, f"c{n}\n".encode())))
               for n in range(2)]
    for client in clients:
        client.start()
    for client in clients:
        client.join(10)
    assert sorted(r["result"] for r in replies if r) == ["c0", "c1"]


def test_a_failing_handle_or_reply_never_stops_the_server(serve, sock_path: Path) -> None:
    def handle(line: bytes) -> dict:
        if line == b"boom":
            raise RuntimeError("bug in the handler")
        if line == b"odd":
            reply: dict = {"ok": True}
            reply["result"] = reply  # circular: not JSON
            return reply
        return {"ok": True, "result": "fine"}

    serve(handle)
    assert ask(sock_path, b"boom\n") is None  # the client hangs up and answers in-process
    odd = ask(sock_path, b"odd\n")
    assert odd["ok"] is False and odd["fallback"] is True and "not serialisable" in odd["error"]
    assert ask(sock_path, b"again\n") == {"ok": True, "result": "fine"}


def test_stale_socket_replaced_and_only_our_socket_removed(serve, sock_path: Path) -> None:
    sock_path.parent.mkdir(mode=0o700, parents=True)
    sock_path.write_text("left by a dead server")
    first = serve(lambda line: {"ok": True, "result": 1})
    assert stat.S_ISSOCK(os.stat(sock_path).st_mode)
    assert ask(sock_path, b"x\n")["result"] == 1
    first.close()
    assert not sock_path.exists()
    # A server whose socket was replaced by a newer one leaves the newer one alone.
    old = serve(lambda line: {"ok": True, "result": "old"})
    newer = LineServer(sock_path, lambda line: {"ok": True, "result": "new"})
    newer.start()
    try:
        old.close()
        assert ask(sock_path, b"x\n")["result"] == "new"
    finally:
        newer.close()
    assert not sock_path.exists()


def test_transport_imports_nothing_of_the_daemon() -> None:
    tree = ast.parse(Path(transport.__file__).read_text())
    local = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
    assert local <= {"live.protocol", "errors"}, local
