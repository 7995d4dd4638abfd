"""Claude Code's own auto memory for this project, read-only.

Since 2.1.x Claude writes one note per fact to
``~/.claude/projects/<key>/memory/*.md`` (``key``: the project path with every
non-alphanumeric character replaced by ``-``; ``CLAUDE_CONFIG_DIR`` moves
``~/.claude``; the ``autoMemoryDirectory`` setting moves the folder), each with
frontmatter ``name``, ``description`` and ``metadata.type`` (user | feedback |
project | reference), plus a ``MEMORY.md`` index. memdown indexes those notes as
kind ``automemory`` under the virtual source ``automemory/<file>.md`` and takes
``feedback``/``project`` notes in as signals. It never writes to that folder.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .. import fsutil
from .. import paths

SOURCE_DIR = "automemory"
INDEX_FILE = "MEMORY.md"
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]")


@dataclass
class AutoNote:
    path: Path
    name: str
    description: str
    type: str  # user | feedback | project | reference | ""
    body: str


def project_key(project: Path) -> str:
    """Claude Code's folder name for a project: every non-alphanumeric character becomes ``-``."""
    return _NON_ALNUM.sub("-", str(project))


def project_dir(root: Path) -> Path:
    root = Path(root)
    return root.parent if root.name == paths.MEMORY_DIR_NAME else paths.project_root()


def _setting(files: list[Path], key: str) -> str | None:
    for path in files:  # highest precedence first
        try:
            data = json.loads(fsutil.read_text(path))
        except (OSError, ValueError):
            continue
        value = data.get(key) if isinstance(data, dict) else None
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def memory_dir(root: Path) -> Path:
    """The auto-memory folder of the project whose memory root is ``root`` (it may not exist)."""
    project = project_dir(root)
    # autoMemoryDirectory is honoured from policy, local and user settings only (never the shared project file)
    custom = _setting([Path("/etc/claude-code/managed-settings.json"), project / ".claude" / "settings.local.json",
                       paths.claude_home() / "settings.json"], "autoMemoryDirectory")
    if custom:
        folder = Path(custom).expanduser()
        return folder if folder.is_absolute() else project / folder
    return paths.claude_home() / "projects" / project_key(project) / "memory"


def note_files(root: Path) -> list[Path]:
    """The notes (``*.md`` except the ``MEMORY.md`` index), sorted; [] when there is no folder."""
    folder = memory_dir(root)
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == ".md" and p.name != INDEX_FILE
                      and not p.name.startswith(".") and p.is_file())
    except OSError:
        return []


def source_for(root: Path, path: Path) -> str:
    """``automemory/<name>.md`` for a note of this project; ValueError for any other path."""
    path = Path(path).resolve()
    if path.parent != memory_dir(root).resolve() or path.suffix != ".md":
        raise ValueError(f"{path} is neither under the memory root nor an auto-memory note")
    return f"{SOURCE_DIR}/{path.name}"


def path_for(root: Path, source: str) -> Path | None:
    """The note behind an ``automemory/…`` source, None for other sources."""
    if not source.startswith(SOURCE_DIR + "/"):
        return None
    return memory_dir(root) / source.split("/", 1)[1]


def split(text: str) -> tuple[dict, str]:
    from .chunker import split_frontmatter

    metadata, body, _ = split_frontmatter(text)
    return metadata, body


def _type_of(metadata: dict) -> str:
    nested = metadata.get("metadata")
    value = nested.get("type") if isinstance(nested, dict) else None
    return str(value or metadata.get("type") or "").strip().lower()


def render(text: str) -> str:
    """A note as indexed: its frontmatter as a heading ("name (type)") and the description line, then the body."""
    metadata, body = split(text)
    name = str(metadata.get("name") or "").strip()
    if not name and not metadata:
        return text
    kind = _type_of(metadata)
    head = f"# {name or 'auto memory'}" + (f" ({kind})" if kind else "")
    description = " ".join(str(metadata.get("description") or "").split())
    parts = [head, "", f"Claude Code auto memory{f' · {kind}' if kind else ''}: {description}".rstrip(": "), ""]
    return "\n".join(parts) + "\n" + body.lstrip("\n")


def read_notes(root: Path) -> list[AutoNote]:
    """Every readable note with its frontmatter (unreadable or binary files are skipped)."""
    notes = []
    for path in note_files(root):
        try:
            data = fsutil.read_bytes(path)
        except OSError:
            continue
        if b"\x00" in data[:8192]:
            continue
        metadata, body = split(data.decode("utf-8", errors="replace"))
        notes.append(AutoNote(path=path, name=str(metadata.get("name") or path.stem).strip(),
                              description=" ".join(str(metadata.get("description") or "").split()),
                              type=_type_of(metadata), body=body.strip()))
    return notes
