"""Read-modify-write of files people edit too: compare-and-swap under the lock, through the file layer.

(Written by ``update`` in the single ``fsutil.py``; moved here when fsutil became a package, with every
open going through ``safe.open_file`` so the compare-and-swap never follows a link either.)
"""
from __future__ import annotations

import os
import time
from collections import namedtuple
from collections.abc import Callable
from pathlib import Path

from ..errors import EditConflictError
from .durable import append_bytes, atomic_write_bytes, file_lock, file_lock_for
from .safe import lstat, make_dirs, open_file
from .text import encode_text

Root = str | os.PathLike[str] | None  # the folder every open walks from

# --- read-modify-write of files people edit too: compare-and-swap under the lock --------------------
#
# The lock only binds memdown's writers. A person's editor or git may save the file at any moment:
# in place (truncate, then write) or by renaming a new file over it. So a change is written only if
# the file is still the one that was read (size, mtime, inode and its bytes), checked right
# before the write, and recomputed from a fresh read otherwise. A change that only adds at the end is
# appended in place (O_APPEND), so it never replaces anything a person saved.

EDIT_ATTEMPTS = 40
SETTLE_SECONDS = 1.0  # how long an empty file may be an editor's save in progress
TAIL_CHECK_BYTES = 65536  # an append compares the file's identity and its last 64 KB with what was read
QUIET_NS = 20_000_000  # a file written in the last 20 ms may be mid-save: wait until it is this quiet
TYPE_CHECKING = False  # not `import typing` at run time: every hook imports this module
if TYPE_CHECKING:
    from typing import TypeVar

    R = TypeVar("R")


class Seen(namedtuple("Seen", "data size mtime_ns ino")):
    """What one read saw: the bytes (``data``) and the file's identity: ``size``, ``mtime_ns``, ``ino``
    (0: there was no file). A plain named tuple: ``typing.NamedTuple`` cost every hook ~3 ms."""

    __slots__ = ()


def _look(path: Path, root: Root = None) -> Seen:
    try:
        fd, st = open_file(path, os.O_RDONLY, root=root)
    except FileNotFoundError:
        return Seen(b"", 0, 0, 0)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read()
    return Seen(data, st.st_size, st.st_mtime_ns, st.st_ino)


def _settled(path: Path, left: list[int] | None = None, root: Root = None) -> Seen:
    """Read ``path``; a file that is empty or was written a moment ago may be a save in progress
    (truncate, then write in pieces), and one the caller ``left`` ([size, mtime_ns, inode] after its
    own last write) but is missing may be mid-replace (git unlinks, then creates): wait for it to
    settle, at most ``SETTLE_SECONDS``. A file exactly as the caller left it is complete: no wait."""
    seen = _look(path, root)
    deadline = time.monotonic() + SETTLE_SECONDS
    while (not seen.size or time.time_ns() - seen.mtime_ns < QUIET_NS) and (seen.ino or left) \
            and [seen.size, seen.mtime_ns, seen.ino] != left and time.monotonic() < deadline:
        time.sleep(0.01)
        seen = _look(path, root)
    return seen


def _same(stat_result: os.stat_result, seen: Seen) -> bool:
    return (stat_result.st_size, stat_result.st_mtime_ns, stat_result.st_ino) == (seen.size, seen.mtime_ns, seen.ino)


def still(path: Path, seen: Seen, root: Root = None) -> bool:
    """Is ``path`` the file ``seen`` read (same identity and the same bytes)?"""
    st = lstat(path, root=root)
    if st is None:
        return not seen.ino
    return bool(seen.ino) and _same(st, seen) and _look(path, root).data == seen.data


class Append(str):
    """What a ``change`` returns to add this text at the end of the file (no copy of the whole file)."""


def _identity(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _append_if_same(path: Path, seen: Seen, tail: bytes, wrote: list[int], root: Root = None) -> bool:
    fd, _st = open_file(path, os.O_RDWR | os.O_APPEND, root=root)
    try:
        # Identity, then the last bytes: a file that was quiet when read (``_settled``) cannot change
        # without a new mtime, so comparing the whole day per append would only repeat that check.
        tail_at = max(0, seen.size - TAIL_CHECK_BYTES)
        if not _same(os.fstat(fd), seen) or os.pread(fd, seen.size - tail_at + 1, tail_at) != seen.data[tail_at:]:
            return False
        view = memoryview(tail)
        try:
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except BaseException:  # a full disk mid-entry: the file goes back to what was read, no torn tail
            try:
                os.ftruncate(fd, seen.size)
            except OSError:
                pass
            raise
        wrote[:] = _identity(os.fstat(fd))
        return True
    finally:
        os.close(fd)


def _write_once(path: Path, seen: Seen, text: str, new_text: str, in_place: bool, wrote: list[int],
                root: Root = None) -> bool:
    """One compare-and-swap write of ``new_text`` (an ``Append`` adds to ``text``); False: the file changed."""
    if isinstance(new_text, Append):
        tail = encode_text(new_text)
        if in_place and seen.ino:
            return _append_if_same(path, seen, tail, wrote, root)
        data = (seen.data if seen.ino else encode_text(text)) + tail
    else:
        data = encode_text(new_text)
        if in_place and seen.ino and len(data) > seen.size and data.startswith(seen.data):
            return _append_if_same(path, seen, data[seen.size:], wrote, root)
    if not atomic_write_bytes(path, data, root=root, unchanged=lambda: still(path, seen, root)):
        return False
    wrote[:] = _identity(lstat(path, root=root))
    return True


def edit_locked(path: Path, change: Callable[[str], tuple[str, R]], *, initial: str = "",
                in_place: bool = True, wrote: list[int] | None = None, left: list[int] | None = None,
                root: Root = None) -> R:
    """``change(text) -> (new_text, result)`` applied with compare-and-swap; the caller holds the lock.

    ``text`` is the file's content (``initial`` when there is no file); ``new_text`` is the whole new
    content, or an ``Append`` of what to add at the end. It is written only if the file is unchanged
    since it was read; else it is read again and ``change`` runs again. Raises ``EditConflictError``
    when the file never holds still (``EDIT_ATTEMPTS`` tries). ``in_place=False`` replaces the file
    even for an append (all-or-nothing even when the writer is killed mid-write; for a file the model
    loads, such as a CLAUDE.md). ``wrote`` receives [size, mtime_ns, inode] of the file as written.
    ``left``: [size, mtime_ns, inode] of the file after the caller's last write, if it knows (see
    ``_settled``).
    ``root``: the folder every open walks from, link-free (see ``safe.open_parent``); by default the
    file's anchor (``safe.anchor_of``).
    """
    path = Path(path)
    wrote = [] if wrote is None else wrote
    for attempt in range(EDIT_ATTEMPTS):
        seen = _settled(path, left, root)
        text = seen.data.decode("utf-8") if seen.ino else initial
        new_text, result = change(text)
        if new_text == text or (isinstance(new_text, Append) and not new_text):
            return result
        if _write_once(path, seen, text, new_text, in_place, wrote, root):
            return result
        time.sleep(min(0.005 * (attempt + 1), 0.1))
    raise EditConflictError(f"{path.name} kept changing while memdown wrote it; the write is retried later")


def edit_text(path: Path, change: Callable[[str], tuple[str, R]], *, timeout: float = 10.0,
              initial: str = "") -> R:
    """``edit_locked`` under the file's lock (``file_lock_for(path)``)."""
    path = Path(path)
    make_dirs(path.parent)
    with file_lock(file_lock_for(path), timeout=timeout):
        return edit_locked(path, change, initial=initial)


def locked_append(path: Path, text: str, *, timeout: float = 10.0, root: str | os.PathLike[str] | None = None) -> None:
    """Append ``text`` to ``path`` under an exclusive lock, fsynced.

    The lock sits on a sibling ``.<name>.lock`` file so an atomic rewrite of
    ``path`` (which replaces the inode) and appends serialise on one lock.
    """
    with file_lock(file_lock_for(path), timeout=timeout, root=root):
        append_unlocked(path, text, root=root)


def append_unlocked(path: Path, text: str, *, root: str | os.PathLike[str] | None = None) -> None:
    """Append and fsync; the caller holds the file's lock."""
    make_dirs(Path(path).parent, root=root)
    _settled(path)  # never append into an editor's truncate-then-write
    append_bytes(path, encode_text(text), root=root)
