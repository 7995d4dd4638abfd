"""Edits to a markdown entry file that replace exact line ranges, so hand edits elsewhere survive byte for byte."""
from __future__ import annotations

from pathlib import Path

from ..errors import NotFoundError
from ..fsutil import edit_text
from .entry_format import Entry, parse, render_value


def set_fields(text: str, entry_id: str, level: int, updates: dict[str, object]) -> str:
    """Return ``text`` with the entry's fields replaced/added (``None`` removes a field)."""
    entries, _ = parse(text, level)
    entry = next((e for e in entries if e.id == entry_id), None)
    if entry is None:
        raise NotFoundError(f"no entry {entry_id}")
    lines = text.splitlines(keepends=True)
    edits: list[tuple[int, int, list[str]]] = []
    additions: list[str] = []
    for key, value in updates.items():
        span = entry.field_lines.get(key)
        new = [] if value is None else [f"- {key}: {render_value(value)}\n"]
        if span is not None:
            edits.append((span[0], span[1], new))
        elif new:
            additions.extend(new)
    if additions:
        if entry.fields_end is not None:
            at = last_field_end(entry)
            edits.append((at, at, additions))
        else:
            edits.append((entry.header_end, entry.header_end, additions))
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        lines[start:end] = new
    return "".join(lines)


def last_field_end(entry: Entry) -> int:
    return max(span[1] for span in entry.field_lines.values())


def replace_entry(text: str, entry_id: str, level: int, new_text: str | None) -> str:
    """Replace (or with ``None`` remove) the whole entry's lines."""
    entries, _ = parse(text, level)
    entry = next((e for e in entries if e.id == entry_id), None)
    if entry is None:
        raise NotFoundError(f"no entry {entry_id}")
    lines = text.splitlines(keepends=True)
    lines[entry.start:entry.end] = [new_text] if new_text else []
    return "".join(lines)


def insert_in_section(text: str, section: str, rendered: str, *, section_level: int = 2,
                      order: tuple[str, ...] = ()) -> str:
    """Append ``rendered`` at the end of the ``section`` heading's section, creating it if needed.

    New sections are placed by ``order`` (names in document order) when given, else at the end.
    """
    _, headings = parse(text, section_level + 1)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    tops = [h for h in headings if h.level <= section_level]
    body = rendered.rstrip("\n") + "\n"
    for k, heading in enumerate(tops):
        if heading.level == section_level and heading.text.lower() == section.lower():
            end = tops[k + 1].start if k + 1 < len(tops) else len(lines)
            while end > heading.end and not lines[end - 1].strip():
                end -= 1
            chunk = ["\n", body] if end > 0 and lines[end - 1].strip() else [body]
            if end < len(lines) and lines[end].strip():
                chunk.append("\n")
            lines[end:end] = chunk
            return "".join(lines)
    position = len(lines)
    if section in order:
        later = set(order[order.index(section) + 1:])
        for heading in tops:
            if heading.level == section_level and heading.text in later:
                position = heading.start
                break
    new_section = f"{'#' * section_level} {section}\n\n{body}"
    if position < len(lines):
        lines[position:position] = [new_section, "\n"]
    else:
        if lines and lines[-1].strip():
            lines.append("\n")
        lines.append(new_section)
    return "".join(lines)


def edit_file(path: Path, change, *, timeout: float = 10.0, initial: str = "") -> object:
    """``change(text) -> (new_text, result)`` on ``path`` under its lock, with compare-and-swap
    (``fsutil.edit_text``): a person's save between the read and the write is never overwritten."""
    return edit_text(Path(path), change, timeout=timeout, initial=initial)
