"""Creating the memory layout (``memdown init``).

Besides the folders and ``.gitignore``, it writes ``.gitattributes`` naming
memdown's entry-by-entry merge driver for the files two clones append to on
the same day, and registers that driver in the enclosing repository's own
``.git/config`` (once per clone; see docs/teams.md for why not ``merge=union``).
"""
from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from .. import fsutil
from .. import paths
from ..fsutil import atomic_write_text, file_lock


def init_layout(root: Path, *, register_driver: bool = False) -> list[str]:
    """Create the memory root, its folders and .gitignore; idempotent.

    Returns what was created or updated (relative paths), for the CLI to report.
    """
    root = Path(root)
    created: list[str] = []
    for folder in (root, paths.daily_dir(root)):
        if not folder.is_dir():
            fsutil.make_dirs(folder)
            created.append(str(folder.relative_to(root.parent)) + "/")
    gitignore = root / ".gitignore"
    with file_lock(paths.lock_file(root, "gitignore"), timeout=5):
        existing = fsutil.read_text(gitignore).splitlines() if gitignore.exists() else []
        missing = [line for line in paths.GITIGNORE_LINES if line not in existing]
        if missing:
            header = [] if existing else ["# memdown: machine-local files (the index is a cache of the markdown)"]
            atomic_write_text(gitignore, "\n".join(existing + header + missing) + "\n")
            created.append(str(gitignore.relative_to(root.parent)))
    attributes = root / ".gitattributes"
    with file_lock(paths.lock_file(root, "gitignore"), timeout=5):
        existing = fsutil.read_text(attributes).splitlines() if attributes.exists() else []
        missing = [line for line in MERGE_ATTRIBUTES if line not in existing]
        if missing:
            header = [] if existing else [
                "# memdown: merge memory entry by entry when two clones wrote on the same day (docs/teams.md)"]
            atomic_write_text(attributes, "\n".join(existing + header + missing) + "\n")
            created.append(str(attributes.relative_to(root.parent)))
    register_merge_driver(root, force=register_driver)
    return created


MERGE_DRIVER = "memdown"
# Relative to the memory root: .memdown/.gitattributes names only these (and the driver refuses any other path).
MERGE_PATTERNS = ("memory/*.md", "signals/*.md", "learnings.md", "improvements.md", "reflexion.md")
MERGE_ATTRIBUTES = tuple(f"{pattern} merge={MERGE_DRIVER}" for pattern in MERGE_PATTERNS)


def merge_driver_command() -> str:
    return f"{shlex.quote(sys.executable)} -m memdown merge-file %O %A %B %P"


def register_merge_driver(root: Path, *, force: bool = False) -> bool:
    """Set ``merge.memdown.*`` in the repository holding ``root`` (its .git/config only).

    Tried once per clone (a marker in the gitignored state folder keeps the
    capture path free of subprocesses); ``memdown init`` tries again. No
    repository or no git: git's plain merge applies.
    """
    command = merge_driver_command()
    marker = paths.state_dir(root) / "merge-driver"
    try:
        if not force and fsutil.read_text(marker).split("\n", 1)[-1] == command:
            return True
    except OSError:
        pass
    registered = _git_config(root, command)
    try:
        atomic_write_text(marker, f"{'registered' if registered else 'no git repository'}\n{command}",
                          mode=paths.PRIVATE_FILE_MODE)
    except OSError:
        pass
    return registered


def _git_config(root: Path, command: str) -> bool:
    try:
        for key, value in (("name", "memdown: merge memory files entry by entry"), ("driver", command)):
            done = subprocess.run(["git", "-C", str(root), "config", "--local", f"merge.{MERGE_DRIVER}.{key}", value],
                                  capture_output=True, timeout=10, check=False)
            if done.returncode != 0:
                return False  # not inside a git repository
    except (OSError, subprocess.SubprocessError):
        return False
    return True
