"""The click application: a thin layer over the library.

Commands are declared at module level, one module per command group; each
module lists its commands in ``COMMANDS``. Modules import heavy libraries
only inside command bodies, so ``memdown --help`` stays fast.

Every failure ends the same way (see :mod:`memdown.cli.failure`): a typed
library error or a click usage error becomes one line on stderr, or one JSON
object on stderr under ``--json``, with the error's exit code; a closed
stdout ends the command quietly.
"""
from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any

import click

from .. import __version__
from . import agentsafe
from ..errors import MemdownError
from .failure import error_text, quiet_broken_pipe, stdout_closed, wants_json
from .recorded import output_gate

# Each name is a module in this package with a ``COMMANDS`` tuple.
COMMAND_MODULES = ("layout", "indexing", "query", "settings", "model", "transcript", "hooks", "watch", "reflect",
                   "importing", "mcp", "forgetting", "clients", "stale")


class MemdownGroup(click.Group):
    """Turns typed errors into one-line (or JSON) messages and exit codes."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,  # type: ignore[override]
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        if not standalone_mode:
            return super().main(argv, prog_name, complete_var, standalone_mode, **extra)
        try:
            with output_gate(argv, self.commands):  # an agent reads every command's output through the gate
                result = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
        except MemdownError as exc:
            _fail(exc.one_line(), exc.exit_code, type(exc).__name__, as_json=wants_json(argv))
        except click.ClickException as exc:
            _fail(_click_line(exc), exc.exit_code, type(exc).__name__, as_json=wants_json(argv))
        except OSError as exc:  # a folder that cannot exist or be written (`init --dir /proc/1/nope`, a full disk)
            _fail(_os_line(exc), 1, type(exc).__name__, as_json=wants_json(argv))
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(result if isinstance(result, int) else 0)

    # A closed stdout ends quietly, whether it closes while a command runs or
    # while `--help`/`--version` print (during parsing); click alone would exit 1.
    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except BrokenPipeError:
            sys.exit(quiet_broken_pipe())

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            if not stdout_closed():  # not our reader: another pipe or socket broke, say so
                raise MemdownError(f"a pipe or socket memdown used closed early ({exc})") from None
            sys.exit(quiet_broken_pipe())


def _click_line(exc: click.ClickException) -> str:
    """click's usage error on one line (click prints usage, a hint and the error on four)."""
    message = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        return f"{message} (see `{ctx.command_path} --help`)"
    return message


def _os_line(exc: OSError) -> str:
    where = f": {exc.filename}" if exc.filename else ""
    return " ".join(f"{exc.strerror or type(exc).__name__}{where}".split())


def _fail(message: str, exit_code: int, kind: str, *, as_json: bool) -> None:
    from ..controls import printable
    from ..fence import clean

    # It may name a file: its control characters shown escaped (the name as it is), then no invisible ones.
    click.echo(error_text(clean(printable(message)), exit_code, kind, as_json=as_json), err=True)
    sys.exit(exit_code)


@click.group(cls=MemdownGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memdown")
def cli() -> None:
    """memdown: markdown-first memory for coding agents.

    Memory lives in .memdown/ as daily markdown you can read, edit and commit;
    the search index is a cache rebuilt from it at any time.
    """


for _name in COMMAND_MODULES:
    for _command in importlib.import_module(f"{__package__}.{_name}").COMMANDS:
        cli.add_command(_command)
agentsafe.enforce(cli)  # a person's settings change only at a person's terminal, never from an agent's shell


def main() -> None:
    cli(prog_name="memdown")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
