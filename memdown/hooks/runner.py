"""``memdown hook EVENT``: read the hook JSON on stdin, answer JSON, exit 0.

Fail open: any error, a malformed payload or a blown time budget yields
``{}`` (plus a line in ``.memdown/logs/hooks.log``), never a traceback and
never a blocking exit code.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

EVENTS = {
    "sessionstart": "SessionStart",
    "userpromptsubmit": "UserPromptSubmit",
    "stop": "Stop",
    "precompact": "PreCompact",
    "posttoolusefailure": "PostToolUseFailure",
    "sessionend": "SessionEnd",
    "pretooluse": "PreToolUse",
}
# Seconds before we give up and answer {} (Claude Code's own limits are larger;
# SessionEnd has 1.5 s in total for all plugins).
BUDGETS = {
    "SessionStart": 2.0,
    "UserPromptSubmit": 1.0,
    "Stop": 1.0,
    "PreCompact": 1.0,
    "PostToolUseFailure": 1.0,
    "SessionEnd": 0.8,
    "PreToolUse": 1.0,
}
MAX_STDIN = 8 << 20


class _Budget(Exception):
    pass


def normalize_event(name: str) -> str | None:
    return EVENTS.get(name.replace("-", "").replace("_", "").lower())


def _on_alarm(_signum: int, _frame: Any) -> None:
    raise _Budget()


def log_line(root: Path | None, event: str, message: str) -> None:
    """One line in the hook log (rotated at 1 MB); never raises."""
    if root is None or not root.is_dir():
        return
    try:
        from .. import paths

        folder = paths.logs_dir(root)
        folder.mkdir(exist_ok=True)
        log = folder / "hooks.log"
        try:
            if log.stat().st_size > 1_000_000:
                os.replace(log, folder / "hooks.log.1")
        except FileNotFoundError:
            pass
        line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {event} {message}\n"
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:
        pass


def _root_for(payload: dict[str, Any]) -> Path | None:
    try:
        from .. import paths

        cwd = payload.get("cwd")
        start = Path(cwd) if isinstance(cwd, str) and cwd and Path(cwd).is_dir() else None
        return paths.memory_root(start=start)
    except Exception:
        return None


def handle(event: str, payload: dict[str, Any]) -> dict[str, Any]:
    from . import events

    return events.HANDLERS[event](payload, _root_for(payload))


def main(argv: list[str]) -> int:
    started = time.perf_counter()
    event = normalize_event(argv[0]) if argv else None
    out: dict[str, Any] = {}
    root: Path | None = None
    try:
        if event is None or os.environ.get("MEMDOWN_DISABLE") == "1" or os.environ.get("MEMDOWN_SUMMARIZER"):
            return 0
        raw = sys.stdin.read(MAX_STDIN) if not sys.stdin.isatty() else ""
        payload = json.loads(raw) if raw.strip() else {}
        if not isinstance(payload, dict):
            payload = {}
        root = _root_for(payload)
        if os.environ.get("MEMDOWN_HOOK_SYNC") != "1":  # sync mode runs the slow job inline, on purpose
            signal.signal(signal.SIGALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_REAL, BUDGETS[event])
        try:
            out = handle(event, payload) or {}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        log_line(root, event, f"ok {1000 * (time.perf_counter() - started):.0f}ms")
    except _Budget:
        out = {}
        log_line(root, event or "?", "over time budget; answered {}")
    except BaseException as exc:  # fail open, whatever happened
        out = {}
        log_line(root, event or "?", f"error {type(exc).__name__}: {str(exc)[:300]}")
    finally:
        try:
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()
        except Exception:
            pass
    return 0
