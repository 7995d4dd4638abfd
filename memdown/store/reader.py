"""Reading memory files defensively: binary, invalid UTF-8, huge or vanished files."""
from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .. import fsutil
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
    for path, _rel, _link in walk_markdown(root):
        yield Path(path)


def walk_markdown(root: Path) -> Iterator[tuple[str, str, bool]]:
    """``(path, path relative to root with "/", is a symlink)`` for each file of :func:`iter_markdown_files`.

    Plain strings from ``os.scandir`` (no Path objects, no extra stat): the
    freshness check before every search walks this. Folders sorted, files
    before sub-folders, symlinked folders not entered (as ``os.walk``); a symlinked file or a name that is not
    UTF-8 is skipped with a one-line notice (``fsutil.notice``), so the third item is always False.
    """
    yield from _walk(str(root), "")


def _walk(folder: str, rel: str) -> Iterator[tuple[str, str, bool]]:
    try:
        with os.scandir(folder) as scan:
            entries = list(scan)
    except OSError:
        return
    files, dirs = [], []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        (dirs if is_dir else files).append(entry)
    for entry in sorted(files, key=lambda e: e.name):
        if entry.name.endswith(".md") and not entry.name.startswith("."):
            if not _decodable(entry.name):  # cannot be stored, searched or printed as text
                fsutil.notice(fsutil.RefusedFileError(entry.path, "its name is not UTF-8"))
            elif entry.is_symlink():  # the file layer never reads through a link (docs/trust.md)
                fsutil.notice(fsutil.RefusedFileError(entry.path, "a symlink"))
            else:
                yield entry.path, rel + entry.name, False
    for entry in sorted(dirs, key=lambda e: e.name):
        if entry.name.startswith(".") or (not rel and entry.name in EXCLUDED_DIRS) or entry.is_symlink():
            continue
        yield from _walk(entry.path, f"{rel}{entry.name}/")


def _decodable(name: str) -> bool:
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


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


def read_memory_file(root: Path, path: Path, *, max_bytes: int, source: str | None = None) -> MemoryFile:
    """Read ``path`` as UTF-8 markdown or raise ``UnreadableFile`` with a reason.

    ``source``: the path relative to the root when the caller knows it (saves resolving symlinks).
    """
    path = Path(path)
    try:
        # through the file layer: a link, FIFO, socket or device is refused without being opened for reading
        st = fsutil.lstat(path)
        if st is not None and st.st_size > max_bytes and stat.S_ISREG(st.st_mode):
            raise UnreadableFile(
                f"{st.st_size / 1e6:.1f} MB is over the {max_bytes / 1e6:.0f} MB limit (config index.max_file_mb)"
            )
        data = fsutil.read_bytes(path, limit=max_bytes)
    except FileNotFoundError:
        raise UnreadableFile("file vanished while indexing") from None
    except fsutil.RefusedFileError as exc:
        raise UnreadableFile(f"refused: {exc.reason}") from None
    except OSError as exc:
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
    source = source if source is not None else source_of(root, path)
    if source.startswith("automemory/"):
        from .automemory import render

        text = render(text)  # its frontmatter (name, type, description) becomes the heading and first line
    return MemoryFile(path=path, source=source, text=text, raw_bytes=data, warnings=warnings)
