"""Console-script entry point.

``memdown hook EVENT`` is answered without importing click or the command
modules: hooks run on every prompt, and every millisecond shows. Likewise
``search``/``expand``/``stats`` go straight to a running daemon when one
answers (see ``cli.fastpath``); everything else is the click application.
Both write through ``controls.InertStream``: a control character in what a
command prints (recorded text, a file name, an error) is shown escaped.
A hook process ends with ``os._exit`` once its answer is flushed (``_leave``).
"""
from __future__ import annotations

import os
import sys


def main() -> None:
    argv = sys.argv[1:]
    if 2 <= len(argv) <= 3 and argv[0] == "hook" and argv[1].replace("-", "").replace("_", "").lower() in (
            "pretooluse", "beforetool") \
            and argv[2:] in ([], ["codex"], ["copilot"], ["cursor"], ["gemini"], ["opencode"]):
        from .hooks.pretool import main as pretool_main  # before every tool call: nothing else imported

        _leave(pretool_main(argv[2] if len(argv) == 3 else ""))
    from .pathstr import private_umask  # not paths: a capture hook never imports pathlib

    private_umask()  # caches, logs, jobs, ledger, archive, sockets: nobody else on this machine reads them
    argv = sys.argv[1:]
    if len(argv) in (2, 3) and argv[0] == "hook" and not argv[1].startswith("-") \
            and argv[2:] in ([], ["copilot"], ["cursor"], ["gemini"], ["opencode"]):  # hooks.clientwire.CLIENTS
        from .hooks.runner import main as hook_main

        _leave(hook_main(argv[1:], release_stdout=True))
    if argv and argv[0] == "worker":  # detached job worker started by hooks: no click either
        from .services.capture.worker import main as worker_main

        sys.exit(worker_main(argv[1:]))
    from .controls import PROTOCOL_COMMANDS, install

    if not (argv and argv[0] in PROTOCOL_COMMANDS):
        install()  # every command's stdout and stderr, terminal or pipe: no control character passes raw
    import atexit
    import gc

    # At exit the interpreter runs the garbage collector over every object still alive: after LanceDB,
    # pyarrow and onnxruntime are imported, ~0.1 s of CPU to find nothing (the process ends anyway).
    # Registered first, so it runs after every other exit handler; frozen objects are not traversed.
    atexit.register(gc.freeze)
    if argv and argv[0] in ("search", "expand", "stats"):
        from .cli.fastpath import run

        try:
            code = run(argv)
        except BrokenPipeError:  # the reader went away (`memdown search … | head -3`), or another pipe broke
            from .cli.failure import quiet_broken_pipe, stdout_closed

            if stdout_closed():
                code = quiet_broken_pipe()
            else:  # a socket or another pipe broke: a failure to report, not a reader that left
                sys.stderr.write("Error: a pipe or socket memdown used closed early\n")
                code = 1
        if code is not None:
            sys.exit(code)
    from .cli.app import main as cli_main

    cli_main()


def _leave(code: int) -> None:
    """End a hook process without the interpreter's teardown, once what it printed is flushed.

    Freeing every imported module at exit costs each hook about 2 ms of CPU (a tenth of UserPromptSubmit),
    on every prompt and tool call. Nothing is left for the teardown to do: a hook writes its files with
    ``os.write`` through ``fsutil`` (no buffered file objects), starts no thread and registers no atexit
    work, and the capture worker it starts is a process of its own.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a reader that went away: the exit code is all that is left to give
            pass
    os._exit(code)
