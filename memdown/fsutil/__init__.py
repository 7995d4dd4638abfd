"""The file layer: the one way memdown reads and writes files under a memory root or ``MEMDOWN_HOME``.

Guarantees (tests/attack/test_file_layer.py, tests/attack/test_bad_files.py, tests/test_file_access.py):

- never follows a symlink, neither the file itself nor any folder between its root and the file
  (walked with ``O_NOFOLLOW | O_DIRECTORY`` fds, then ``openat``-style via ``dir_fd``);
- never opens a FIFO, socket or device (``O_NONBLOCK`` then ``fstat``: a FIFO cannot hang a read);
- never reads or writes a file that has a second hard link (it could be any file of the person's);
- creates and chmods nothing outside the root (only its missing folders, the file, its temp and lock);
- reads with a size bound; writes are atomic (temp in the same folder, fsync, rename) or fsynced appends.

A path it will not use raises ``RefusedFileError`` (also an ``OSError`` and a ``SpecialFileError``, exit
code 7), whose ``str()`` is one line: ``refused <path>: a symlink``. Code that goes on with other files
calls ``notice(exc)``: the path is named once per process, on stderr (CLI) or the hook log
(``set_notice_sink``). Missing files still raise ``FileNotFoundError`` as before.

The root of a path (``root=`` to name it; see ``safe`` for the automatic choice): ``MEMDOWN_HOME``,
``<project>`` for ``<project>/.memdown/…``, a root named with ``--dir``/``MEMDOWN_DIR``, else the file's
own folder. Pass ``root=project`` for project files (``CLAUDE.md``, ``.claude/rules/…``).

API (names are stable; every function takes ``root=`` too):

  read_bytes(path, limit=…) / read_text(path, limit=…, errors=…)   whole plain file, size-capped
  open_stream(path)                          context manager: binary file object, no size cap
  open_file(path, flags, mode)               (fd, stat) of a plain file, for compare-and-swap work
  lstat(path) / is_plain_file(path)          the entry itself (None when missing)
  list_files(folder, suffix=".md")           plain files only; links, FIFOs, bad names noticed, skipped
  make_dirs(folder) / unlink(path) / check_folders(path, root)   (no link between root and path)
  atomic_write_bytes(path, data, mode=None) / atomic_write_text(path, text, mode=None)
  append_bytes(path, data, fsync=True) -> new size / append_unlocked(path, text)
  locked_append(path, text) / file_lock(lock_path, timeout, shared) / try_lock(lock_path) / file_lock_for(path)
  append_line(log_path, line, rotate_at)     private 0600 log line, rotated
  edit_text(path, change) / edit_locked(path, change, in_place=, wrote=, existed=)   compare-and-swap
                                             read-modify-write (``edit``); a change may return Append(tail)
  clean_text / clean_json / encode_text      text that can always be written as UTF-8
"""
from __future__ import annotations

import os  # noqa: F401  (tests patch ``fsutil.os``)

from .durable import (append_bytes, append_line, atomic_write_bytes, atomic_write_text, file_lock, file_lock_for,
                      try_lock)
from .safe import (DEFAULT_READ_LIMIT, RefusedFileError, anchor_of, check_folders, is_plain_file, list_files, lstat, make_dirs,
                   notice, open_file, open_stream, read_bytes, read_text, set_notice_sink, unlink)
from .text import clean_json, clean_text, encode_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # for type checkers; at run time these come from __getattr__ below
    from .edit import (EDIT_ATTEMPTS, QUIET_NS, SETTLE_SECONDS, TAIL_CHECK_BYTES, Append, Seen, append_unlocked,
                       edit_locked, edit_text, locked_append, still)

# The compare-and-swap editor, imported on first use of one of its names: no hook edits a file.
_EDIT_NAMES = frozenset({"EDIT_ATTEMPTS", "QUIET_NS", "SETTLE_SECONDS", "TAIL_CHECK_BYTES", "Append", "Seen",
                         "append_unlocked", "edit_locked", "edit_text", "locked_append", "still"})


def __getattr__(name: str) -> object:
    if name in _EDIT_NAMES:
        from . import edit

        return getattr(edit, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Append", "DEFAULT_READ_LIMIT", "EDIT_ATTEMPTS", "QUIET_NS", "SETTLE_SECONDS", "TAIL_CHECK_BYTES", "RefusedFileError", "Seen", "edit_locked",
    "edit_text", "still", "anchor_of", "append_bytes", "append_line", "append_unlocked",
    "atomic_write_bytes", "atomic_write_text", "check_folders", "clean_json", "clean_text", "encode_text", "file_lock",
    "file_lock_for", "is_plain_file", "list_files", "locked_append", "lstat", "make_dirs", "notice", "open_file",
    "open_stream", "read_bytes", "read_text", "set_notice_sink", "try_lock", "unlink",
]
