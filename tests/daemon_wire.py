"""Talk to a daemon socket byte for byte (for tests of bad, partial and oversized requests)."""
from __future__ import annotations

import json
import socket
from pathlib import Path


def raw_request(path: Path | str, payload: bytes, *, shutdown: bool = False, timeout: float = 10) -> dict | None:
    """Send ``payload`` as is and return the one-line JSON reply (None when the server hangs up)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(str(path))
        try:
            s.sendall(payload)
        except OSError:
            pass  # the server may hang up before taking all of an oversized request
        if shutdown:
            s.shutdown(socket.SHUT_WR)
        data = b""
        while not data.endswith(b"\n"):
            try:
                chunk = s.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
    return json.loads(data) if data else None
