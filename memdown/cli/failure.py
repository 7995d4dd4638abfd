"""How a failed command ends: one line on stderr, or one JSON object under ``--json``.

Shared by the click application and the click-free warm fast path, so both
report errors, and a reader that went away (``memdown expand ID | head -5``),
the same way. Standard library only.
"""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

# What a tool killed by SIGPIPE reports (128 + 13); we exit with it, quietly.
BROKEN_PIPE_EXIT = 141


def wants_json(argv: Sequence[str]) -> bool:
    """``--json`` given as an option (anything after ``--`` is a positional argument)."""
    options = argv[: list(argv).index("--")] if "--" in argv else argv
    return "--json" in options


def error_text(message: str, exit_code: int, kind: str, *, as_json: bool) -> str:
    """The error as written to stderr: ``Error: …``, or ``{"error", "code", "type"}`` on one line.

    ``code`` is the process exit code, the same with and without ``--json``.
    """
    if as_json:
        return json.dumps({"error": message, "code": exit_code, "type": kind}, ensure_ascii=False)
    return f"Error: {message}"


def stdout_closed(fd: int | None = None) -> bool:
    """Whether our stdout is a pipe whose reader went away (poll reports an error on its write end).

    A BrokenPipeError raised anywhere else (a socket, a child process's pipe) is a failure to report,
    not a reader that left: treated as one, it ended the command with exit 141 and nothing on stdout
    or stderr (an agent's search then "printed nothing"). When this cannot be told, it says yes.
    """
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno() if fd is None else fd, select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no real file descriptor (a test runner's buffer), no poll
        return True


def quiet_broken_pipe() -> int:
    """The reader closed our stdout: send what is still buffered nowhere and say nothing.

    Python would otherwise print a traceback, or "Exception ignored … BrokenPipeError"
    when it flushes stdout at exit.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file descriptor (a test runner's buffer)
        pass
    return BROKEN_PIPE_EXIT
