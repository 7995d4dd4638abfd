"""What ``memdown forget`` removes from ``state/`` besides the healing ledger: the optional classifier's
queue, the mining state's last assistant line, the prompt hash in the recorded-turns registry, and the
prompts kept for repetition (``signals.restated``)."""
from __future__ import annotations

import json
from pathlib import Path

from ... import fsutil, paths
from ...fsutil import atomic_write_text, file_lock, file_lock_for
from ..capture import recorded_turns


def drop_from_state(root: Path, turns: set[str], sessions: set[str], phrases: set[str],
                     followers: set[str], *, whole: set[str]) -> None:
    """The classifier's queue loses the forgotten turns' lines (and any quoting them); the mining state
    forgets the last thing the assistant said in those sessions (``sessions``: the forgotten turns'
    sessions too); the prompts kept for repetition lose those turns and the ``whole`` sessions forgotten,
    never the other prompts of a session one turn of which was forgotten."""
    queue = paths.state_dir(root) / "semantic-queue.jsonl"
    folded = {p.casefold() for p in phrases}
    if queue.exists():
        with file_lock(file_lock_for(queue), timeout=30):
            kept = []
            for line in fsutil.read_text(queue, errors="replace").splitlines(keepends=True):
                try:
                    rec = json.loads(line)
                except ValueError:
                    rec = {}
                if rec.get("turn") in turns or rec.get("session") in sessions and not rec.get("turn") \
                        or any(p in line.casefold() for p in folded):
                    continue
                if rec.get("turn") in followers:
                    line = json.dumps({**rec, "said": ""}, ensure_ascii=False) + "\n"
                kept.append(line)
            atomic_write_text(queue, "".join(kept), mode=paths.PRIVATE_FILE_MODE)
    _unhash_registry(root, turns)
    from ...signals import restated

    restated.drop(root, turns, whole, phrases)   # the prompts kept for repetition (state/prompts.jsonl)
    state_path = paths.state_dir(root) / "mining.json"
    if state_path.exists():
        with file_lock(paths.lock_file(root, "mining"), timeout=30):
            try:
                state = json.loads(fsutil.read_text(state_path))
            except (OSError, ValueError):
                return
            for entry in (state.get("files") or {}).values():
                if isinstance(entry, dict) and entry.get("session") in sessions:
                    entry["last"] = {"tools": 0, "said": ""}
            atomic_write_text(state_path, json.dumps(state, indent=1), mode=paths.PRIVATE_FILE_MODE)


def _unhash_registry(root: Path, turns: set[str]) -> None:
    """The recorded-turns registry keeps a forgotten turn's uuid and session (a fork's copy of it is still
    known) but not the hash of its prompt, which is derived from the text."""
    registry = recorded_turns.registry_file(root)
    if not turns or not registry.exists():
        return
    with file_lock(file_lock_for(registry), timeout=30):
        lines = fsutil.read_text(registry, errors="replace").splitlines(keepends=True)
        kept = ["\t".join(line.rstrip("\n").split("\t")[:3]) + "\n" if line.split("\t", 1)[0] in turns else line
                for line in lines]
        if kept != lines:
            atomic_write_text(registry, "".join(kept), mode=paths.PRIVATE_FILE_MODE)
