"""Wire format between the CLI and the warm daemon (standard library only).

One request per connection: a JSON object on one line,
``{"v": 1, "op": "search"|"expand"|"stats"|"ping", "params": {...}}``;
the reply is one JSON line, ``{"ok": true, "result": ..., "notices": [...]}``
or ``{"ok": false, "error": "one line", "exit_code": N}``; an error reply with
``"fallback": true`` tells the client to answer in-process instead (protocol
version skew, an internal daemon error). ``ping`` returns the daemon's status.
"""
from __future__ import annotations

from typing import Any

PROTOCOL_VERSION = 1
QUERY_OPS = ("search", "concepts", "expand", "stats")
MAX_REQUEST_BYTES = 1 << 20
MAX_REPLY_BYTES = 64 << 20


def error_reply(message: str, exit_code: int = 1, *, fallback: bool = False) -> dict[str, Any]:
    reply: dict[str, Any] = {"ok": False, "error": " ".join(str(message).split()), "exit_code": exit_code}
    if fallback:
        reply["fallback"] = True  # the client answers in-process instead
    return reply
