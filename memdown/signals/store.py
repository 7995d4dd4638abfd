"""Signals as markdown: ``.memdown/signals/YYYY-MM-DD.md``, one entry per signal.

::

    ## SIG-20261122-0001 · correction
    <!-- session:abc turn:4f2e… transcript:~/.claude/projects/-repo/abc.jsonl -->
    - type: correction
    - confidence: 2
    - status: captured
    - scope: project
    - tags: pnpm, npm
    - pattern: en.correction.no-use
    - corroboration: 1
    - captured: 2026-11-22T10:31:05Z

    > no, use pnpm not npm

    After: Bash `npm install`

A person may edit ``status``, the quote or any field; readers take what is
on disk. Appends and edits hold the file's lock (``fsutil.file_lock_for``).
"""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import fsutil
from .. import paths
from ..errors import NotFoundError, UsageError
from ..fsutil import append_unlocked, atomic_write_text, file_lock, file_lock_for
from ..store import entries

STATUSES = ("captured", "analyzed", "promoted", "dismissed", "archived")
ACTIVE = ("captured", "analyzed")
TYPES = ("correction", "convention", "positive", "memory_request", "command", "revert",
         "repeated_failure", "multi_edit", "search_thrash", "missing_context", "failure")
LEVEL = 2
_KNOWN = ("type", "confidence", "status", "scope", "tags", "pattern", "corroboration",
          "consolidated_into", "captured", "seen")


@dataclass
class Signal:
    type: str
    text: str
    confidence: int = 1
    status: str = "captured"
    id: str = ""
    context: str = ""
    session: str = ""
    turn: str = ""
    transcript: str = ""
    scope: str = "project"
    tags: list[str] = field(default_factory=list)
    pattern: str = ""
    corroboration: int = 1
    consolidated_into: str = ""
    captured: str = ""
    seen: str = ""
    extra: dict[str, str] = field(default_factory=dict)
    path: Path | None = None

    @property
    def active(self) -> bool:
        return self.status in ACTIVE and not self.consolidated_into

    @property
    def day(self) -> str:
        return (self.seen or self.captured or "")[:10]

    def captured_at(self) -> dt.datetime | None:
        return parse_time(self.captured or self.seen)

    def to_dict(self) -> dict:
        data = {k: getattr(self, k) for k in ("id", "type", "confidence", "status", "text", "context",
                                               "session", "turn", "transcript", "scope", "tags", "pattern",
                                               "corroboration", "consolidated_into", "captured", "seen")}
        data.update(self.extra)
        data["file"] = str(self.path) if self.path else ""
        return data


def parse_time(value: str) -> dt.datetime | None:
    if not value:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        try:
            parsed = dt.datetime.strptime(value[:10], "%Y-%m-%d")
        except ValueError:
            return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.timezone.utc)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _int(value: str, default: int) -> int:
    try:
        return int(str(value).strip().split()[0])
    except (ValueError, IndexError):
        return default


def anchor_text(session: str, turn: str, transcript: str) -> str:
    if not session:
        return ""
    from ..store.anchors import Anchor, anchor_escape

    return Anchor(anchor_escape(session), anchor_escape(turn), anchor_escape(transcript)).render()


def from_entry(entry: entries.Entry, path: Path | None) -> Signal:
    f = entry.fields
    sig = Signal(type=(f.get("type") or (entry.title.split()[0] if entry.title else "")).strip(),
                 text=entry.quote, id=entry.id, path=path)
    sig.confidence = max(1, min(3, _int(f.get("confidence", "1"), 1)))
    sig.status = (f.get("status") or "captured").strip().lower()
    sig.scope = (f.get("scope") or "project").strip().lower()
    sig.tags = [t.strip() for t in f.get("tags", "").split(",") if t.strip()]
    sig.pattern = f.get("pattern", "")
    sig.corroboration = max(1, _int(f.get("corroboration", "1"), 1))
    sig.consolidated_into = f.get("consolidated_into", "").strip()
    sig.captured = f.get("captured", "")
    sig.seen = f.get("seen", "")
    sig.extra = {k: v for k, v in f.items() if k not in _KNOWN}
    if entry.anchor:
        from ..store.anchors import anchor_unescape, parse_anchor

        anchor = parse_anchor(entry.anchor)
        if anchor:
            sig.session, sig.turn = anchor.session, anchor.turn  # parse_anchor decodes them
            sig.transcript = anchor_unescape(anchor.transcript)
    if entry.quote:
        sig.context = entry.after_quote
    else:  # hand-written entry without a blockquote: the free text is the quote
        sig.text = entry.body
    return sig


def render(sig: Signal) -> str:
    fields: dict[str, object] = {
        "type": sig.type,
        "confidence": sig.confidence,
        "status": sig.status,
        "scope": sig.scope,
        "tags": sig.tags,
        "pattern": sig.pattern,
        "corroboration": sig.corroboration if sig.corroboration > 1 else None,
        "captured": sig.captured,
        "seen": sig.seen if sig.seen and sig.seen != sig.captured else None,
    }
    fields.update(sig.extra)
    if sig.consolidated_into:
        fields["consolidated_into"] = sig.consolidated_into
    return entries.render_entry(LEVEL, sig.id, sig.type, fields,
                                anchor=anchor_text(sig.session, sig.turn, sig.transcript),
                                quote=sig.text, body=sig.context)


# --- files ----------------------------------------------------------------------

HEADER = ("# Signals {day}\n\n<!-- Captured by memdown. Edit a signal's status (captured, analyzed, promoted, "
          "dismissed, archived), its quote or tags by hand; `memdown reflect` respects it. -->\n\n")


def day_file(root: Path, day: str) -> Path:
    return paths.signals_dir(root) / f"{day}.md"


signal_files = paths.signal_files


# path → (the file's identity when parsed, its signals): a file is parsed again only when it
# changed (size, mtime, inode), so mining many sessions in one process (``memdown import``)
# does not re-parse every signal file per session. Callers get copies.
_parsed: dict[Path, tuple[tuple[int, int, int], list[Signal]]] = {}


def read_file(path: Path) -> list[Signal]:
    try:
        st = path.stat()
        key = (st.st_size, st.st_mtime_ns, st.st_ino)
    except OSError:
        key = None
    cached = _parsed.get(path)
    if key is None or cached is None or cached[0] != key:
        found = [from_entry(e, path) for e in entries.read_entries(path, LEVEL)]
        if key is None:
            return found
        _parsed[path] = cached = (key, found)
    return [replace(s, tags=list(s.tags), extra=dict(s.extra)) for s in cached[1]]


def load(root: Path, *, statuses: tuple[str, ...] | None = None, types: tuple[str, ...] | None = None) -> list[Signal]:
    out: list[Signal] = []
    for path in signal_files(root):
        for sig in read_file(path):
            if statuses and sig.status not in statuses:
                continue
            if types and sig.type not in types:
                continue
            out.append(sig)
    return out


def _seq_file(root: Path) -> Path:
    return paths.state_dir(root) / "signal-seq.json"


def _allocate(root: Path, path: Path, day: str, count: int) -> tuple[list[str], dict, Path, str]:
    """Ids for ``count`` new signals of ``day`` (caller holds ``path``'s lock).

    A counter in the state folder avoids re-parsing the day file on the hook
    path; a missing or stale counter falls back to the file's highest id.
    """
    seq_path = _seq_file(root)
    try:
        seq = json.loads(fsutil.read_text(seq_path))
        if not isinstance(seq, dict):
            seq = {}
    except (OSError, ValueError):
        seq = {}
    compact = day.replace("-", "")
    writer = entries.writer_id(root)  # ids unique across clones
    last = seq.get(compact)
    if not isinstance(last, int) or seq.get(compact + ":size") != _size(path):
        existing = [e.id for e in entries.read_entries(path, LEVEL)]
        first = entries.next_id("SIG", compact, existing, writer)
        last = max(int(first.rsplit("-", 1)[1]) - 1, last if isinstance(last, int) else 0)
    ids = [f"SIG-{compact}-{writer}-{last + k + 1:04d}" for k in range(count)]
    seq[compact] = last + count
    return ids, seq, seq_path, compact


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def said_day(sig: Signal, now: dt.datetime) -> str:
    """The local day a signal was said (its ``seen`` time; ``now`` for one without)."""
    moment = parse_time(sig.seen) or now
    return moment.astimezone().strftime("%Y-%m-%d")


def append(root: Path, signals: list[Signal], *, now: dt.datetime | None = None) -> list[Signal]:
    """Give each signal an id, redact and append it to the file of the day it was said. Returns them.

    A signal mined from an old transcript (``memdown import``, a late capture) lands on its own day,
    so "last week" never means "captured last week"."""
    if not signals:
        return []
    now = now or utcnow()
    by_day: dict[str, list[Signal]] = {}
    for sig in signals:
        by_day.setdefault(said_day(sig, now), []).append(sig)
    for day, group in sorted(by_day.items()):
        _append_day(root, day, group, now)
    return signals


def _append_day(root: Path, day: str, signals: list[Signal], now: dt.datetime) -> None:
    path = day_file(root, day)
    with file_lock(file_lock_for(path)):
        ids, seq, seq_path, compact = _allocate(root, path, day, len(signals))
        chunks = [] if path.exists() else [HEADER.format(day=day)]
        for sig, sig_id in zip(signals, ids):
            sig.id = sig_id
            sig.captured = sig.captured or iso(now)
            sig.path = path
            chunks.append(render(sig))
        append_unlocked(path, "".join(chunks))
        seq[compact + ":size"] = _size(path)
        try:
            atomic_write_text(seq_path, json.dumps(seq), mode=paths.PRIVATE_FILE_MODE)
        except OSError:
            pass


def file_for_id(root: Path, sig_id: str) -> Path | None:
    """The file holding ``sig_id``: its day's file first, then every file."""
    parts = sig_id.split("-")
    if len(parts) in (3, 4) and len(parts[1]) == 8:
        guess = day_file(root, f"{parts[1][:4]}-{parts[1][4:6]}-{parts[1][6:]}")
        if any(e.id == sig_id for e in entries.read_entries(guess, LEVEL)):
            return guess
    for path in signal_files(root):
        if any(e.id == sig_id for e in entries.read_entries(path, LEVEL)):
            return path
    return None


def get(root: Path, sig_id: str) -> Signal:
    sig_id = sig_id.strip().upper()
    path = file_for_id(root, sig_id)
    if path is None:
        raise NotFoundError(f"no signal {sig_id}", hint="see `memdown reflect list --all`")
    return next(s for s in read_file(path) if s.id == sig_id)


def update(root: Path, changes: dict[str, dict[str, object]], *, only_if_status: tuple[str, ...] | None = None,
           signals: list[Signal] | None = None) -> list[str]:
    """Apply ``{id: {field: value}}`` under each file's lock; returns the ids changed.

    ``only_if_status`` re-checks the status on disk inside the lock, so a
    concurrent hand edit or decision is never overwritten by a stale plan.
    """
    by_file: dict[Path, dict[str, dict[str, object]]] = {}
    known = {s.id: s.path for s in (signals or []) if s.path}
    for sig_id, change in changes.items():
        path = known.get(sig_id) or file_for_id(root, sig_id)
        if path is None:
            continue
        by_file.setdefault(path, {})[sig_id] = change
    done: list[str] = []
    for path, file_changes in by_file.items():
        def apply(text: str, file_changes=file_changes) -> tuple[str, list[str]]:
            current = {e.id: e for e in entries.parse(text, LEVEL)[0]}
            changed: list[str] = []
            for sig_id, change in file_changes.items():
                entry = current.get(sig_id)
                if entry is None:
                    continue
                if only_if_status and (entry.fields.get("status") or "captured").lower() not in only_if_status:
                    continue
                text = entries.set_fields(text, sig_id, LEVEL, change)
                changed.append(sig_id)
            return text, changed

        done.extend(entries.edit_file(path, apply))
    return done


def validate_status(status: str) -> str:
    status = status.strip().lower()
    if status not in STATUSES:
        raise UsageError(f"unknown status {status!r}", hint="one of " + ", ".join(STATUSES))
    return status
