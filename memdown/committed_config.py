"""A repository's settings are data: which keys need an approval made on this machine, and the approvals.

A project's ``.memdown/config.toml`` is committed, so anyone with push access
writes it. Keys that choose what runs or what it costs (``CONTROLLED``:
the summarizer's and the semantic miner's model, semantic mining itself, the
embedding model) are taken from it only when this file (per user, under
``MEMDOWN_HOME``, never in the repository) holds the hash of exactly that
memory root, key and value: ``memdown config approve KEY`` is the approval. A
changed value needs a new one.

Same shape as ``learning/approvals.py`` (promotions): one JSON line per
approval, appended with ``O_APPEND`` (0600), so concurrent approvals cannot
lose each other's line, and a torn last line loses only itself.
Standard library only: hooks read it when a project sets such a key.
"""
from __future__ import annotations

import os
import time

from . import fsutil
from .errors import ConfigError
from .lazyre import LazyPattern

TYPE_CHECKING = False  # neither pathlib nor re at import: UserPromptSubmit loads config (and so this module)
if TYPE_CHECKING:
    from pathlib import Path

FILE_NAME = "config-approvals.jsonl"
# Keys whose value chooses what runs or what it costs. Turning one off (False) is never costly: no approval.
CONTROLLED = ("summarizer.model", "summarizer.use_claude", "mining.semantic", "mining.semantic_model",
              "embedding.model")
# Keys whose value becomes one argument of a command line (``claude -p --model VALUE``) or names a model.
ARGV_KEYS = ("summarizer.model", "mining.semantic_model", "embedding.model")
_ARGUMENT = LazyPattern(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}")


def is_argument(value: object) -> bool:
    """A plain name (a model): never an option (no leading ``-``), no spaces or newlines."""
    return isinstance(value, str) and bool(_ARGUMENT.fullmatch(value))


def claude_argv(exe: str, model: str) -> list[str]:
    """``claude -p --model MODEL``: the one place memdown builds it; a value that is not a name is refused."""
    if not is_argument(model):
        raise ConfigError(f"refusing model name {str(model)[:80]!r} (it would be read as an option)")
    return [exe, "-p", "--model", model]


def approvals_file() -> Path:
    from . import paths  # here: only a project that sets a controlled key asks for its approvals

    return paths.memdown_home() / FILE_NAME


def key(root: str | os.PathLike[str], dotted: str, value: object) -> str:
    import hashlib  # here, not at the top: its OpenSSL load was ~2 ms of every hook, and few hooks need a key
    import json  # here: a hook with no committed setting never imports json

    where = os.path.abspath(os.path.expanduser(os.fspath(root)))
    shown = json.dumps(value, sort_keys=True)
    return hashlib.sha256(f"{where}\0{dotted}\0{shown}".encode("utf-8", "surrogatepass")).hexdigest()


def approval_keys(ledger: Path) -> set[str]:
    """The keys recorded in an approvals ledger (one JSON object a line, under MEMDOWN_HOME).

    Shared with the CLAUDE.md approvals (``learning.approvals``): a torn last line (a crash mid-append)
    only loses that approval; a missing or unreadable ledger approves nothing."""
    import json  # here: a hook with no committed setting never imports json

    try:
        raw = fsutil.read_text(ledger, errors="replace")
    except OSError:
        return set()
    found = set()
    for line in raw.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            found.add(item["key"])
    return found


def _keys() -> set[str]:
    return approval_keys(approvals_file())


def approved(root: str | os.PathLike[str], dotted: str, value: object) -> bool:
    return key(root, dotted, value) in _keys()


def approve(root: Path, dotted: str, value: object) -> str:
    """Record that the person at this machine lets ``root``'s config set ``dotted`` to ``value``."""
    import json  # here: a hook with no committed setting never imports json

    digest = key(root, dotted, value)
    if digest in _keys():
        return digest
    line = json.dumps({"key": digest, "root": str(root), "setting": dotted, "value": value,
                       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}) + "\n"
    path = approvals_file()
    fsutil.make_dirs(path.parent, mode=0o700)
    fsutil.append_bytes(path, line.encode("utf-8"), mode=0o600)
    return digest
