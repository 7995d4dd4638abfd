"""Ask a running daemon; None when none answers in time (standard library only).

The CLI calls this before importing anything heavy, so a warm search costs an
interpreter start plus a socket round trip.

Before connecting, the socket's folder must be ours and private (another
local user could otherwise squat ``/tmp/memdown-<uid>/``, read the queries
and forge results into the model's context) and the socket ours too;
otherwise the caller answers in-process and ``logs/client.log`` says why.
"""
from __future__ import annotations

import json
import os
import socket
import stat
import time
from pathlib import Path
from typing import Any

from .. import paths
from .protocol import MAX_REPLY_BYTES, PROTOCOL_VERSION


def ask_daemon(root: Path, op: str, params: dict[str, Any], *, timeout: float = 0.25,
               reply_timeout: float = 30.0) -> dict[str, Any] | None:
    """The daemon's reply dict, or None if no daemon is listening (or it asks us to answer ourselves).

    ``timeout`` bounds connecting (a dead socket fails fast); once connected,
    a query may take up to ``reply_timeout`` (a daemon busy re-indexing).
    """
    sock_path = paths.socket_path(root)
    if not sock_path.exists():
        return None
    problem = _socket_problem(sock_path)
    if problem is not None:
        _notice(root, f"not using the live index: {problem}; answering in-process")
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(sock_path))
            sock.settimeout(reply_timeout)
            request = {"v": PROTOCOL_VERSION, "op": op, "params": params, "root": str(root)}
            sock.sendall(json.dumps(request).encode("utf-8") + b"\n")
            chunks: list[bytes] = []
            size = 0
            while True:
                data = sock.recv(1 << 16)
                if not data:
                    break
                chunks.append(data)
                size += len(data)
                if data.endswith(b"\n") or size > MAX_REPLY_BYTES:
                    break
    except (OSError, ValueError):
        return None
    try:
        reply = json.loads(b"".join(chunks).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(reply, dict) or "ok" not in reply:
        return None
    if not reply.get("ok") and reply.get("fallback"):
        return None  # the daemon cannot answer this one (version skew, internal error): answer in-process
    return reply


def _socket_problem(sock_path: Path) -> str | None:
    problem = paths.private_dir_problem(sock_path.parent)
    if problem is not None:
        return problem
    try:
        st = os.lstat(sock_path)
    except OSError as exc:
        return f"{sock_path}: {exc.strerror or exc}"
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.getuid():
        return f"{sock_path} is not a socket of uid {os.getuid()}"
    return None


def _notice(root: Path, message: str) -> None:
    """One line in ``logs/client.log`` (private: the process edge sets umask 077); never raises."""
    from ..fsutil import append_line

    folder = paths.logs_dir(Path(root))
    if folder.is_dir():
        try:
            append_line(folder / "client.log", f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {' '.join(message.split())}\n")
        except OSError:
            pass

