"""Approvals made on this machine: the only licence to write a rule into a CLAUDE.md.

``learnings.md`` is committed, so anyone with push access can write a
``status: pending`` entry aimed at ``~/.claude/CLAUDE.md``. A rule is written
only when ``paths.approvals_file()`` (per user, under ``MEMDOWN_HOME``, never
in the repository) holds the hash of exactly what was approved: the target
file, the rule's unique token and its text. ``memdown reflect promote`` is
the approval; crash recovery finishes only approved promotions.

One JSON line per approval, appended with ``O_APPEND`` (0600): concurrent
promotions cannot lose each other's line.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import secrets
from pathlib import Path

from .. import fsutil
from .. import paths


def new_token() -> str:
    """A random token marking one promotion's rule, so undo removes exactly that block."""
    return secrets.token_hex(4)


def key(target_path: Path, token: str, text: str) -> str:
    where = os.path.abspath(Path(target_path).expanduser())
    return hashlib.sha256(f"{where}\0{token}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


def _keys() -> set[str]:
    from ..committed_config import approval_keys

    return approval_keys(paths.approvals_file())


def approved(target_path: Path, token: str, text: str) -> bool:
    return bool(token) and key(target_path, token, text) in _keys()


def approve(target_path: Path, token: str, text: str, *, learning_id: str = "", target: str = "") -> str:
    """Record that the person at this machine approved writing ``text`` (with ``token``) to ``target_path``."""
    if not token:
        raise ValueError("an approval needs a token")
    digest = key(target_path, token, text)
    if digest in _keys():
        return digest
    line = json.dumps({"key": digest, "learning": learning_id, "target": target, "path": str(target_path),
                       "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}) + "\n"
    path = paths.approvals_file()
    fsutil.make_dirs(path.parent, mode=0o700)
    fsutil.append_bytes(path, line.encode("utf-8"), mode=0o600)
    return digest
