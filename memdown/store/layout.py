"""Creating the memory layout (``memdown init``)."""
from __future__ import annotations

from pathlib import Path

from .. import paths
from ..fsutil import atomic_write_text, file_lock


def init_layout(root: Path) -> list[str]:
    """Create the memory root, its folders and .gitignore; idempotent.

    Returns what was created or updated (relative paths), for the CLI to report.
    """
    root = Path(root)
    created: list[str] = []
    for folder in (root, paths.daily_dir(root)):
        if not folder.is_dir():
            folder.mkdir(parents=True, exist_ok=True)
            created.append(str(folder.relative_to(root.parent)) + "/")
    gitignore = root / ".gitignore"
    with file_lock(paths.lock_file(root, "gitignore"), timeout=5):
        existing = gitignore.read_text(encoding="utf-8").splitlines() if gitignore.exists() else []
        missing = [line for line in paths.GITIGNORE_LINES if line not in existing]
        if missing:
            header = [] if existing else ["# memdown: machine-local files (the index is a cache of the markdown)"]
            atomic_write_text(gitignore, "\n".join(existing + header + missing) + "\n")
            created.append(str(gitignore.relative_to(root.parent)))
    return created
