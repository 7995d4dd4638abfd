"""The daemon's query side: one request line in, one reply dict out.

:meth:`QueryHandler.handle_line` is the ``handle`` function the transport
serves. It checks the request (protocol version, root, op, parameter types)
and answers query ops with :func:`memdown.services.recall.queries.run_query` under
the shared lock, with ``refresh=False`` (the daemon's index writer keeps the
index current): the same code the CLI runs in-process, so the output is
identical.
"""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Callable

from ..errors import MemdownError, UsageError
from ..live.protocol import PROTOCOL_VERSION, QUERY_OPS, error_reply
from .state import SharedIndex


def clean_params(params: dict[str, Any]) -> dict[str, Any]:
    """Reject parameters of the wrong type before they reach the query code."""
    out = dict(params)
    if out.get("k") is not None and (isinstance(out["k"], bool) or not isinstance(out["k"], int)):
        raise UsageError("-k must be an integer")
    if out.get("lines") is not None and (isinstance(out["lines"], bool) or not isinstance(out["lines"], int)):
        raise UsageError("--lines must be an integer")
    for name in ("query", "kind", "since", "until", "source", "mode", "id", "agent"):
        if out.get(name) is not None and not isinstance(out[name], str):
            raise UsageError(f"{name} must be a string")
    concepts = out.get("concepts")
    if concepts is not None and (not isinstance(concepts, list) or not all(isinstance(c, str) for c in concepts)):
        raise UsageError("concepts must be a list of strings")
    return out


class _Refused(Exception):
    """A request answered with an error before it reaches a query."""

    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__(reply.get("error"))
        self.reply = reply


class QueryHandler:
    """Answers requests for one root.

    ``status`` answers ``ping``; ``before_query`` runs under the lock before
    each query (the daemon reloads a changed config there); ``on_activity``
    marks the daemon busy (it postpones the idle exit).
    """

    def __init__(self, shared: SharedIndex, *, status: Callable[[], dict[str, Any]],
                 before_query: Callable[[], None] = lambda: None,
                 on_activity: Callable[[], None] = lambda: None) -> None:
        self.shared = shared
        self.log = shared.log
        self.status = status
        self.before_query = before_query
        self.on_activity = on_activity
        self._in_flight = 0
        self._in_flight_lock = threading.Lock()

    def busy(self) -> bool:
        """Whether a query is being answered (perhaps waiting for the index writer): not idle."""
        return self._in_flight > 0

    def handle_line(self, line: bytes) -> dict[str, Any]:
        try:
            op, params = self._decode(line)
        except _Refused as refused:
            return refused.reply
        if op == "ping":
            return {"ok": True, "result": self.status(), "notices": []}
        if op not in QUERY_OPS:
            self.shared.counters["bad_requests"] += 1
            self.log.warning("unknown op %r", op[:40])
            return error_reply(f"unknown query {op[:40]!r}", 2)
        return self.query(op, params)

    def _decode(self, line: bytes) -> tuple[str, dict[str, Any]]:
        """The request's op and params; raises :class:`_Refused` with the reply otherwise."""
        try:
            request = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self.shared.counters["bad_requests"] += 1
            self.log.warning("garbage on the socket (%d bytes): %r", len(line), line[:80])
            raise _Refused(error_reply("bad request: expected one JSON object per line", 2))
        if not isinstance(request, dict):
            self.shared.counters["bad_requests"] += 1
            self.log.warning("bad request: not a JSON object")
            raise _Refused(error_reply("bad request: expected a JSON object", 2))
        if request.get("v") != PROTOCOL_VERSION:
            self.log.info("request with protocol version %r; asking the client to answer itself", request.get("v"))
            raise _Refused(error_reply(f"protocol version {request.get('v')!r} not supported", 2, fallback=True))
        op, params = request.get("op"), request.get("params", {})
        if params is None:
            params = {}
        if not isinstance(op, str) or not isinstance(params, dict):
            self.shared.counters["bad_requests"] += 1
            self.log.warning("bad request: op %r, params of type %s", op, type(params).__name__)
            raise _Refused(error_reply("bad request: op must be a string and params an object", 2))
        if not self._serves(request.get("root")):
            self.log.warning("request for another root %r", request.get("root"))
            raise _Refused(error_reply(f"this daemon serves {self.shared.root}", 2, fallback=True))
        return op, params

    def _serves(self, asked_root: object) -> bool:
        if asked_root is None:
            return True
        try:
            return Path(str(asked_root)).resolve() == self.shared.root
        except (OSError, ValueError):
            return False

    def query(self, op: str, params: dict[str, Any]) -> dict[str, Any]:
        with self._in_flight_lock:
            self._in_flight += 1
        try:
            return self._answer(op, params)
        finally:
            self.on_activity()  # before the count drops, so the idle clock never sees a gap
            with self._in_flight_lock:
                self._in_flight -= 1

    def _answer(self, op: str, params: dict[str, Any]) -> dict[str, Any]:
        self.on_activity()
        self.shared.counters["requests"] += 1
        started = time.perf_counter()
        notices: list[str] = []
        try:
            with self.shared.lock:
                self.before_query()
                self.shared.refresh_reader()
                self.shared.mem.notices.clear()
                try:
                    from ..services.recall.queries import run_query

                    result = run_query(self.shared.mem, op, clean_params(params), refresh=False)
                finally:
                    self.shared.mark_seen()
                    # e.g. a damaged index rebuilt while answering
                    notices = self.shared.log_notices(prefix=f"{op}: ")
        except MemdownError as exc:
            self.shared.counters["errors"] += 1
            self.log.info("%s failed: %s", op, exc.one_line())
            return {**error_reply(exc.one_line(), exc.exit_code), "notices": notices}
        except Exception as exc:  # a bug or an unexpected library error: let the client answer itself
            self.shared.counters["errors"] += 1
            self.shared.last_error = f"{op}: {type(exc).__name__}: {exc}"[:300]
            self.log.exception("%s raised", op)
            return error_reply(f"daemon error: {type(exc).__name__}", 1, fallback=True)
        self.log.debug("%s answered in %.1f ms", op, (time.perf_counter() - started) * 1000)
        return {"ok": True, "result": result, "notices": notices}
