"""``memdown hook EVENT``: read the hook JSON on stdin, answer JSON, exit 0.

Fail open: any error, a malformed payload or a blown time budget yields
``{}`` (plus a line in ``.memdown/logs/hooks.log``), never a traceback and
never a blocking exit code. Capture events (Stop, PreCompact, SessionEnd)
write their job to disk *before* the budget starts, so a loaded machine can
make a hook answer late, never lose its turn.

Imports are kept to the bare minimum: this runs on every prompt.
"""
from __future__ import annotations

import os
import sys
import time

try:  # signal.py only wraps _signal's functions in enums, at ~0.6 ms of every hook's import: the calls are the same
    import _signal as signal
except ImportError:  # pragma: no cover - an interpreter without it
    import signal  # type: ignore[no-redef]

TYPE_CHECKING = False  # not `import typing`: ~3 ms on every hook
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Callable

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
# Capture events queue a job (``detach.capture``) before their budget starts.
CAPTURE_EVENTS = ("Stop", "PreCompact", "SessionEnd")
# Events that run before every tool call: a line only when they said something (a guard stopped a call).
QUIET_WHEN_EMPTY = ("PreToolUse",)


from . import MAX_STDIN, TOO_BIG, too_big  # noqa: E402
from .where import log_line, root_path  # noqa: E402


class _Budget(Exception):
    pass


def normalize_event(name: str, client: str = "") -> str | None:
    """memdown's event for a hook's name (a Gemini CLI event names its Claude Code twin: ``hooks.gemini``)."""
    key = name.replace("-", "").replace("_", "").lower()
    if client == "gemini":
        from .gemini import EVENTS as GEMINI_EVENTS

        return GEMINI_EVENTS.get(key) or EVENTS.get(key)
    return EVENTS.get(key)


def _on_alarm(_signum: int, _frame: Any) -> None:
    raise _Budget()


def _read_payload() -> dict[str, Any]:
    """The hook JSON; invalid UTF-8 and lone surrogates are repaired, never fatal."""
    from ..wirejson import loads  # json's own C codec without `import json` (no re, no enum)

    stdin = sys.stdin
    if stdin is None or stdin.isatty():
        return {}
    data = stdin.buffer.read(MAX_STDIN + 1)
    if len(data) > MAX_STDIN:  # not cut (hooks.MAX_STDIN)
        raise ValueError(too_big())
    raw = data.decode("utf-8", "replace")
    if not raw.strip():
        return {}
    payload = loads(raw)
    if not isinstance(payload, dict):
        return {}
    if "\\u" in raw:
        from ..fsutil import clean_json

        payload = clean_json(payload)  # type: ignore[assignment]
    return payload


def handle(event: str, payload: dict[str, Any], root: str | os.PathLike[str] | None = None, arm: Any = None,
           later: list[Callable[[], None]] | None = None) -> dict[str, Any]:
    """The hook's JSON answer. ``arm()`` starts the time budget (after a capture job is on disk).

    A capture event with a ``later`` list leaves the start of its worker there, for the caller to run once the
    answer is out (``main``); without one the worker starts here.
    """
    from ..envflags import hook_sync

    if event in CAPTURE_EVENTS:  # straight to the queue: no config (but in sync mode), no other handlers imported
        from .detach import capture

        config = None
        if hook_sync() and root is not None:  # the job runs right here
            from pathlib import Path

            from ..config import load_config

            config = load_config(Path(root))
        capture(event, payload, root, arm, config, later)
        return {}
    if root is not None:
        root = os.fspath(root)  # the handlers take the root as a string (``events``): the prompt's imports no pathlib
    from . import events

    if arm is not None:
        arm()
    config = None
    if root is not None and event in events.USES_CONFIG:
        from ..config import load_config

        config = load_config(root)  # once per hook, passed down
    out = events.HANDLERS[event](payload, root, config)
    return out.to_json() if out is not None else {}


def main(argv: list[str], release_stdout: bool = False) -> int:
    """``argv``: the event, and the client when it is not Claude Code's wire format (``hooks.clientwire``).

    A capture hook redacts the turn's text (when the redactor is needed) and starts its detached worker only
    after its answer is written and flushed; with ``release_stdout`` (a hook process of its own: ``entry``)
    that work is done by a forked child that lets go of the client's pipes, and the hook exits at once.
    """
    started = time.perf_counter()
    client = argv[1] if len(argv) > 1 else ""
    event = normalize_event(argv[0], client) if argv else None
    out: dict[str, Any] = {}
    root: str | None = None
    later: list[Callable[[], None]] = []
    try:
        from ..envflags import hook_sync, in_summarizer, memdown_disabled  # not config: a capture hook loads none

        if event is None or memdown_disabled() or in_summarizer():
            return 0
        payload = sent = _read_payload()
        if client:
            from .clientwire import to_memdown

            payload = to_memdown(client, event, sent)
        root = root_path(payload)
        _notices_to_log(root, event)
        budget = BUDGETS[event]

        def arm() -> None:
            if not hook_sync():  # sync mode runs the slow job inline, on purpose
                signal.signal(signal.SIGALRM, _on_alarm)
                signal.setitimer(signal.ITIMER_REAL, budget)

        try:
            out = handle(event, payload, root, arm, later) or {}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if client:
            from .clientwire import to_client

            out = to_client(client, event, out, sent)
        # A capture hook only queues its job: the worker logs the job's own outcome.
        word = "answered" if event in CAPTURE_EVENTS else "ok"
        if out or event not in QUIET_WHEN_EMPTY:
            log_line(root, event, f"{word} {1000 * (time.perf_counter() - started):.0f}ms")
    except _Budget:
        out = {}
        log_line(root, event or "?", "over time budget; answered {}")
    except BaseException as exc:  # fail open, whatever happened
        out = {}
        root = root if root is not None else root_path({})  # payload unread: the hook's own folder's project
        log_line(root, event or "?", _failure(exc))
    finally:
        try:
            sys.stdout.write(_dumps(out) + "\n")
            sys.stdout.flush()
        except Exception:
            pass
    if later:
        _after_answer(later, root, event or "?", release_stdout)
    return 0


def _after_answer(later: list[Callable[[], None]], root: str | None, event: str, release_stdout: bool) -> None:
    """Run what was left for after the answer (a capture's redaction and worker start); an error is logged.

    With ``release_stdout`` (a hook process of its own) the work goes to a forked child in a session of its
    own, whose stdin, stdout and stderr are /dev/null: the hook exits at once, so the client waits for none of
    it. Without fork, or in-process, it runs here.
    """
    if release_stdout:
        try:
            if os.fork() > 0:
                return  # the hook: its answer is out; it exits now (entry._leave)
            os.setsid()
        except (AttributeError, OSError):  # no fork here: done in this process, after the answer
            pass
        try:  # never a closed fd a later open could reuse: /dev/null takes over the client's pipes
            null = os.open(os.devnull, os.O_RDWR)
            try:
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
            finally:
                os.close(null)
        except OSError:
            pass
    for run in later:
        try:
            run()
        except BaseException as exc:  # fail open: the job's recovery file is on disk, ``jobs.recover`` finishes it
            log_line(root, event, f"not done after the answer: {type(exc).__name__}: {str(exc)[:300]}")


def _failure(exc: BaseException) -> str:
    return str(exc) if str(exc).startswith(TOO_BIG) else f"error {type(exc).__name__}: {str(exc)[:300]}"


def _notices_to_log(root: str | None, event: str) -> None:
    """A file the file layer refuses is named in the hook log, not on Claude Code's screen."""
    from ..fsutil import set_notice_sink

    set_notice_sink(lambda line: log_line(root, event, line))


def _dumps(out: dict[str, Any]) -> str:
    if not out:
        return "{}"
    from ..wirejson import dumps

    return dumps(out)
