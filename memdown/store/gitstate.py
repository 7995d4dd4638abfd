"""What git did to a working tree lately: the signs healing reads (``store.written``).
from .. import fsutil

Git rewrites working-tree files in ``checkout``, ``stash``, ``pull``/``merge``,
``rebase`` and ``reset``, and each of these also writes one of the files below
in the git folder. A memory file whose last change came within seconds of one
of them was last written by git.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

# Written by the commands that rewrite working-tree files.
_MARKERS = ("HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "AUTO_MERGE", "index", "refs/stash",
            "logs/HEAD", "logs/refs/stash")


def git_dir(start: Path) -> Path | None:
    """The git folder of the repository holding ``start`` (a worktree's ``.git`` file is followed)."""
    for folder in [Path(start), *Path(start).parents]:
        dot = folder / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():
            try:
                line = fsutil.read_text(dot, errors="replace").strip()
            except OSError:
                return None
            if line.startswith("gitdir:"):
                target = Path(line[len("gitdir:"):].strip())
                return target if target.is_absolute() else folder / target
            return None
    return None


def last_git_write(start: Path) -> float | None:
    """When git last wrote one of its marker files for the repository holding ``start`` (None: no git)."""
    found = git_dir(start)
    if found is None:
        return None
    times = []
    for name in _MARKERS:
        try:
            times.append(os.stat(found / name).st_mtime)
        except OSError:
            continue
    return max(times) if times else None


def removed_in_a_commit(path: Path, needle: str) -> bool:
    """Did a commit in HEAD's history hold ``needle`` in ``path`` that HEAD's version no longer holds?"""
    folder = Path(path).parent
    try:
        history = subprocess.run(["git", "-C", str(folder), "log", "-S", needle, "--format=%H", "-1", "HEAD", "--",
                                  Path(path).name], capture_output=True, text=True, timeout=20, check=False)
        if history.returncode != 0 or not history.stdout.strip():
            return False  # never committed (or no git): it cannot have been deleted in a commit
        head = subprocess.run(["git", "-C", str(folder), "show", f"HEAD:./{Path(path).name}"],
                              capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return head.returncode != 0 or needle not in head.stdout
