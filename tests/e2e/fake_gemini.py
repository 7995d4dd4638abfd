"""A scripted fake of the Gemini API (generativelanguage v1beta), for driving the real Gemini CLI.

Test code only: it binds 127.0.0.1 and answers what Gemini CLI's ``@google/genai`` client sends when
``GOOGLE_GEMINI_BASE_URL`` points at it: ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``
(server-sent events, one ``GenerateContentResponse`` per ``data:`` line: text parts, then
``functionCall`` parts), ``:generateContent`` (one JSON response) and ``:countTokens``. Each model
request is answered with what the test's ``responder`` returns; every request is kept in ``requests``
so a test can see exactly what reached the model (hook context included).
Written like ``fake_responses.py`` (the Codex fake).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from . import fake_responses
from .fake_responses import FakeResponsesAPI
from .fake_server import FakeHandler


@dataclass
class Reply(fake_responses.Reply):
    """One model response: text, shell calls (``run_shell_command``) and/or other tool calls."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # any other tool: (name, args)

    @classmethod
    def tool(cls, name: str, **args: Any) -> "Reply":
        return cls(calls=[(name, args)])


@dataclass
class Request:
    body: dict[str, Any]
    path: str

    @property
    def contents(self) -> list[dict[str, Any]]:
        return [c for c in self.body.get("contents") or [] if isinstance(c, dict)]

    @property
    def system(self) -> str:
        instruction = self.body.get("systemInstruction") or {}
        parts = instruction.get("parts") if isinstance(instruction, dict) else None
        return "\n".join(str(p.get("text") or "") for p in parts or [] if isinstance(p, dict))

    def texts(self, role: str | None = None) -> list[str]:
        return [str(p["text"]) for c in self.contents if role is None or c.get("role") == role
                for p in c.get("parts") or [] if isinstance(p, dict) and isinstance(p.get("text"), str)]

    def tool_outputs(self) -> list[str]:
        out = []
        for content in self.contents:
            for part in content.get("parts") or []:
                response = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(response, dict):
                    out.append(_output_of(response))
        return out

    def all_text(self) -> str:
        """Every text the model is sent: system instruction, messages (hook context included), tool outputs."""
        return "\n".join([self.system, *self.texts(), *self.tool_outputs()])

    def last_user_text(self) -> str:
        texts = self.texts("user")
        return texts[-1] if texts else ""

    def last_tool_output(self) -> str | None:
        last = self.contents[-1] if self.contents else {}
        responses = [p["functionResponse"] for p in last.get("parts") or []
                     if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)]
        return _output_of(responses[-1]) if responses else None


def _output_of(response: dict[str, Any]) -> str:
    body = response.get("response")
    if isinstance(body, dict):
        value = body.get("output", body.get("error", body))
        return value if isinstance(value, str) else json.dumps(value)
    return json.dumps(body)


_USAGE = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}


class FakeGeminiAPI(FakeResponsesAPI):
    """``with FakeGeminiAPI(responder) as api: ... api.url`` (``GOOGLE_GEMINI_BASE_URL``).

    The server, its thread and ``requests`` are the Codex fake's; the wire is Gemini's."""

    url_path = ""

    @staticmethod
    def chunks(reply: Reply) -> list[dict[str, Any]]:
        """The streamed responses for ``reply``: its text first, then one chunk with its function calls."""
        chunks: list[dict[str, Any]] = []
        if reply.text:
            chunks.append({"candidates": [{"index": 0, "content": {"role": "model", "parts": [{"text": reply.text}]}}]})
        if reply.commands or reply.calls:
            calls = [{"functionCall": {"name": "run_shell_command", "args": {"command": c}}} for c in reply.commands]
            calls += [{"functionCall": {"name": name, "args": args}} for name, args in reply.calls]
            chunks.append({"candidates": [{"index": 0, "content": {"role": "model", "parts": calls}}]})
        if not chunks:
            chunks.append({"candidates": [{"index": 0, "content": {"role": "model", "parts": [{"text": "."}]}}]})
        chunks[-1]["candidates"][0]["finishReason"] = "STOP"
        chunks[-1]["usageMetadata"] = _USAGE
        chunks[-1]["modelVersion"] = "gemini-fake"
        return chunks

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(FakeHandler):
            def do_GET(self) -> None:
                api.paths.append(f"GET {self.path}")
                self._json(200, {"models": []} if "/models" in self.path else {})

            def do_POST(self) -> None:
                api.paths.append(f"POST {self.path}")
                body = self._read_json()
                path = self.path.split("?", 1)[0]
                if path.endswith(":countTokens"):
                    self._json(200, {"totalTokens": 100})
                    return
                if not path.endswith((":streamGenerateContent", ":generateContent")):
                    self._json(404, {"error": {"code": 404, "message": self.path, "status": "NOT_FOUND"}})
                    return
                request = Request(body=body, path=self.path)
                api._keep(request)
                try:
                    reply = api.responder(request)
                except Exception as exc:  # a responder bug must show up in the test, not hang it
                    api.errors.append(f"{type(exc).__name__}: {exc}")
                    reply = Reply.say(f"responder error: {exc}")
                chunks = api.chunks(reply)
                if path.endswith(":generateContent"):
                    parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
                    self._json(200, {"candidates": [{"index": 0, "finishReason": "STOP",
                                                     "content": {"role": "model", "parts": parts}}],
                                     "usageMetadata": _USAGE})
                    return
                self._sse("".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks))

        return Handler
