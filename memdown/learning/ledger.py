"""Cross-repo ledger (``paths.ledger_file()``): which repos promoted which learning.

A learning's fingerprint (``signals.text.fingerprint``: "use pnpm not npm" and
"don't use npm, use pnpm" share one) seen promoted in 2+ repos is proposed for
the global ``~/.claude/CLAUDE.md``. ``global`` records that decision
(``promoted`` / ``declined``) so it is asked once.
"""
from __future__ import annotations

import json
from pathlib import Path

from .. import fsutil
from .. import paths
from ..fsutil import atomic_write_text, file_lock


def _path() -> Path:
    return paths.ledger_file()


def load() -> dict:
    try:
        data = json.loads(fsutil.read_text(_path()))
    except (OSError, ValueError):
        return {"fingerprints": {}}
    if not isinstance(data, dict) or not isinstance(data.get("fingerprints"), dict):
        return {"fingerprints": {}}
    return data


def _edit(change) -> None:
    path = _path()
    with file_lock(path.with_name(f".{path.name}.lock")):
        data = load()
        change(data["fingerprints"])
        atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False),
                          mode=paths.PRIVATE_FILE_MODE)


def repo_id(root: Path) -> str:
    from .promote import project_dir

    return str(project_dir(root).resolve())


def record(root: Path, fp: str, text: str, learning_id: str, *, status: str = "promoted", day: str = "") -> None:
    from ..redact import redact

    text = redact(text)  # the ledger lives under MEMDOWN_HOME: never a raw secret there

    def change(fps: dict) -> None:
        item = fps.setdefault(fp, {"text": text, "repos": {}})
        item["text"] = text
        item["repos"][repo_id(root)] = {"learning": learning_id, "status": status, "date": day}

    _edit(change)


def mark_global(fp: str, status: str) -> None:
    def change(fps: dict) -> None:
        if fp in fps:
            fps[fp]["global"] = status

    _edit(change)


def global_candidates(root: Path) -> dict[str, dict]:
    """Fingerprints promoted in 2+ repos (this one included), not yet decided globally."""
    here = repo_id(root)
    out = {}
    for fp, item in load()["fingerprints"].items():
        repos = {r: v for r, v in item.get("repos", {}).items() if v.get("status") == "promoted"}
        if len(repos) >= 2 and here in repos and not item.get("global"):
            out[fp] = {**item, "repos": repos}
    return out
