"""Fault injection for crash-safety tests: kill a child process at an exact step.

``run_killed`` runs ``action`` (Python source using ``ARGS``) in a child in
which the ``nth`` call of ``os.<func>`` ends the process with ``os._exit``,
just before or just after the real call: a crash at a known step instead of
a kill that may or may not land mid-write. ``count_calls`` is the dry run
that tells how many steps there are. ``run_size_limited`` kills the child
with SIGXFSZ once any file it writes grows past ``limit`` bytes: a crash in
the middle of a data write, whatever code does the writing.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT

KILLED = 137
STEPS = ("fsync", "replace", "rename", "chmod")

_HARNESS = r"""
import json, os, resource, sys
spec = json.loads(sys.stdin.read())
ARGS = spec["args"]
exec(spec["setup"])
counts = {}
def hook(name, real):
    def wrapper(*a, **k):
        counts[name] = counts.get(name, 0) + 1
        hit = name == spec["func"] and counts[name] == spec["nth"]
        if hit and spec["when"] == "before":
            os._exit(137)
        result = real(*a, **k)
        if hit and spec["when"] == "after":
            os._exit(137)
        return result
    return wrapper
for name in spec["steps"]:
    setattr(os, name, hook(name, getattr(os, name)))
if spec["limit"] is not None:
    import signal
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it by default: die, do not clean up
    resource.setrlimit(resource.RLIMIT_FSIZE, (spec["limit"], resource.RLIM_INFINITY))
exec(spec["action"])
if spec["limit"] is not None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
print(json.dumps(counts))
"""


def _run(setup: str, action: str, args: dict, *, func: str = "", nth: int = 0, when: str = "before",
         limit: int | None = None) -> subprocess.CompletedProcess:
    spec = {"setup": setup, "action": action, "args": args, "func": func, "nth": nth, "when": when,
            "steps": list(STEPS), "limit": limit}
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-c", _HARNESS], input=json.dumps(spec), capture_output=True, text=True,
                          env=env, timeout=120)


def count_calls(setup: str, action: str, args: dict) -> dict[str, int]:
    """Run ``action`` unharmed; how many times it called each step function."""
    done = _run(setup, action, args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def kill_points(counts: dict[str, int], funcs: tuple[str, ...] = STEPS) -> list[tuple[str, int, str]]:
    """(function, nth call, before/after) for every counted call of ``funcs``."""
    return [(func, n, when) for func, total in sorted(counts.items()) if func in funcs
            for n in range(1, total + 1) for when in ("before", "after")]


def run_killed(setup: str, action: str, args: dict, func: str, nth: int, when: str) -> None:
    done = _run(setup, action, args, func=func, nth=nth, when=when)
    assert done.returncode == KILLED, (func, nth, when, done.returncode, done.stderr[-2000:])


def run_size_limited(setup: str, action: str, args: dict, limit: int) -> int:
    """Run ``action`` with RLIMIT_FSIZE=``limit``; the child's return code (-SIGXFSZ when it died)."""
    return _run(setup, action, args, limit=limit).returncode


def files_holding(folder: Path, data: bytes) -> list[Path]:
    """Every regular file under ``folder`` whose bytes are exactly ``data``."""
    found = []
    for path in Path(folder).rglob("*"):
        try:
            if path.is_file() and not path.is_symlink() and path.stat().st_size == len(data) \
                    and path.read_bytes() == data:
                found.append(path)
        except OSError:
            continue
    return found
