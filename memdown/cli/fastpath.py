"""Warm queries without click: ``memdown search|expand|stats`` answered by the daemon.

Only when a daemon socket exists and the arguments are plain (anything
unusual, such as ``--help``, an unknown option or a bad value, goes to the
click application, which explains it). Parsing follows the declarations in
``queryspec``; output comes from ``render``, as in the click commands.
Standard library only: this saves the ~40 ms that importing click costs.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ..errors import MemdownError
from .failure import error_text
from .queryspec import QUERY_COMMANDS, Opt, request_for
from .recorded import wanted
from .render import Write, render

_BAD = object()


def _convert(opt: Opt, raw: str) -> Any:
    if opt.kind in ("int", "nonneg"):
        try:
            value = int(raw)
        except ValueError:
            return _BAD
        return _BAD if opt.kind == "nonneg" and value < 0 else value
    if opt.kind == "choice":
        return raw if raw in opt.choices else _BAD
    return raw


def parse(args: list[str], options: tuple[Opt, ...], positional: str | None, count: int) -> dict[str, Any] | None:
    """Parsed values, or None when click should handle these arguments."""
    by_flag = {flag: opt for opt in options for flag in opt.flags}
    values: dict[str, Any] = {
        o.dest: [] if o.kind == "multi" else (False if o.kind == "flag" else None) for o in options
    }
    found: list[str] = []
    only_positional = False
    i = 0
    while i < len(args):
        arg = args[i]
        if only_positional or not arg.startswith("-") or arg == "-":
            found.append(arg)
            i += 1
            continue
        if arg == "--":
            only_positional = True
            i += 1
            continue
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        opt = by_flag.get(name)
        if opt is None:
            return None
        if opt.kind in ("flag", "switch"):
            if eq:
                return None
            values[opt.dest] = opt.kind == "flag" or name == opt.flags[0]  # a switch: --on / --off
            i += 1
            continue
        if eq:
            raw, i = inline, i + 1
        elif i + 1 < len(args):
            raw, i = args[i + 1], i + 2
        else:
            return None
        value = _convert(opt, raw)
        if value is _BAD:
            return None
        if opt.kind == "multi":
            values[opt.dest].append(value)
        else:
            values[opt.dest] = value
    if (count == 1 and len(found) != 1) or (count == 0 and found):
        return None
    if positional:
        values[positional] = tuple(found) if count == -1 else found[0]
    return values


def answer_from_daemon(root: Path, op: str, params: dict[str, Any], notify: Write) -> tuple[bool, Any]:
    """(True, result) from a running daemon, (False, None) when none answers.

    An error reply becomes the MemdownError it stands for, with its exit code.
    """
    from ..live.client import ask_daemon

    reply = ask_daemon(root, op, params)
    if reply is None:
        return False, None
    for note in reply.get("notices", []):
        notify(f"memdown: {note}")
    if reply.get("ok"):
        return True, reply.get("result")
    error = MemdownError(str(reply.get("error", "the daemon failed")))
    error.exit_code = int(reply.get("exit_code", 1))
    raise error


def _out(line: str) -> None:
    sys.stdout.write(line + "\n")


def _err(line: str) -> None:
    from ..controls import printable
    from ..fence import clean

    sys.stderr.write(clean(printable(line)) + "\n")  # a notice may name a file: controls shown escaped


def run(argv: list[str]) -> int | None:
    """Exit code when the daemon answered (or refused); None to use the click app."""
    spec = QUERY_COMMANDS.get(argv[0]) if argv else None
    if spec is None:
        return None
    values = parse(argv[1:], *spec)
    if values is None:
        return None
    from .. import paths

    root = paths.memory_root(values.get("memory_dir"))
    if not paths.socket_path(root).exists():
        return None
    try:
        op, params = request_for(argv[0], values)
        answered, result = answer_from_daemon(root, op, params, _err)
    except MemdownError as exc:
        _err(error_text(exc.one_line(), exc.exit_code, type(exc).__name__, as_json=bool(values.get("as_json"))))
        return exc.exit_code
    if not answered:
        return None
    render(op, result, as_json=bool(values.get("as_json")), out=_out, err=_err, fenced=wanted(values.get("fence")))
    sys.stdout.flush()
    return 0
