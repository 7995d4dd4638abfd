"""The daemon's socket side: a private Unix socket, one JSON line per request.

Standard-library ``socketserver``; each request is handed to
``Daemon.handle_line`` and the reply written back. Also the checks every
request's parameters pass before they reach the query code.
"""
from __future__ import annotations

import json
import os
import socket
import socketserver
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MemdownError, UsageError
from .protocol import MAX_REQUEST_BYTES

if TYPE_CHECKING:
    from .server import Daemon

REQUEST_READ_TIMEOUT = 5.0  # a client must send its request line within this


class DaemonError(MemdownError):
    """The daemon cannot start (socket folder, socket path…)."""


# --- the socket --------------------------------------------------------------

def prepare_socket_dir(sock_path: Path) -> None:
    """Create the socket's folder 0700; refuse a folder someone else owns."""
    folder = sock_path.parent
    folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode):
        raise DaemonError(f"socket folder {folder} is not a folder (a symlink?); refusing to start")
    if st.st_uid != os.getuid():
        raise DaemonError(f"socket folder {folder} is owned by uid {st.st_uid}, not {os.getuid()}; refusing to start")
    if stat.S_IMODE(st.st_mode) != 0o700:
        os.chmod(folder, 0o700)
    limit = 104 if os.uname().sysname == "Darwin" else 108
    if len(os.fsencode(str(sock_path))) >= limit:
        raise DaemonError(
            f"socket path {sock_path} is longer than a Unix socket allows",
            hint="set XDG_RUNTIME_DIR (or TMPDIR) to a shorter folder",
        )


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        daemon: Daemon = self.server.daemon  # type: ignore[attr-defined]
        sock: socket.socket = self.request
        sock.settimeout(REQUEST_READ_TIMEOUT)
        data = bytearray()
        try:
            while b"\n" not in data:
                chunk = sock.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
                if len(data) > MAX_REQUEST_BYTES:
                    daemon.log.warning("refused a request over %d bytes", MAX_REQUEST_BYTES)
                    self._send(error_reply("request too large", 2))
                    return
        except socket.timeout:
            daemon.log.warning("a client sent no complete request within %.0fs (%d bytes)", REQUEST_READ_TIMEOUT, len(data))
            self._send(error_reply("request timed out", 2))
            return
        except OSError as exc:
            daemon.log.info("client connection failed: %s", exc)
            return
        if not data.strip():
            return  # a connect-and-close probe
        reply = daemon.handle_line(bytes(data).split(b"\n", 1)[0])
        self._send(reply)

    def _send(self, reply: dict[str, Any]) -> None:
        try:
            payload = json.dumps(reply, default=str).encode("utf-8") + b"\n"
        except (TypeError, ValueError) as exc:
            payload = json.dumps(error_reply(f"reply not serialisable: {exc}", 1, fallback=True)).encode() + b"\n"
        try:
            self.request.sendall(payload)
        except OSError as exc:
            self.server.daemon.log.info("client went away before the reply: %s", exc)  # type: ignore[attr-defined]


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 64
    allow_reuse_address = False

    def handle_error(self, request, client_address) -> None:  # noqa: D401 - socketserver hook
        self.daemon.log.exception("error answering a client")  # type: ignore[attr-defined]


def error_reply(message: str, exit_code: int = 1, *, fallback: bool = False) -> dict[str, Any]:
    reply: dict[str, Any] = {"ok": False, "error": " ".join(str(message).split()), "exit_code": exit_code}
    if fallback:
        reply["fallback"] = True  # the client answers in-process instead
    return reply


# --- the daemon ---------------------------------------------------------------


def clean_params(params: dict[str, Any]) -> dict[str, Any]:
    """Reject parameters of the wrong type before they reach the query code."""
    out = dict(params)
    if out.get("k") is not None and (isinstance(out["k"], bool) or not isinstance(out["k"], int)):
        raise UsageError("-k must be an integer")
    if out.get("lines") is not None and (isinstance(out["lines"], bool) or not isinstance(out["lines"], int)):
        raise UsageError("--lines must be an integer")
    for name in ("query", "kind", "since", "until", "source", "mode", "id"):
        if out.get(name) is not None and not isinstance(out[name], str):
            raise UsageError(f"{name} must be a string")
    concepts = out.get("concepts")
    if concepts is not None and (not isinstance(concepts, list) or not all(isinstance(c, str) for c in concepts)):
        raise UsageError("concepts must be a list of strings")
    return out


def make_server(path: str) -> _Server:
    """A listening server on ``path`` whose requests go to ``server.daemon`` (set by the caller)."""
    return _Server(path, _Handler)
