"""A scripted fake of the OpenAI Responses API, for driving the real Codex CLI.

Test code only: it binds 127.0.0.1 and speaks the streaming form of ``POST /v1/responses``
(server-sent events: ``response.created``, ``response.output_item.done`` per item,
``response.completed``), which is what Codex's ``wire_api = "responses"`` providers read.
Each request is answered with what the test's ``responder`` returns; every request is kept in
``requests`` so a test can see exactly what reached the model (hook context included).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable

from .fake_server import FakeHandler, FakeServer


@dataclass
class Reply:
    """One model response: an assistant message and/or shell calls."""

    text: str = ""
    commands: list[str] = field(default_factory=list)

    @classmethod
    def say(cls, text: str) -> "Reply":
        return cls(text=text)

    @classmethod
    def shell(cls, command: str, text: str = "") -> "Reply":
        return cls(text=text, commands=[command])


@dataclass
class Request:
    body: dict[str, Any]
    path: str

    @property
    def items(self) -> list[dict[str, Any]]:
        return [i for i in self.body.get("input") or [] if isinstance(i, dict)]

    @property
    def instructions(self) -> str:
        return str(self.body.get("instructions") or "")

    @property
    def tool_names(self) -> list[str]:
        return [str(t.get("name") or t.get("type") or "") for t in self.body.get("tools") or [] if isinstance(t, dict)]

    def texts(self, role: str | None = None) -> list[str]:
        out = []
        for item in self.items:
            if item.get("type", "message") != "message" or (role and item.get("role") != role):
                continue
            content = item.get("content")
            if isinstance(content, str):
                out.append(content)
            elif isinstance(content, list):
                out.extend(str(c.get("text", "")) for c in content if isinstance(c, dict))
        return out

    def all_text(self) -> str:
        """Every text the model is sent: instructions, messages (hook context included), tool outputs."""
        parts = [self.instructions, *self.texts()]
        parts.extend(self.tool_outputs())
        return "\n".join(parts)

    def last_user_text(self) -> str:
        texts = self.texts("user")
        return texts[-1] if texts else ""

    def tool_outputs(self) -> list[str]:
        out = []
        for item in self.items:
            if item.get("type") in ("function_call_output", "custom_tool_call_output"):
                output = item.get("output")
                out.append(output if isinstance(output, str) else json.dumps(output))
        return out

    def last_tool_output(self) -> str | None:
        last = self.items[-1] if self.items else {}
        if last.get("type") in ("function_call_output", "custom_tool_call_output"):
            output = last.get("output")
            return output if isinstance(output, str) else json.dumps(output)
        return None


Responder = Callable[[Request], Reply]


class FakeResponsesAPI(FakeServer):
    """``with FakeResponsesAPI(responder) as api: ... api.url`` (the provider's ``base_url``).

    The server's life and its request log are ``fake_server.FakeServer``'s; the wire is the Responses API's."""

    url_path = "/v1"
    requests: list[Request]

    def model_requests(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path.rstrip("/").endswith("/responses")]

    def _next(self, prefix: str) -> str:
        return f"{prefix}_fake{next(self._ids):06d}"

    def events(self, reply: Reply) -> list[dict[str, Any]]:
        response_id = self._next("resp")
        items: list[dict[str, Any]] = []
        if reply.text:
            items.append({"type": "message", "role": "assistant", "id": self._next("msg"), "status": "completed",
                          "content": [{"type": "output_text", "text": reply.text, "annotations": []}]})
        for command in reply.commands:
            items.append({"type": "function_call", "id": self._next("fc"), "call_id": self._next("call"),
                          "name": "exec_command", "status": "completed",
                          "arguments": json.dumps({"cmd": command, "login": False, "yield_time_ms": 120000})})
        events: list[dict[str, Any]] = [{"type": "response.created", "response": {"id": response_id}}]
        for n, item in enumerate(items):
            events.append({"type": "response.output_item.added", "output_index": n, "item": item})
            events.append({"type": "response.output_item.done", "output_index": n, "item": item})
        events.append({"type": "response.completed", "response": {
            "id": response_id, "output": items,
            "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                      "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 110}}})
        return events

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(FakeHandler):
            def do_GET(self) -> None:
                api.paths.append(f"GET {self.path}")
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [], "models": []})
                    return
                self._json(404, {"error": {"message": self.path}})

            def do_POST(self) -> None:
                api.paths.append(f"POST {self.path}")
                body = self._read_json()
                if self.headers.get("content-encoding") == "zstd":
                    self._json(415, {"error": {"message": "zstd not supported by the fake"}})
                    return
                request = Request(body=body, path=self.path)
                api._keep(request)
                if not self.path.rstrip("/").endswith("/responses"):
                    self._json(404, {"error": {"message": self.path}})
                    return
                try:
                    reply = api.responder(request)
                except Exception as exc:  # a responder bug must show up in the test, not hang it
                    api.errors.append(f"{type(exc).__name__}: {exc}")
                    reply = Reply.say(f"responder error: {exc}")
                self._sse("".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in api.events(reply)))

        return Handler
