"""Console-script entry point.

``memdown hook EVENT`` is answered without importing click or the command
modules: hooks run on every prompt, and every millisecond shows.
"""
from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if len(argv) == 2 and argv[0] == "hook" and not argv[1].startswith("-"):
        from .hooks.runner import main as hook_main

        sys.exit(hook_main(argv[1:]))
    from .cli import main as cli_main

    cli_main()
