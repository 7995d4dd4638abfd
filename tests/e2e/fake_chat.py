"""A scripted fake of the OpenAI Chat Completions API (streaming), for driving the real OpenCode CLI.

Test code only: it binds 127.0.0.1 and answers ``POST /v1/chat/completions`` with ``chat.completion.chunk``
server-sent events, what an ``@ai-sdk/openai-compatible`` provider reads. A request without tools (OpenCode's
title request) gets a title; a request whose last message is a tool result gets a closing text that quotes
it; any other request gets the next scripted bash command as a tool call. Every request is kept.
"""
from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from .fake_responses import FakeResponsesAPI, Reply, Request
from .fake_server import FakeHandler


class FakeChatAPI(FakeResponsesAPI):
    """``with FakeChatAPI(["npm install left-pad"]) as api: ... api.url`` (the provider's ``baseURL``).

    The server's life (127.0.0.1, a port of its own, ``url``, ``with``) is ``FakeResponsesAPI``'s (``fake_server``); the wire is
    Chat Completions'."""

    def __init__(self, commands: list[str]) -> None:
        self.commands = list(commands)
        super().__init__(responder=lambda request: Reply.say(""))  # unused: _handler_class answers

    def tool_results(self) -> list[str]:
        """What each tool call returned to the model (the tool messages of the last request)."""
        with self._lock:
            last = self.requests[-1].body if self.requests else {}
        return [str(m.get("content")) for m in last.get("messages") or [] if m.get("role") == "tool"]

    def _reply(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        messages = body.get("messages") or []
        if not body.get("tools"):
            delta: dict[str, Any] = {"role": "assistant", "content": "A title"}
            return [{"delta": delta, "finish_reason": None}, {"delta": {}, "finish_reason": "stop"}]
        if messages and messages[-1].get("role") == "tool" or not self.commands:
            said = str(messages[-1].get("content"))[:300] if messages else ""
            return [{"delta": {"role": "assistant", "content": f"The command said: {said}"}, "finish_reason": None},
                    {"delta": {}, "finish_reason": "stop"}]
        with self._lock:
            command = self.commands.pop(0)
        call = {"index": 0, "id": f"call_{len(self.requests)}", "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": command, "description": "run"})}}
        return [{"delta": {"role": "assistant", "tool_calls": [call]}, "finish_reason": None},
                {"delta": {}, "finish_reason": "tool_calls"}]

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(FakeHandler):
            def do_GET(self) -> None:
                self._json(200, {"object": "list", "data": [{"id": "m"}]})

            def do_POST(self) -> None:
                body = self._read_json()
                api._keep(Request(body=body, path=self.path))
                out = ""
                for choice in api._reply(body):
                    chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": "m",
                             "choices": [{"index": 0, **choice}]}
                    out += f"data: {json.dumps(chunk)}\n\n"
                self._sse(out + "data: [DONE]\n\n")

        return Handler
