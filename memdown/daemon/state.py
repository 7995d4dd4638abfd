"""What the daemon's query side and its index writer share.

One :class:`~memdown.api.Memory` (replaced when the config is reloaded), one
lock, one set of counters. Queries and index writes both take ``lock``, so a
query sees the index before or after a batch of file updates, never in
between. ``meta_sig`` remembers the index's ``meta.json`` as this process
last saw it: when it differs, another process rewrote the index and the
table is re-opened before the next query.
"""
from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paths

if TYPE_CHECKING:
    from ..api import Memory


class SharedIndex:
    """The Memory, its lock and the daemon's counters (the only state both sides touch)."""

    def __init__(self, root: Path, mem: "Memory", log: logging.Logger) -> None:
        self.root = root
        self.mem = mem
        self.log = log
        self.lock = threading.RLock()  # queries vs index writes
        self.meta_sig: tuple | None = None
        self.counters = {"requests": 0, "errors": 0, "bad_requests": 0, "index_passes": 0, "files_indexed": 0,
                         "files_removed": 0}
        self.last_error: str | None = None

    def read_meta_sig(self) -> tuple | None:
        try:
            st = os.stat(paths.index_dir(self.root) / "meta.json")
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def mark_seen(self) -> None:
        """The index as it is now is the one this process has open (call with ``lock`` held)."""
        self.meta_sig = self.read_meta_sig()

    def refresh_reader(self) -> None:
        """Re-open the table if another process rewrote the index since we last looked."""
        if self.read_meta_sig() != self.meta_sig or self.mem.table.rolled_back():
            self.mem.invalidate_index()  # Memory.ensure_index re-opens (and checks the count)

    def log_notices(self, level: int = logging.WARNING, prefix: str = "") -> list[str]:
        """Log and clear the Memory's notices (rebuilds, a damaged cache started afresh); return them."""
        notices = list(self.mem.notices)
        self.mem.notices.clear()
        for note in notices:
            self.log.log(level, "%s%s", prefix, note)
        return notices
