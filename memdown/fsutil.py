"""Durable file writes: atomic replace, locked appends, advisory locks.

Standard library only (used on every hook path).
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from typing import NamedTuple, TypeVar
from pathlib import Path

from .errors import EditConflictError, LockTimeoutError


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def clean_text(text: str) -> str:
    """``text`` with lone UTF-16 surrogates replaced by U+FFFD (valid pairs are joined).

    JSON may escape half an emoji (``"\\ud83d"``) and ``surrogateescape``
    decoding leaves ``\\udcXX``; neither can be written as UTF-8, so they are
    repaired once, here, instead of failing a write.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def clean_json(value: object) -> object:
    """``value`` (parsed JSON) with every string passed through ``clean_text``."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(k): clean_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_json(v) for v in value]
    return value


def encode_text(text: str) -> bytes:
    """UTF-8 bytes of ``text``; lone surrogates become U+FFFD instead of raising."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return clean_text(text).encode("utf-8")


def _temp_name(path: Path) -> Path:
    # Not tempfile.mkstemp: importing tempfile costs every hook ~5 ms.
    return path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None,
                       unchanged: Callable[[], bool] | None = None, durable: bool = True) -> bool:
    """Write ``data`` to ``path`` so readers see the old file or the new one.

    Temp file in the same folder, fsync, rename, fsync the folder. The file gets ``mode`` when
    given (0600 for anything that may hold secrets: jobs, archives, state); else a replaced file
    keeps its mode, and a new one gets what the process umask allows (0666 minus the umask, as
    ``open()`` would; memdown's own processes run with a private umask, ``paths.private_umask``).
    ``unchanged`` (compare-and-swap, see ``edit_text``) is asked right before the rename; False
    leaves ``path`` alone and returns False. ``durable=False`` skips the fsyncs (a hint whose loss
    in a crash only costs a recheck).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            pass  # a new file: created below with 0666, which the kernel narrows by the umask
    tmp = _temp_name(path)
    # Never wider than the final mode while the data is written: 0600 until the chmod when one is due.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        if unchanged is not None and not unchanged():
            os.unlink(tmp)
            return False
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)
    return True


def atomic_write_text(path: Path, text: str, *, mode: int | None = None, durable: bool = True) -> None:
    atomic_write_bytes(path, encode_text(text), mode=mode, durable=durable)


def _make_private(fd: int) -> None:
    """Lock files made by older versions were 0644; others must not open them to block us."""
    try:
        st = os.fstat(fd)
        if st.st_mode & 0o077 and st.st_uid == os.getuid():
            os.fchmod(fd, st.st_mode & 0o700)
    except OSError:
        pass


def try_lock(lock_path: Path, *, create: bool = True) -> int | None:
    """Take an exclusive lock on ``lock_path`` without waiting: its descriptor, or None when held.

    Closing the descriptor releases the lock (also when the process dies).
    With ``create=False`` a missing file raises ``FileNotFoundError``.
    """
    if create:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        _make_private(fd)
    else:
        fd = os.open(lock_path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            return None
        raise
    return fd


@contextlib.contextmanager
def file_lock(lock_path: Path, *, timeout: float = 10.0, shared: bool = False) -> Iterator[None]:
    """Hold an fcntl lock on ``lock_path`` (created if needed).

    Raises ``LockTimeoutError`` after ``timeout`` seconds; ``timeout=0`` tries once.
    """
    lock_path = Path(lock_path)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    _make_private(fd)
    kind = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    deadline = time.monotonic() + timeout
    try:
        delay = 0.005
        while True:
            try:
                fcntl.flock(fd, kind | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
                if time.monotonic() >= deadline:
                    raise LockTimeoutError(f"timed out waiting for lock {lock_path}") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def locked_append(path: Path, text: str, *, timeout: float = 10.0) -> None:
    """Append ``text`` to ``path`` under an exclusive lock, fsynced.

    The lock sits on a sibling ``.<name>.lock`` file so an atomic rewrite of
    ``path`` (which replaces the inode) and appends serialise on one lock.
    """
    path = Path(path)
    with file_lock(path.with_name(f".{path.name}.lock"), timeout=timeout):
        append_unlocked(path, text)


def append_unlocked(path: Path, text: str) -> None:
    """Append and fsync; the caller holds the file's lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _settled(path)  # never append into an editor's truncate-then-write
    with open(path, "ab") as handle:
        handle.write(encode_text(text))
        handle.flush()
        os.fsync(handle.fileno())


def append_line(path: Path, line: str, *, rotate_at: int = 1_000_000) -> None:
    """Append one line to a private (0600) log file, rotated past ``rotate_at`` bytes (``.1`` … ``.3``).

    ``O_APPEND`` writes of one line are atomic enough for logs; no lock, no fsync. Only a file
    over its size takes the slow path: ``logfiles`` rotates it under a lock shared by every writer.
    """
    try:
        if os.stat(path).st_size >= rotate_at:
            from .logfiles import append_rotating

            append_rotating(Path(path), line, max_bytes=rotate_at)
            return
    except FileNotFoundError:
        pass
    except Exception:  # rotation failed (a lock error, a rename refused): the line still goes in
        pass
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, encode_text(line))
    finally:
        os.close(fd)


def file_lock_for(path: Path) -> Path:
    """The lock file guarding edits of ``path`` (see ``locked_append``)."""
    path = Path(path)
    return path.with_name(f".{path.name}.lock")


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
R = TypeVar("R")


class Seen(NamedTuple):
    """What one read saw: the bytes and the file's identity (``ino`` 0: there was no file)."""

    data: bytes
    size: int
    mtime_ns: int
    ino: int


def _look(path: Path) -> Seen:
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            data = handle.read()
    except FileNotFoundError:
        return Seen(b"", 0, 0, 0)
    return Seen(data, st.st_size, st.st_mtime_ns, st.st_ino)


def _settled(path: Path, left: list[int] | None = None) -> Seen:
    """Read ``path``; a file that is empty or was written a moment ago may be a save in progress
    (truncate, then write in pieces), and one the caller ``left`` ([size, mtime_ns, inode] after its
    own last write) but is missing may be mid-replace (git unlinks, then creates): wait for it to
    settle, at most ``SETTLE_SECONDS``. A file exactly as the caller left it is complete: no wait."""
    seen = _look(path)
    deadline = time.monotonic() + SETTLE_SECONDS
    while (not seen.size or time.time_ns() - seen.mtime_ns < QUIET_NS) and (seen.ino or left) \
            and [seen.size, seen.mtime_ns, seen.ino] != left and time.monotonic() < deadline:
        time.sleep(0.01)
        seen = _look(path)
    return seen


def _same(stat_result: os.stat_result, seen: Seen) -> bool:
    return (stat_result.st_size, stat_result.st_mtime_ns, stat_result.st_ino) == (seen.size, seen.mtime_ns, seen.ino)


def still(path: Path, seen: Seen) -> bool:
    """Is ``path`` the file ``seen`` read (same identity and the same bytes)?"""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return not seen.ino
    return bool(seen.ino) and _same(st, seen) and _look(path).data == seen.data


class Append(str):
    """What a ``change`` returns to add this text at the end of the file (no copy of the whole file)."""


def _identity(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _append_if_same(path: Path, seen: Seen, tail: bytes, wrote: list[int]) -> bool:
    fd = os.open(path, os.O_RDWR | os.O_APPEND)
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
            with contextlib.suppress(OSError):
                os.ftruncate(fd, seen.size)
            raise
        wrote[:] = _identity(os.fstat(fd))
        return True
    finally:
        os.close(fd)


def _write_once(path: Path, seen: Seen, text: str, new_text: str, in_place: bool, wrote: list[int]) -> bool:
    """One compare-and-swap write of ``new_text`` (an ``Append`` adds to ``text``); False: the file changed."""
    if isinstance(new_text, Append):
        tail = encode_text(new_text)
        if in_place and seen.ino:
            return _append_if_same(path, seen, tail, wrote)
        data = (seen.data if seen.ino else encode_text(text)) + tail
    else:
        data = encode_text(new_text)
        if in_place and seen.ino and len(data) > seen.size and data.startswith(seen.data):
            return _append_if_same(path, seen, data[seen.size:], wrote)
    if not atomic_write_bytes(path, data, unchanged=lambda: still(path, seen)):
        return False
    wrote[:] = _identity(os.stat(path))
    return True


def edit_locked(path: Path, change: Callable[[str], tuple[str, R]], *, initial: str = "",
                in_place: bool = True, wrote: list[int] | None = None, left: list[int] | None = None) -> R:
    """``change(text) -> (new_text, result)`` applied with compare-and-swap; the caller holds the lock.

    ``text`` is the file's content (``initial`` when there is no file); ``new_text`` is the whole new
    content, or an ``Append`` of what to add at the end. It is written only if the file is unchanged
    since it was read; else it is read again and ``change`` runs again. Raises ``EditConflictError``
    when the file never holds still (``EDIT_ATTEMPTS`` tries). ``in_place=False`` replaces the file
    even for an append (all-or-nothing even when the writer is killed mid-write; for a file the model
    loads, such as a CLAUDE.md). ``wrote`` receives [size, mtime_ns, inode] of the file as written.
    ``left``: [size, mtime_ns, inode] of the file after the caller's last write, if it knows (see
    ``_settled``).
    """
    path = Path(path)
    wrote = [] if wrote is None else wrote
    for attempt in range(EDIT_ATTEMPTS):
        seen = _settled(path, left)
        text = seen.data.decode("utf-8") if seen.ino else initial
        new_text, result = change(text)
        if new_text == text or (isinstance(new_text, Append) and not new_text):
            return result
        if _write_once(path, seen, text, new_text, in_place, wrote):
            return result
        time.sleep(min(0.005 * (attempt + 1), 0.1))
    raise EditConflictError(f"{path.name} kept changing while memdown wrote it; the write is retried later")


def edit_text(path: Path, change: Callable[[str], tuple[str, R]], *, timeout: float = 10.0,
              initial: str = "") -> R:
    """``edit_locked`` under the file's lock (``file_lock_for(path)``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(file_lock_for(path), timeout=timeout):
        return edit_locked(path, change, initial=initial)
