"""What every fake model server shares (fake_api: Claude Code, fake_responses: Codex, fake_gemini, fake_chat).

Test code only. ``FakeServer`` is the server's life: 127.0.0.1 on a port of its own, a thread, ``with``,
``url``, and the log of what reached it (``requests``, ``errors``, ``paths``) under one lock.
``FakeHandler`` is the wire's plumbing each fake's handler builds on: a quiet log, the JSON body read
(anything unreadable is an empty body), and one JSON or server-sent-events answer with its length.
"""
from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


class FakeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _read_json(self) -> dict[str, Any]:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return {}
        return body if isinstance(body, dict) else {}

    def _send(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        if kind == "text/event-stream":
            self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, "application/json", json.dumps(obj).encode())

    def _sse(self, payload: str) -> None:
        self._send(200, "text/event-stream", payload.encode())


class FakeServer:
    """``with Fake(responder) as api: ... api.url``; a subclass gives ``_handler_class`` (its wire)."""

    url_path = ""  # what follows host:port in ``url`` (the client's base URL)

    def __init__(self, responder: Callable[[Any], Any]) -> None:
        self.responder = responder
        self.requests: list[Any] = []
        self.errors: list[str] = []
        self.paths: list[str] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{self.url_path}"

    def __enter__(self) -> Any:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _keep(self, request: Any) -> None:
        with self._lock:
            self.requests.append(request)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError
