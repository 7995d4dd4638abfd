"""The no-follow core of the file layer: walk to a file from its root, open it only if it is a plain file.

Every path is split at its *anchor*, the folder whose own location a person chose:

- ``root=`` when the caller names it (a project for its ``CLAUDE.md`` and ``.claude/rules``);
- ``MEMDOWN_HOME`` for anything under it;
- ``<project>`` for anything under ``<project>/.memdown`` (so ``.memdown`` itself must be a real folder);
- a memory root named with ``--dir`` or ``MEMDOWN_DIR`` (``paths.NAMED_ROOTS``);
- else the file's own folder (an explicit target such as ``~/.claude/CLAUDE.md``: only its last part is checked).

From the anchor, each folder is opened with ``O_NOFOLLOW | O_DIRECTORY`` relative to the one before
(``dir_fd``), and the file itself with ``O_NOFOLLOW | O_NONBLOCK`` then ``fstat``-ed: a symlink anywhere
below the anchor, a FIFO, socket, device or folder, or a file with a second hard link raises
``RefusedFileError`` (an ``OSError`` too, so ``except OSError`` callers skip it). Nothing is created above
the anchor except the anchor itself when it is missing (``MEMDOWN_HOME`` on first use).

Standard library only (used on every hook path).
"""
from __future__ import annotations

import errno
import os
import stat
import sys

from .. import pathstr
from ..envflags import memdown_home_dir

from ..errors import SpecialFileError

TYPE_CHECKING = False  # not typing, pathlib or collections.abc at run time: every hook imports the file layer
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import BinaryIO

DEFAULT_READ_LIMIT = 64 << 20  # bytes; memory files are small, the cap only stops a runaway read
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO opens at once instead of blocking


class RefusedFileError(SpecialFileError, OSError):
    """A path the file layer will not read or write through; ``str()`` is one line naming it."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        super().__init__(f"refused {_printable(self.path)}: {reason}")


def _printable(path: str) -> str:
    """The path on one line: undecodable bytes and control characters escaped."""
    text = os.fsencode(path).decode("utf-8", "backslashreplace") if _has_surrogates(path) else path
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


# --- notices: a refused file is named once per process -----------------------------------------

_noticed: set[str] = set()
_sink: list[Callable[[str], None]] = []


def set_notice_sink(sink: Callable[[str], None] | None) -> None:
    """Where refusal notices go (default: one line on stderr). Hooks send them to their log."""
    _sink.clear()
    if sink is not None:
        _sink.append(sink)


def notice(exc: BaseException) -> None:
    """Tell once, in one line, that a file was skipped (``RefusedFileError`` or any ``OSError``)."""
    key = getattr(exc, "path", None) or getattr(exc, "filename", None) or str(exc)
    key = os.fspath(key) if isinstance(key, (str, os.PathLike)) else str(key)
    if key in _noticed:
        return
    _noticed.add(key)
    line = f"memdown: skipped: {' '.join(str(exc).split())}"
    try:
        if _sink:
            _sink[0](line)
        else:
            print(line, file=sys.stderr)
    except Exception:  # a notice never breaks the work it reports on
        pass


# --- walking from the anchor -----------------------------------------------------------------------

def anchor_of(path: str, root: str | os.PathLike[str] | None = None) -> str:
    """The folder whose location a person chose, for the absolute, normalised ``path`` (see module doc)."""
    if root is not None:
        return os.path.abspath(os.fspath(root))
    home = os.path.abspath(memdown_home_dir())
    if path.startswith(home.rstrip(os.sep) + os.sep):
        return home
    parts = path.split(os.sep)
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == pathstr.MEMORY_DIR_NAME:
            return os.sep.join(parts[:i]) or os.sep
    for named in sorted(pathstr.NAMED_ROOTS, key=len, reverse=True):
        if path == named or path.startswith(named.rstrip(os.sep) + os.sep):
            return named
    return os.path.dirname(path)


def _why(dir_fd: int, name: str, fallback: str) -> str:
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return fallback
    return kind_of(st.st_mode) or fallback


def kind_of(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    for test, words in ((stat.S_ISLNK, "a symlink"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                        (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return words
    return None if stat.S_ISREG(mode) else "not a regular file"


def _open_anchor(anchor: str, create: bool) -> int:
    try:
        return os.open(anchor, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        if not create:
            raise
        os.makedirs(anchor, mode=0o700, exist_ok=True)  # a person's chosen place (MEMDOWN_HOME, --dir)
        return os.open(anchor, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def open_parent(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None, *,
                create: bool = False, dir_mode: int = 0o777) -> tuple[int, str, str]:
    """``(folder fd, file name, absolute path)`` for ``path``; the caller closes the fd.

    Folders between the anchor and the file are opened without following links; ``create`` makes
    missing ones (``dir_mode``, narrowed by the umask). Raises ``RefusedFileError`` at a symlink or a
    non-folder on the way, ``FileNotFoundError`` at a missing folder when not creating.
    """
    full = os.path.abspath(os.fspath(path))
    anchor = anchor_of(full, root)
    rel = os.path.relpath(full, anchor)
    if rel == os.curdir or rel == os.pardir or rel.startswith(os.pardir + os.sep):
        raise RefusedFileError(full, f"not inside {_printable(anchor)}")
    parts = rel.split(os.sep)
    fd = _open_anchor(anchor, create)
    try:
        for depth, name in enumerate(parts[:-1]):
            fd = _step(fd, name, create, dir_mode, lambda d=depth: os.path.join(anchor, *parts[: d + 1]))
    except BaseException:
        os.close(fd)
        raise
    return fd, parts[-1], full


def _step(fd: int, name: str, create: bool, dir_mode: int, where: Callable[[], str]) -> int:
    """Open sub-folder ``name`` of ``fd`` (closing ``fd``), never through a link."""
    try:
        nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
    except FileNotFoundError:
        if not create:
            raise
        try:
            os.mkdir(name, dir_mode, dir_fd=fd)
        except FileExistsError:
            pass
        try:
            nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
        except OSError as exc:
            raise _refusal(exc, fd, name, where()) from None
    except OSError as exc:
        raise _refusal(exc, fd, name, where()) from None
    os.close(fd)
    return nxt


def _refusal(exc: OSError, dir_fd: int, name: str, where: str) -> OSError:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENXIO, errno.EMLINK):
        return RefusedFileError(where, _why(dir_fd, name, "not a plain file or folder"))
    return exc


def check_plain(fd: int, where: str, *, links_ok: bool = False) -> os.stat_result:
    """``fstat`` of an open fd; closes it and raises ``RefusedFileError`` unless it is a plain file."""
    st = os.fstat(fd)
    why = kind_of(st.st_mode)
    if why is None and st.st_nlink > 1 and not links_ok:
        why = "it has another hard link (a file elsewhere would be read or changed)"
    if why is not None:
        os.close(fd)
        raise RefusedFileError(where, why)
    return st


def open_file(path: str | os.PathLike[str], flags: int = os.O_RDONLY, mode: int = 0o666, *,
              root: str | os.PathLike[str] | None = None, create_dirs: bool = False,
              links_ok: bool = False) -> tuple[int, os.stat_result]:
    """An fd on the plain file at ``path`` opened with ``flags`` (never through a link), and its stat."""
    dir_fd, name, full = open_parent(path, root, create=create_dirs)
    try:
        try:
            fd = os.open(name, flags | _FILE_FLAGS, mode, dir_fd=dir_fd)
        except OSError as exc:
            raise _refusal(exc, dir_fd, name, full) from None
    finally:
        os.close(dir_fd)
    return fd, check_plain(fd, full, links_ok=links_ok)


def check_folders(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> None:
    """Raise ``RefusedFileError`` when a folder between ``root`` and ``path`` is a link or not a folder
    (a missing one is fine): for callers whose later opens are anchored at the file's own folder."""
    try:
        dir_fd, _name, _full = open_parent(path, root)
    except (FileNotFoundError, NotADirectoryError):
        return
    os.close(dir_fd)


def read_bytes(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None,
               limit: int = DEFAULT_READ_LIMIT) -> bytes:
    """The bytes of a plain file, at most ``limit`` of them (a larger file is refused, not cut)."""
    fd, st = open_file(path, os.O_RDONLY, root=root)
    try:
        if st.st_size > limit:
            raise RefusedFileError(os.fspath(path), f"{st.st_size / 1e6:.1f} MB is over the "
                                                    f"{limit / 1e6:.1f} MB limit")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while we read
                raise RefusedFileError(os.fspath(path), f"grew past the {limit / 1e6:.1f} MB limit")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None,
              limit: int = DEFAULT_READ_LIMIT, errors: str = "strict") -> str:
    return read_bytes(path, root=root, limit=limit).decode("utf-8", errors)


def open_stream(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None) -> BinaryIO:
    """A binary file object on a plain file, for streaming reads with no size cap (transcripts, archives).

    Used as ``with open_stream(path) as handle:`` (a file object closes itself on leaving the block).
    """
    fd, _st = open_file(path, os.O_RDONLY, root=root, links_ok=True)
    return os.fdopen(fd, "rb")


def lstat(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None) -> os.stat_result | None:
    """The file's own stat (a link is not followed); None when it or a folder on the way is missing."""
    try:
        dir_fd, name, _full = open_parent(path, root)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None
    finally:
        os.close(dir_fd)


def is_plain_file(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None) -> bool:
    try:
        st = lstat(path, root=root)
    except RefusedFileError:
        return False
    return st is not None and stat.S_ISREG(st.st_mode)


def make_dirs(folder: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None,
              mode: int = 0o777, exact: bool = False) -> None:
    """``mkdir -p`` inside the root, never through a link (a missing anchor is created, 0700).

    ``exact``: the last folder gets exactly ``mode`` (mkdir's mode is narrowed by the umask), through its fd.
    """
    dir_fd, _name, _full = open_parent(os.path.join(os.fspath(folder), "x"), root, create=True, dir_mode=mode)
    try:
        if exact and stat.S_IMODE(os.fstat(dir_fd).st_mode) != mode:
            os.chmod(dir_fd, mode)
    finally:
        os.close(dir_fd)


def list_files(folder: str | os.PathLike[str], *, suffix: str = "", root: str | os.PathLike[str] | None = None,
               hidden: bool = False) -> list[Path]:
    """The plain files of ``folder`` ending in ``suffix``, sorted; links, FIFOs, sockets, devices and
    names that are not UTF-8 are left out with a notice. A missing or refused folder lists nothing."""
    try:
        dir_fd, name, full = open_parent(os.path.join(os.fspath(folder), "x"), root)
    except RefusedFileError as exc:
        notice(exc)
        return []
    except OSError:
        return []
    try:
        with os.scandir(dir_fd) as scan:
            entries = [(e.name, e.is_symlink(), e.is_file(follow_symlinks=False), e.is_dir(follow_symlinks=False))
                       for e in scan]
    except OSError:
        return []
    finally:
        os.close(dir_fd)
    from pathlib import Path  # the listing's callers work with Path (no hook lists a folder)

    base = os.path.dirname(full)
    found = []
    for entry, is_link, is_file, is_dir in sorted(entries):
        if not entry.endswith(suffix) or (entry.startswith(".") and not hidden) or (is_dir and not is_link):
            continue
        where = os.path.join(base, entry)
        if _has_surrogates(entry):
            notice(RefusedFileError(where, "its name is not UTF-8"))
        elif not is_file:
            notice(RefusedFileError(where, "a symlink" if is_link else "not a regular file"))
        else:
            found.append(Path(where))
    return found


def unlink(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None,
           missing_ok: bool = True) -> None:
    """Remove a file's own entry (a link is removed, never its target)."""
    try:
        dir_fd, name, _full = open_parent(path, root)
    except FileNotFoundError:
        if missing_ok:
            return
        raise
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        if not missing_ok:
            raise
    finally:
        os.close(dir_fd)
