"""The click application: a thin layer over the library.

Each command module defines ``register(group)``. Modules import heavy
libraries only inside command bodies, so ``memdown --help`` stays fast.
"""
from __future__ import annotations

import importlib
import sys

import click

from .. import __version__
from ..errors import MemdownError

# Each name is a module in this package with a ``register(group)`` function.
COMMAND_MODULES = ("core", "transcript", "hooks", "watch", "reflect")


class MemdownGroup(click.Group):
    """Turns the library's typed errors into one-line messages and exit codes."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except MemdownError as exc:
            error = click.ClickException(exc.one_line())
            error.exit_code = exc.exit_code
            raise error from None
        except KeyboardInterrupt:
            raise click.Abort() from None


@click.group(cls=MemdownGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memdown")
def cli() -> None:
    """memdown: markdown-first memory for coding agents.

    Memory lives in .memdown/ as daily markdown you can read, edit and commit;
    the search index is a cache rebuilt from it at any time.
    """


for _name in COMMAND_MODULES:
    importlib.import_module(f"{__package__}.{_name}").register(cli)


def main() -> None:
    cli(prog_name="memdown")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
