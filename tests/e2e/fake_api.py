"""A scripted fake of the Anthropic Messages API, for driving the real Claude Code CLI.

Test code only: it binds 127.0.0.1, speaks the streaming (server-sent events)
form of ``POST /v1/messages`` that the client uses, and answers each request
with whatever the test's ``responder`` returns for it. Every request is kept
in ``requests`` so tests can see what the client (and the hooks' own
``claude -p`` calls) asked.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable

from .fake_server import FakeHandler, FakeServer


@dataclass
class Reply:
    """One model turn: text and/or tool_use blocks, or an API error, or nothing."""

    blocks: list[dict[str, Any]] = field(default_factory=list)
    error_status: int | None = None  # e.g. 500/529: answer with an API error instead
    stop_reason: str | None = None

    @classmethod
    def text(cls, text: str) -> "Reply":
        return cls([{"type": "text", "text": text}])

    @classmethod
    def tool(cls, name: str, tool_input: dict[str, Any], text: str = "") -> "Reply":
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        blocks.append({"type": "tool_use", "name": name, "input": tool_input})
        return cls(blocks)

    @classmethod
    def error(cls, status: int = 500) -> "Reply":
        return cls(error_status=status)

    @classmethod
    def empty(cls) -> "Reply":
        return cls([])


@dataclass
class Request:
    body: dict[str, Any]
    path: str

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def system_text(self) -> str:
        system = self.body.get("system")
        if isinstance(system, str):
            return system
        return "\n".join(b.get("text", "") for b in system or [] if isinstance(b, dict))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def tool_names(self) -> list[str]:
        return [t.get("name", "") for t in self.body.get("tools") or [] if isinstance(t, dict)]

    def blocks(self, role: str | None = None) -> list[dict[str, Any]]:
        out = []
        for message in self.messages:
            if role and message.get("role") != role:
                continue
            content = message.get("content")
            if isinstance(content, str):
                out.append({"type": "text", "text": content})
            elif isinstance(content, list):
                out.extend(b for b in content if isinstance(b, dict))
        return out

    def all_text(self) -> str:
        """Every text the request carries (messages, tool results), joined."""
        parts = []
        for block in self.blocks():
            parts.append(_text_of(block))
        return "\n".join(parts)

    def last_user_text(self) -> str:
        for message in reversed(self.messages):
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                return "\n".join(_text_of(b) for b in content or [] if isinstance(b, dict))
        return ""

    def tool_results(self) -> list[str]:
        return [_text_of(b) for b in self.blocks("user") if b.get("type") == "tool_result"]

    def last_tool_result(self) -> str | None:
        last = self.messages[-1] if self.messages else {}
        content = last.get("content")
        if last.get("role") != "user" or not isinstance(content, list):
            return None
        results = [_text_of(b) for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        return results[-1] if results else None


def _text_of(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, str):
            return content
        return "\n".join(str(b.get("text", "")) for b in content or [] if isinstance(b, dict))
    if kind == "tool_use":
        return json.dumps(block.get("input"))
    return ""


Responder = Callable[[Request], Reply]


class FakeMessagesAPI(FakeServer):
    """``with FakeMessagesAPI(responder) as api: ... api.url``.

    The server's life and its request log are ``fake_server.FakeServer``'s; the wire is the Messages API's."""

    requests: list[Request]

    def message_requests(self, model_prefix: str = "") -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path.startswith("/v1/messages") and "count_tokens" not in r.path
                    and r.model.startswith(model_prefix)]

    def _next_id(self) -> int:
        return next(self._ids)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(FakeHandler):
            def do_HEAD(self) -> None:
                self._json(200, {})

            def do_GET(self) -> None:
                self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

            def do_POST(self) -> None:
                body = self._read_json()
                request = Request(body=body, path=self.path)
                api._keep(request)
                if "count_tokens" in self.path:
                    self._json(200, {"input_tokens": 100})
                    return
                if not self.path.startswith("/v1/messages"):
                    self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
                    return
                try:
                    reply = api.responder(request)
                except Exception as exc:  # a responder bug must show up in the test, not hang it
                    api.errors.append(f"{type(exc).__name__}: {exc}")
                    reply = Reply.error(500)
                if reply.error_status:
                    self._json(reply.error_status, {"type": "error", "error": {
                        "type": "api_error" if reply.error_status < 529 else "overloaded_error",
                        "message": "fake server error"}})
                    return
                if body.get("stream"):
                    self._stream(request, reply)
                else:
                    self._json(200, api._message(request, reply))

            def _stream(self, request: Request, reply: Reply) -> None:
                message = api._message(request, reply)
                content = message.pop("content")
                events: list[tuple[str, dict[str, Any]]] = [
                    ("message_start", {"type": "message_start", "message": {**message, "content": [],
                                                                            "stop_reason": None}}),
                ]
                for index, block in enumerate(content):
                    if block["type"] == "text":
                        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                               "content_block": {"type": "text", "text": ""}}))
                        events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                               "delta": {"type": "text_delta", "text": block["text"]}}))
                    else:
                        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                               "content_block": {**block, "input": {}}}))
                        events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                               "delta": {"type": "input_json_delta",
                                                                         "partial_json": json.dumps(block["input"])}}))
                    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
                events.append(("message_delta", {"type": "message_delta",
                                                 "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                                 "usage": {"output_tokens": 10}}))
                events.append(("message_stop", {"type": "message_stop"}))
                self._sse("".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events))

        return Handler

    def _message(self, request: Request, reply: Reply) -> dict[str, Any]:
        content = []
        for block in reply.blocks:
            if block["type"] == "tool_use":
                content.append({"type": "tool_use", "id": f"toolu_fake{self._next_id():06d}",
                                "name": block["name"], "input": block["input"]})
            else:
                content.append(dict(block))
        stop = reply.stop_reason or ("tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn")
        return {
            "id": f"msg_fake{self._next_id():06d}",
            "type": "message",
            "role": "assistant",
            "model": request.model or "claude-fake",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0},
        }
