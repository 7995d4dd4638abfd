"""Progress of long work, in one place for every command (index, verify, reflect list, import, a
search that has to build the index first).

On a terminal (stderr is a TTY) a rich bar, shown only once the work has run for ``delay`` seconds,
so quick runs print nothing; it is transient (gone when the work ends). Elsewhere (a pipe, CI, an
agent's Bash tool) nothing by default, so stderr stays clean; ``plain=True`` prints a plain line
instead, at most every ``every`` seconds (for commands such as ``import`` whose log is the point).

Use it as a callback ``progress(stage, done, total)`` (``total`` 0 = unknown: a spinner) and close it,
or as a context manager::

    with Progress("indexing") as progress:
        mem.index(progress=progress)

    with Progress("verifying the index"):   # work with no counts: a spinner after `delay` seconds
        report = verify(mem)
"""
from __future__ import annotations

import sys
import threading
import time
from typing import IO, Any

from ..controls import printable, raw_stream

DELAY = 1.0  # seconds before anything is shown: work that ends sooner stays silent
PLAIN_EVERY = 5.0  # seconds between plain progress lines


class Progress:
    def __init__(self, label: str = "", *, plain: bool = False, delay: float = DELAY, every: float = PLAIN_EVERY,
                 stream: IO[str] | None = None, tty: bool | None = None, spinner: bool = True) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = _isatty(self.stream) if tty is None else tty
        self.plain = plain and not self.tty
        self.label = printable(label)
        self.delay = delay
        self.every = every
        self.stage, self.done, self.total = self.label, 0, 0
        self._lock = threading.Lock()
        self._bar: Any = None
        self._task: Any = None
        self._closed = False
        self._started = time.monotonic()
        self._last_line = self._started - every + delay  # the first plain line comes after `delay`
        self._timer: threading.Timer | None = None
        if self.tty and spinner:  # work without callbacks still shows a spinner once it passes `delay`
            self._timer = threading.Timer(delay, self._show)
            self._timer.daemon = True
            self._timer.start()

    # --- the callback -----------------------------------------------------------------------------------
    def __call__(self, stage: str, done: int, total: int) -> None:
        with self._lock:
            self.stage, self.done, self.total = printable(stage or self.label), done, total
            if self._closed:
                return
            if self._bar is None and self.tty and time.monotonic() - self._started >= self.delay:
                self._show_locked()
            if self._bar is not None:
                self._bar.update(self._task, completed=done, total=total or None, description=self.stage)
            elif self.plain and time.monotonic() - self._last_line >= self.every:
                self._last_line = time.monotonic()
                self._write_line()

    def note(self, line: str) -> None:
        """One line of output that must not tear the bar (e.g. a warning while the bar runs)."""
        with self._lock:
            if self._bar is not None:
                self._bar.console.print(printable(line), markup=False, highlight=False)
            else:
                self.stream.write(line + "\n")
                self.stream.flush()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._bar is not None:
                self._bar.stop()
                self._bar = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- display ----------------------------------------------------------------------------------------
    def _show(self) -> None:
        with self._lock:
            self._show_locked()

    def _show_locked(self) -> None:
        if self._closed or self._bar is not None:
            return
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bar, SpinnerColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        console = Console(file=raw_stream(self.stream), force_terminal=True)  # the bar's own escapes pass
        self._bar = Bar(SpinnerColumn(), "[progress.description]{task.description}", BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                        console=console, transient=True)
        self._bar.start()
        self._task = self._bar.add_task(self.stage, total=self.total or None, completed=self.done)

    def _write_line(self) -> None:
        count = f" {self.done:,}/{self.total:,}" if self.total else (f" {self.done:,}" if self.done else "")
        self.stream.write(f"memdown: {self.stage}{count}\n")
        self.stream.flush()


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
