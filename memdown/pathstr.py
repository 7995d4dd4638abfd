"""The memory root and its folders as plain strings, without ``pathlib``: the hook fast path.

``import pathlib`` brings ``fnmatch`` (and so ``re`` and ``enum``) and ``urllib.parse`` (with ``ipaddress``):
about 48 M instructions, half of a capture hook's run. ``paths`` is the public API (it returns ``Path``) and
builds on these functions, so each rule has one definition: a capture hook calls them directly.
Standard library only, and nothing from it but ``os`` and ``errno`` at import.
"""
from __future__ import annotations

import errno
import os

MEMORY_DIR_NAME = ".memdown"
STATE = "state"  # gitignored machine-local state (hook bookkeeping, the job queue, mining offsets)
LOGS = "logs"
# Memory roots a person named (``--dir``, ``MEMDOWN_DIR``): the file layer (``fsutil``) starts its
# no-symlink walk at them. A root found from the working folder is ``<project>/.memdown``, and the
# walk starts at ``<project>``, so a committed ``.memdown`` symlink is refused too.
NAMED_ROOTS: set[str] = set()
# What pathlib's exists()/is_dir() treat as "not there" (pathlib._IGNORED_ERRNOS); any other error is raised.
_ABSENT = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


def private_umask() -> None:
    """Make everything this process creates private to the user (0600 files, 0700 folders).

    Called once at each process edge (``memdown.entry.main``: the CLI, the
    hook runner, the detached worker and the daemon all start there), instead
    of a chmod after every write.
    """
    current = os.umask(0o077)
    os.umask(current | 0o077)


def _mode(path: str) -> int | None:
    """``os.stat(path).st_mode``, None when it is absent (as ``Path.exists``/``Path.is_dir`` decide)."""
    try:
        return os.stat(path).st_mode
    except OSError as exc:
        if exc.errno not in _ABSENT:
            raise
        return None
    except ValueError:  # a NUL in the path
        return None


def main_worktree_fast(here: str) -> str | None:
    """Walk up from the resolved folder ``here`` to the nearest ``.git``; a ``.git`` folder is a main worktree.

    Returns None when git must be asked (a ``.git`` file marks a linked
    worktree or submodule); ``here`` when there is no repository at all.
    Hooks use this to avoid spawning git on every prompt.
    """
    import stat

    folder = here
    while True:
        mode = _mode(os.path.join(folder, ".git"))
        if mode is not None:
            return folder if stat.S_ISDIR(mode) else None
        parent = os.path.dirname(folder)
        if parent == folder:
            return here
        folder = parent


def project_root(start: str | os.PathLike[str] | None = None) -> str:
    """Top of the *main* git worktree containing ``start`` (default: the working folder), else ``start``.

    ``git rev-parse --git-common-dir`` points at the main repository's
    ``.git`` from any linked worktree, so every worktree of a repository
    shares one memory.
    """
    here = os.path.realpath(os.fspath(start) if start else os.getcwd())
    fast = main_worktree_fast(here)
    if fast is not None:
        return fast
    import subprocess  # only for linked worktrees and unusual layouts

    try:
        proc = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
                              cwd=here, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return here
    common = proc.stdout.strip()
    if proc.returncode != 0 or not common:
        return here
    common = os.path.normpath(common)
    if os.path.basename(common) == ".git":
        return os.path.dirname(common)
    # A bare repository or an unusual layout: fall back to the work tree top.
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=here, capture_output=True, text=True)
    return os.path.normpath(top.stdout.strip()) if top.returncode == 0 and top.stdout.strip() else here


def named_root(value: str | os.PathLike[str]) -> str:
    """A memory root a person named (``--dir``, ``MEMDOWN_DIR``), resolved and remembered in ``NAMED_ROOTS``."""
    named = os.path.realpath(os.path.expanduser(os.fspath(value)))
    NAMED_ROOTS.add(named)
    return named


def memory_root(explicit: str | os.PathLike[str] | None = None, start: str | os.PathLike[str] | None = None) -> str:
    """The memory root: ``--dir`` > ``MEMDOWN_DIR`` > ``<project>/.memdown``."""
    if explicit:
        return named_root(explicit)
    env = os.environ.get("MEMDOWN_DIR", "").strip()
    if env:
        return named_root(env)
    return os.path.join(project_root(start), MEMORY_DIR_NAME)


def state_dir(root: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(root), STATE)


def logs_dir(root: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(root), LOGS)


def exists(path: str | os.PathLike[str]) -> bool:
    """``Path(path).exists()`` on a string: absent for the errors pathlib ignores, any other error raised."""
    return _mode(os.fspath(path)) is not None


def is_dir(path: str | os.PathLike[str]) -> bool:
    """``Path(path).is_dir()`` on a string (same errors as ``exists``)."""
    import stat

    mode = _mode(os.fspath(path))
    return mode is not None and stat.S_ISDIR(mode)


def is_file(path: str | os.PathLike[str]) -> bool:
    """``Path(path).is_file()`` on a string (same errors as ``exists``)."""
    import stat

    mode = _mode(os.fspath(path))
    return mode is not None and stat.S_ISREG(mode)


def global_config_file() -> str:
    """``MEMDOWN_CONFIG``, else ``$XDG_CONFIG_HOME/memdown/config.toml`` (``~/.config`` without it)."""
    env = os.environ.get("MEMDOWN_CONFIG", "").strip()
    if env:
        return os.path.expanduser(env)
    xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
    return os.path.join(os.path.expanduser(xdg) if xdg else os.path.join(os.path.expanduser("~"), ".config"),
                        "memdown", "config.toml")


def project_config_file(root: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(root), "config.toml")


def daily_dir(root: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(root), "memory")


def daily_files(root: str | os.PathLike[str]) -> list[str]:
    """The daily log files, newest first (names sort by date)."""
    folder = daily_dir(root)
    try:
        names = [e.name for e in os.scandir(folder) if e.name.endswith(".md") and e.is_file()]
    except OSError:
        return []
    return [os.path.join(folder, name) for name in sorted(names, reverse=True)]


def session_state_file(root: str | os.PathLike[str], folder: str, session_id: str, suffix: str = "") -> str:
    """Per-session bookkeeping under ``state/<folder>/``; the id is reduced to a safe file name."""
    safe = "".join(c for c in session_id if c.isalnum() or c in "-_")[:80] or "unknown"
    return os.path.join(state_dir(root), folder, f"{safe}{suffix}")
