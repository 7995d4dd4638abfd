"""Markdown entries: the shared shape of signal, learning, improvement and reflexion files.

An entry is a heading whose text starts with an id, then an optional session
anchor, a bullet list of ``key: value`` fields and free markdown (the body)::

    ## SIG-20261122-K3F9-0001 · correction
    <!-- session:abc turn:u1 transcript:~/.claude/projects/p/abc.jsonl -->
    - type: correction
    - status: captured

    > no, use pnpm not npm

Structure is read with markdown-it-py token maps (never regexes); edits
replace exact line ranges, so hand edits anywhere else survive byte for byte.
Every value written goes through ``memdown.redact.redact``.

Ids are ``PREFIX-YYYYMMDD-WRTR-NNNN``: ``WRTR`` names the clone that wrote the
entry (random, kept in the gitignored ``state/writer-id``), so two clones
writing on the same day never make the same id and a merged file still names
each entry once. Ids without it (``SIG-20261122-0001``, written before) keep
working everywhere.
"""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import NotFoundError
from ..fsutil import atomic_write_text, file_lock, file_lock_for
from .markdown import block_parser, one_line

ID_RE = re.compile(r"^([A-Z]{3}-\d{8}-(?:[A-Z0-9]{4}-)?\d{4,})\b\s*(?:[·:|\u2013\u2014-]\s*)?(.*)$")
_WRITER_RE = re.compile(r"^[A-Z0-9]{4}$")
_WRITER_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I: ids are read aloud and typed
_FIELD_RE = re.compile(r"^([A-Za-z_][\w -]{0,30}?):\s*(.*)$", re.S)


def _redact(text: str) -> str:
    from ..redact import redact

    return redact(text)


@dataclass
class Entry:
    id: str
    title: str
    level: int
    section: str = ""
    anchor: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    body: str = ""
    quote: str = ""
    start: int = 0  # 0-based heading line
    end: int = 0  # exclusive
    field_lines: dict[str, tuple[int, int]] = field(default_factory=dict)
    fields_end: int | None = None  # line after the last field (where new fields go)
    header_end: int = 0  # line after the heading and anchor
    body_start: int | None = None  # first line of free markdown after the fields
    quote_end: int | None = None
    after_quote: str = ""  # free markdown after the first blockquote


@dataclass
class Heading:
    level: int
    text: str
    start: int
    end: int


def parse(text: str, level: int) -> tuple[list[Entry], list[Heading]]:
    """Entries at heading ``level`` and every heading of the document."""
    tokens = block_parser().parse(text)
    n_lines = len(text.splitlines())
    lines = text.splitlines()
    headings: list[Heading] = []
    blocks: list[tuple[int, int]] = []  # index ranges of top-level blocks in ``tokens``
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        j = i
        if tok.nesting == 1:
            depth = 0
            while j < len(tokens):
                depth += tokens[j].nesting
                if depth == 0:
                    break
                j += 1
        blocks.append((i, j))
        if tok.type == "heading_open" and tok.map:
            headings.append(Heading(int(tok.tag[1:]), tokens[i + 1].content.strip(), tok.map[0], tok.map[1]))
        i = j + 1

    entries: list[Entry] = []
    section = ""
    current: Entry | None = None
    for a, b in blocks:
        tok = tokens[a]
        if tok.type == "heading_open":
            hlevel = int(tok.tag[1:])
            if current is not None and hlevel <= current.level:
                current.end = tok.map[0]
                entries.append(current)
                current = None
            if hlevel < level:
                section = tokens[a + 1].content.strip()
            elif hlevel == level:
                match = ID_RE.match(tokens[a + 1].content.strip())
                if match:
                    current = Entry(id=match.group(1), title=match.group(2).strip(), level=level,
                                    section=section, start=tok.map[0], end=n_lines,
                                    header_end=tok.map[1])
            continue
        if current is None or not tok.map:
            continue
        _absorb(current, tokens[a:b + 1], lines)
    if current is not None:
        current.end = n_lines
        entries.append(current)
    for entry in entries:
        _finish(entry, lines)
    return entries, headings


def _absorb(entry: Entry, toks, lines: list[str]) -> None:
    tok = toks[0]
    start, end = tok.map
    if tok.type == "html_block" and not entry.fields and entry.body_start is None:
        content = tok.content.strip()
        if content.startswith("<!--") and "session:" in content and not entry.anchor:
            entry.anchor = content
            entry.header_end = end
            return
    if tok.type == "bullet_list_open" and entry.fields_end is None and entry.body_start is None:
        items = _list_fields(toks)
        if items:
            for key, value, span in items:
                entry.fields.setdefault(key, value)
                entry.field_lines.setdefault(key, span)
            entry.fields_end = max(span[1] for _, _, span in items)
            return
    if tok.type == "blockquote_open" and not entry.quote:
        entry.quote = "\n".join(t.content for t in toks if t.type == "inline").strip()
        entry.quote_end = end
    if entry.body_start is None:
        entry.body_start = start


def _list_fields(toks) -> list[tuple[str, str, tuple[int, int]]]:
    out: list[tuple[str, str, tuple[int, int]]] = []
    depth = 0
    item_start = None
    for k, tok in enumerate(toks):
        if tok.type == "list_item_open" and depth == 0:
            item_start = tok.map[0]
        if tok.type in ("list_item_open",):
            depth += 1
        elif tok.type == "list_item_close":
            depth -= 1
        elif tok.type == "inline" and depth == 1 and item_start is not None and toks[k - 1].type == "paragraph_open":
            match = _FIELD_RE.match(tok.content)
            if not match:
                return []
            key = match.group(1).strip().lower().replace(" ", "_").replace("-", "_")
            value = " ".join(match.group(2).split())
            out.append((key, value, (item_start, toks[k - 1].map[1])))
            item_start = None
    return out


def _finish(entry: Entry, lines: list[str]) -> None:
    if entry.body_start is not None:
        entry.body = "\n".join(lines[entry.body_start:entry.end]).strip()
    if entry.quote_end is not None:
        entry.after_quote = "\n".join(lines[entry.quote_end:entry.end]).strip()


# --- rendering --------------------------------------------------------------------

def render_value(value: object) -> str:
    if isinstance(value, (list, tuple, set)):
        value = ", ".join(str(v) for v in value)
    return one_line(_redact(str(value)))


def render_entry(level: int, entry_id: str, title: str, fields: dict[str, object], *,
                 anchor: str = "", quote: str = "", body: str = "") -> str:
    out = [f"{'#' * level} {entry_id} · {one_line(_redact(title), 100) or entry_id}"]
    if anchor:
        out.append(anchor)
    for key, value in fields.items():
        if value is None or value == "" or value == [] or value == ():
            continue
        out.append(f"- {key}: {render_value(value)}")
    text = "\n".join(out) + "\n"
    if quote:
        quoted = "\n".join("> " + line if line.strip() else ">" for line in _redact(quote).strip().splitlines())
        text += "\n" + quoted + "\n"
    if body:
        text += "\n" + _redact(body).strip() + "\n"
    return text + "\n"


# --- editing ----------------------------------------------------------------------

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
            at = _last_field_end(entry)
            edits.append((at, at, additions))
        else:
            edits.append((entry.header_end, entry.header_end, additions))
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        lines[start:end] = new
    return "".join(lines)


def _last_field_end(entry: Entry) -> int:
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
    """Read ``path`` under its lock, ``change(text) -> (new_text, result)``, write atomically."""
    path = Path(path)
    with file_lock(file_lock_for(path), timeout=timeout):
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = initial
        new_text, result = change(text)
        if new_text != text:
            atomic_write_text(path, new_text)
        return result


def read_entries(path: Path, level: int) -> list[Entry]:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return []
    return parse(text, level)[0]


def writer_id(root: Path) -> str:
    """This clone's 4-character writer tag (created once, in the gitignored state folder)."""
    from .. import paths

    path = paths.state_dir(Path(root)) / "writer-id"
    try:
        tag = path.read_text(encoding="utf-8").strip()
        if _WRITER_RE.match(tag):
            return tag
    except (OSError, UnicodeDecodeError):
        pass
    tag = "".join(secrets.choice(_WRITER_ALPHABET) for _ in range(4))
    path.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(file_lock_for(path), timeout=10):
        try:  # another process may have made it while we waited
            existing = path.read_text(encoding="utf-8").strip()
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
                start = _last_field_end(entry) if entry.field_lines else entry.header_end
                lines[start:start] = ["\n", _redact(body).strip() + "\n", "\n"]
            else:
                end = entry.end
                while end > start and not lines[end - 1].strip():
                    end -= 1
                lines[start:end] = [_redact(body).strip() + "\n"]
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
