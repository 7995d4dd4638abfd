"""Files of id'd markdown entries: signals, learnings, improvements, reflexion.

``EntryFile`` adds, edits, moves and removes entries of one file under its
lock, with atomic writes. The entry format (parse, render) lives in
``entry_format`` and the line-range edits in ``entry_edit``; this module
re-exports both, so callers import ``memdown.store.entries`` only. Hand edits
anywhere else in a file survive byte for byte, and every value written goes
through ``memdown.redact.redact``.

Ids are ``PREFIX-YYYYMMDD-WRTR-NNNN``: ``WRTR`` names the clone that wrote the
entry (random, kept in the gitignored ``state/writer-id``), so two clones
writing on the same day never make the same id and a merged file still names
each entry once. Ids without it (``SIG-20261122-0001``, written before) keep
working everywhere.
"""
from __future__ import annotations

import re
import secrets
from pathlib import Path

from .. import fsutil
from ..errors import NotFoundError
from ..fsutil import atomic_write_text, file_lock, file_lock_for
from .entry_edit import edit_file, insert_in_section, last_field_end, replace_entry, set_fields
from .entry_format import ID_RE, Entry, Heading, parse, read_entries, redacted, render_entry, render_value

__all__ = ["ID_RE", "Entry", "EntryFile", "Heading", "edit_file", "insert_in_section", "next_id", "parse",
           "read_entries", "render_entry", "render_value", "replace_entry", "set_fields", "writer_id"]

_WRITER_RE = re.compile(r"^[A-Z0-9]{4}$")
_WRITER_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I: ids are read aloud and typed


def writer_id(root: Path) -> str:
    """This clone's 4-character writer tag (created once, in the gitignored state folder)."""
    from .. import paths

    path = paths.state_dir(Path(root)) / "writer-id"
    try:
        tag = fsutil.read_text(path).strip()
        if _WRITER_RE.match(tag):
            return tag
    except (OSError, UnicodeDecodeError):
        pass
    tag = "".join(secrets.choice(_WRITER_ALPHABET) for _ in range(4))
    fsutil.make_dirs(path.parent)
    with file_lock(file_lock_for(path), timeout=10):
        try:  # another process may have made it while we waited
            existing = fsutil.read_text(path).strip()
            if _WRITER_RE.match(existing):
                return existing
        except (OSError, UnicodeDecodeError):
            pass
        atomic_write_text(path, tag + "\n", mode=paths.PRIVATE_FILE_MODE)  # machine-local, never committed
    return tag


def next_id(prefix: str, day: str, existing: list[str], writer: str = "") -> str:
    """``prefix-YYYYMMDD-WRTR-NNNN`` after the highest of ``existing`` for that day and writer."""
    stem = f"{prefix}-{day}-{writer}-" if writer else f"{prefix}-{day}-"
    highest = 0
    for entry_id in existing:
        if entry_id.startswith(stem):
            try:
                highest = max(highest, int(entry_id[len(stem):]))
            except ValueError:
                continue
    return f"{stem}{highest + 1:04d}"


class EntryFile:
    """One markdown file of entries with ids ``PREFIX-YYYYMMDD-NNNN`` (learnings, improvements, reflexion)."""

    def __init__(self, path: Path, *, prefix: str, level: int, header: str,
                 sections: tuple[str, ...] = ()) -> None:
        self.path = Path(path)
        self.prefix = prefix
        self.level = level
        self.header = header
        self.sections = sections

    def entries(self) -> list[Entry]:
        return read_entries(self.path, self.level)

    def get(self, entry_id: str) -> Entry:
        entry = next((e for e in self.entries() if e.id == entry_id), None)
        if entry is None:
            raise NotFoundError(f"no entry {entry_id} in {self.path.name}")
        return entry

    def add(self, title: str, fields: dict[str, object], *, body: str = "", section: str = "",
            day: str) -> str:
        """Append a new entry (in ``section`` when the file has sections); returns its id."""
        def change(text: str) -> tuple[str, str]:
            text = text or self.header
            ids = [e.id for e in parse(text, self.level)[0]]
            entry_id = next_id(self.prefix, day.replace("-", ""), ids, writer_id(self.path.parent))
            rendered = render_entry(self.level, entry_id, title, fields, body=body)
            if section:
                return insert_in_section(text, section, rendered, section_level=self.level - 1,
                                         order=self.sections), entry_id
            sep = "" if text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
            return text + sep + rendered, entry_id

        return edit_file(self.path, change)  # type: ignore[return-value]

    def set_fields(self, entry_id: str, updates: dict[str, object]) -> None:
        edit_file(self.path, lambda text: (set_fields(text, entry_id, self.level, updates), None))

    def set_body(self, entry_id: str, body: str) -> None:
        def change(text: str) -> tuple[str, None]:
            entry = next((e for e in parse(text, self.level)[0] if e.id == entry_id), None)
            if entry is None:
                raise NotFoundError(f"no entry {entry_id} in {self.path.name}")
            lines = text.splitlines(keepends=True)
            start = entry.body_start if entry.body_start is not None else entry.end
            if entry.body_start is None:
                # no body yet: after the fields
                start = last_field_end(entry) if entry.field_lines else entry.header_end
                lines[start:start] = ["\n", redacted(body).strip() + "\n", "\n"]
            else:
                end = entry.end
                while end > start and not lines[end - 1].strip():
                    end -= 1
                lines[start:end] = [redacted(body).strip() + "\n"]
            return "".join(lines), None

        edit_file(self.path, change)

    def move(self, entry_id: str, section: str) -> None:
        def change(text: str) -> tuple[str, None]:
            entry = next((e for e in parse(text, self.level)[0] if e.id == entry_id), None)
            if entry is None:
                raise NotFoundError(f"no entry {entry_id} in {self.path.name}")
            if entry.section.lower() == section.lower():
                return text, None
            lines = text.splitlines(keepends=True)
            block = "".join(lines[entry.start:entry.end]).rstrip("\n") + "\n\n"
            del lines[entry.start:entry.end]
            return insert_in_section("".join(lines), section, block, section_level=self.level - 1,
                                     order=self.sections), None

        edit_file(self.path, change)

    def remove(self, entry_id: str) -> None:
        edit_file(self.path, lambda text: (replace_entry(text, entry_id, self.level, None), None))
