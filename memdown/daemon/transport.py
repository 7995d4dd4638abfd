"""A private Unix socket that answers one line with one line.

:class:`LineServer` knows nothing about the daemon: each connection's first
line goes to a ``handle(line) -> reply`` function and the reply dict is
written back as one JSON line. Standard-library ``socketserver``, one short
thread per client. It also owns the socket file: a private 0700 folder, the
socket 0600, a stale socket replaced at start and ours removed at close.
"""
from __future__ import annotations

import json
import logging
import os
import socket
import socketserver
import stat
import threading
from pathlib import Path
from typing import Any, Callable, cast

from ..errors import MemdownError
from ..live.protocol import MAX_REQUEST_BYTES, error_reply

REQUEST_READ_TIMEOUT = 5.0  # a client must send its request line within this
POLL_INTERVAL = 0.05  # how often the serving thread looks for a shutdown request

Handle = Callable[[bytes], dict[str, Any]]


class DaemonError(MemdownError):
    """The daemon cannot start (socket folder, socket path…)."""


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


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 64
    allow_reuse_address = False

    def __init__(self, path: str, handle: Handle, log: logging.Logger) -> None:
        self.handle_line = handle
        self.log = log
        super().__init__(path, _Handler)

    def handle_error(self, request, client_address) -> None:  # noqa: D401 - socketserver hook
        self.log.exception("error answering a client")


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        server = cast(_Server, self.server)
        line = self._read_line(server.log)
        if line is not None:
            self._send(server.handle_line(line), server.log)

    def _read_line(self, log: logging.Logger) -> bytes | None:
        """The request's first line; None (after any error reply) when there is none to answer."""
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
                    log.warning("refused a request over %d bytes", MAX_REQUEST_BYTES)
                    self._send(error_reply("request too large", 2), log)
                    return None
        except socket.timeout:
            log.warning("a client sent no complete request within %.0fs (%d bytes)", REQUEST_READ_TIMEOUT, len(data))
            self._send(error_reply("request timed out", 2), log)
            return None
        except OSError as exc:
            log.info("client connection failed: %s", exc)
            return None
        if not data.strip():
            return None  # a connect-and-close probe
        return bytes(data).split(b"\n", 1)[0]

    def _send(self, reply: dict[str, Any], log: logging.Logger) -> None:
        try:
            payload = json.dumps(reply, default=str).encode("utf-8") + b"\n"
        except (TypeError, ValueError) as exc:
            payload = json.dumps(error_reply(f"reply not serialisable: {exc}", 1, fallback=True)).encode() + b"\n"
        try:
            self.request.sendall(payload)
        except OSError as exc:
            log.info("client went away before the reply: %s", exc)


class LineServer:
    """Serve ``handle`` on the Unix socket ``path`` until :meth:`close`.

    The caller must own ``path`` (the daemon holds the root's lock), so a
    socket file already there is a dead server's and is replaced.
    """

    def __init__(self, path: Path, handle: Handle, *, log: logging.Logger | None = None) -> None:
        self.path = Path(path)
        self.handle = handle
        self.log = log or logging.getLogger("memdown.daemon")
        self._server: _Server | None = None
        self._inode: int | None = None
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        """Bind the socket (private) and serve it on a background thread named ``socket``."""
        prepare_socket_dir(self.path)
        if self.path.exists() or self.path.is_symlink():
            self.log.info("removing a stale socket %s", self.path)
            self.path.unlink()
        server = _Server(str(self.path), self.handle, self.log)
        try:
            os.chmod(self.path, 0o600)
            self._inode = os.stat(self.path).st_ino
        except BaseException:
            server.server_close()
            raise
        self.thread = threading.Thread(target=lambda: server.serve_forever(poll_interval=POLL_INTERVAL),
                                       name="socket", daemon=True)
        self.thread.start()
        self._server = server

    def close(self) -> None:
        """Stop serving and remove the socket file, unless another server has replaced it since."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        try:
            if self._inode is not None and os.stat(self.path).st_ino == self._inode:
                self.path.unlink()
        except FileNotFoundError:
            pass
