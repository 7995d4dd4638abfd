"""Reading memory files defensively: binary, invalid UTF-8, huge or vanished files."""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .kinds import EXCLUDED_DIRS

BINARY_SNIFF_BYTES = 8192


@dataclass
class MemoryFile:
    path: Path
    source: str  # relative to the memory root, "/" separators
    text: str
    raw_bytes: bytes
    warnings: list[str] = field(default_factory=list)


class UnreadableFile(Exception):
    """Carries a one-line reason; the indexer reports it and moves on."""


def iter_markdown_files(root: Path) -> Iterator[Path]:
    """Every ``*.md`` under ``root`` except machine-local folders and hidden ones."""
    root = Path(root)
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        if rel.parts and rel.parts[0] in EXCLUDED_DIRS:
            dirnames[:] = []
            continue
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not (
            not rel.parts and d in EXCLUDED_DIRS))
        for name in sorted(filenames):
            if name.endswith(".md") and not name.startswith("."):
                yield Path(dirpath) / name


def source_of(root: Path, path: Path) -> str:
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        from .automemory import source_for

        return source_for(root, resolved)  # Claude Code's auto memory, or ValueError


def path_of(root: Path, source: str) -> Path:
    """The file behind an indexed ``source`` (under the root, or an auto-memory note)."""
    from .automemory import path_for

    return path_for(root, source) or Path(root) / source


def read_memory_file(root: Path, path: Path, *, max_bytes: int) -> MemoryFile:
    """Read ``path`` as UTF-8 markdown or raise ``UnreadableFile`` with a reason."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise UnreadableFile("file vanished while indexing") from None
    except PermissionError:
        raise UnreadableFile("permission denied") from None
    if size > max_bytes:
        raise UnreadableFile(
            f"{size / 1e6:.1f} MB is over the {max_bytes / 1e6:.0f} MB limit (config index.max_file_mb)"
        )
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UnreadableFile("file vanished while indexing") from None
    except (PermissionError, IsADirectoryError) as exc:
        raise UnreadableFile(exc.strerror or "cannot read") from None
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise UnreadableFile("binary content (NUL bytes), not markdown")
    warnings: list[str] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        warnings.append(f"invalid UTF-8 at byte {exc.start}; indexed with replacement characters")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:  # Windows line endings: same lines, no stray \r in chunk text
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    source = source_of(root, path)
    if source.startswith("automemory/"):
        from .automemory import render

        text = render(text)  # its frontmatter (name, type, description) becomes the heading and first line
    return MemoryFile(path=path, source=source, text=text, raw_bytes=data, warnings=warnings)
