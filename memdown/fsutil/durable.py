"""Durable writes through the no-follow walk: atomic replace, appends, locks, log lines.

Each write opens the file's folder with ``safe.open_parent`` (no link anywhere below the root) and
works relative to that folder's fd, so a link swapped in between the check and the write changes
nothing. Standard library only (used on every hook path).
"""
from __future__ import annotations

import errno
import fcntl
import os
import stat
import time

from ..errors import LockTimeoutError
from .safe import RefusedFileError, check_plain, kind_of, open_file, open_parent
from .text import encode_text

TYPE_CHECKING = False  # not pathlib or collections.abc at run time: every hook imports the file layer
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def _temp_name(name: str) -> str:
    # Not tempfile.mkstemp: importing tempfile costs every hook ~5 ms.
    return f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None, root: str | os.PathLike[str] | None = None,
                       durable: bool = True, unchanged: Callable[[], bool] | None = None) -> bool:
    """Write ``data`` to ``path`` so readers see the old file or the new one.

    Temp file in the same folder, fsync, rename, fsync the folder, all relative to the folder's fd.
    The file gets ``mode`` when given (0600 for anything that may hold secrets: jobs, archives, state);
    else a replaced file keeps its mode, and a new one gets what the process umask allows. A link, FIFO
    or folder where the file belongs is refused (``RefusedFileError``), never replaced or written through.
    ``durable=False`` skips the fsyncs (a short-lived answer file that must only appear whole).
    ``unchanged`` (compare-and-swap, see ``edit.edit_text``) is asked right before the rename; False
    leaves ``path`` alone and returns False.
    """
    dir_fd, name, full = open_parent(path, root, create=True)
    try:
        try:
            old = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            old = None
        if old is not None and not stat.S_ISREG(old.st_mode):
            raise RefusedFileError(full, kind_of(old.st_mode) or "not a regular file")
        if mode is None and old is not None:
            mode = stat.S_IMODE(old.st_mode)
        tmp = _temp_name(name)
        # Never wider than the final mode while the data is written: 0600 until the chmod when one is due.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o666 if mode is None else 0o600, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if durable:
                    os.fsync(handle.fileno())
                if mode is not None:
                    os.chmod(handle.fileno(), mode)
            if unchanged is not None and not unchanged():
                os.unlink(tmp, dir_fd=dir_fd)
                return False
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            raise
        if durable:
            try:
                os.fsync(dir_fd)
            except OSError:
                pass
    finally:
        os.close(dir_fd)
    return True


def atomic_write_text(path: Path, text: str, *, mode: int | None = None, root: str | os.PathLike[str] | None = None,
                      durable: bool = True) -> None:
    atomic_write_bytes(path, encode_text(text), mode=mode, root=root, durable=durable)


def _open_lock(lock_path: Path, root: str | os.PathLike[str] | None, create: bool = True) -> int:
    flags = os.O_RDWR | os.O_CREAT if create else os.O_RDONLY
    fd, st = open_file(lock_path, flags, 0o600, root=root, create_dirs=create)
    if create and st.st_mode & 0o077 and st.st_uid == os.getuid():
        # Lock files made by older versions were 0644; others must not open them to block us.
        # (check_plain refused a second hard link, so this changes only our own lock file.)
        try:
            os.chmod(fd, st.st_mode & 0o700)
        except OSError:
            pass
    return fd


def try_lock(lock_path: Path, *, create: bool = True, root: str | os.PathLike[str] | None = None) -> int | None:
    """Take an exclusive lock on ``lock_path`` without waiting: its descriptor, or None when held.

    Closing the descriptor releases the lock (also when the process dies).
    With ``create=False`` a missing file raises ``FileNotFoundError``.
    """
    fd = _open_lock(lock_path, root, create)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            return None
        raise
    return fd


def file_lock(lock_path: Path, *, timeout: float = 10.0, shared: bool = False,
              root: str | os.PathLike[str] | None = None) -> _Lock:
    """``with file_lock(path):`` holds an fcntl lock on ``lock_path`` (created if needed, never through a link).

    Raises ``LockTimeoutError`` after ``timeout`` seconds; ``timeout=0`` tries once.
    """
    return _Lock(lock_path, timeout, shared, root)


class _Lock:
    """The context manager of ``file_lock`` (a class, not ``contextlib``: hooks import the file layer)."""

    __slots__ = ("path", "timeout", "shared", "root", "fd")

    def __init__(self, path: Path, timeout: float, shared: bool, root: str | os.PathLike[str] | None) -> None:
        self.path, self.timeout, self.shared, self.root = path, timeout, shared, root
        self.fd = -1

    def __enter__(self) -> None:
        fd = _open_lock(self.path, self.root)
        kind = fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX
        deadline = time.monotonic() + self.timeout
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
                        raise LockTimeoutError(f"timed out waiting for lock {self.path}") from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.1)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd

    def __exit__(self, *exc: object) -> None:
        fd, self.fd = self.fd, -1
        os.close(fd)  # closing the descriptor releases the lock


def file_lock_for(path: Path) -> Path:
    """The lock file guarding edits of ``path`` (see ``locked_append``)."""
    from pathlib import Path

    path = Path(path)
    return path.with_name(f".{path.name}.lock")


def append_bytes(path: Path, data: bytes, *, fsync: bool = True, mode: int = 0o666, root: str | os.PathLike[str] | None = None) -> int:
    """Append ``data`` to the plain file ``path`` (created with ``mode`` and missing folders); its new size."""
    fd, _st = open_file(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode, root=root, create_dirs=True)
    try:
        _write_all(fd, data)
        if fsync:
            os.fsync(fd)
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def append_line(path: Path, line: str, *, rotate_at: int = 1_000_000, root: str | os.PathLike[str] | None = None) -> None:
    """Append one line to a private (0600) log file, rotated past ``rotate_at`` bytes (``.1`` … ``.3``).

    ``O_APPEND`` writes of one line are atomic enough for logs; no lock, no fsync. Only a file
    over its size takes the slow path: ``logfiles`` rotates it under a lock shared by every writer.
    """
    from .safe import lstat

    try:
        st = lstat(path, root=root)
        if st is not None and stat.S_ISREG(st.st_mode) and st.st_size >= rotate_at:
            from pathlib import Path

            from ..logfiles import append_rotating

            append_rotating(Path(path), line, max_bytes=rotate_at)
            return
    except RefusedFileError:
        raise
    except Exception:  # rotation failed (a lock error, a rename refused): the line still goes in
        pass
    append_bytes(path, encode_text(line), fsync=False, mode=0o600, root=root)


__all__ = ["atomic_write_bytes", "atomic_write_text", "try_lock", "file_lock", "file_lock_for", "append_bytes",
           "append_line", "check_plain"]
