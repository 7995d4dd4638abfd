"""Wire format between the CLI and the warm daemon (standard library only).

One request per connection: a JSON object on one line,
``{"v": 1, "op": "search"|"expand"|"stats"|"ping", "params": {...}}``;
the reply is one JSON line, ``{"ok": true, "result": ..., "notices": [...]}``
or ``{"ok": false, "error": "one line", "exit_code": N}``; an error reply with
``"fallback": true`` tells the client to answer in-process instead (protocol
version skew, an internal daemon error). ``ping`` returns the daemon's status.
"""
from __future__ import annotations

PROTOCOL_VERSION = 1
QUERY_OPS = ("search", "concepts", "expand", "stats")
MAX_REQUEST_BYTES = 1 << 20
MAX_REPLY_BYTES = 64 << 20
