"""``memdown import`` of Codex CLI sessions: the Codex side of ``import_sources``, as a separate adapter.

This project's Codex sessions are the rollouts under ``$CODEX_HOME/sessions`` and ``archived_sessions``
whose session started in the project (``session_meta.cwd``, or the ``<cwd>`` of a legacy rollout's
environment context), matched like Claude Code's by ``import_sources.started_in``. A rollout is told by
its first line (``clients.codex.head``), never by its name. Sub-agent rollouts hold no typed prompt: they
are skipped with their reason. The rest of the import (capture, mining, idempotency, counts) is the one
Claude Code uses, through ``clients.parse_log``.
"""
from __future__ import annotations

from pathlib import Path

from ... import paths
from ...clients import codex
from ...transcript.layout import Sniff

SUBAGENT_ROLLOUT = "Codex sub-agent rollout, not a session (the parent agent wrote its prompts)"


def codex_folders() -> list[Path]:
    """Where Codex keeps its rollouts (looked in whether or not they exist, so the report can say so)."""
    home = paths.codex_home()
    return [home / "sessions", home / "archived_sessions"]


def codex_sniff(path: Path) -> Sniff | None:
    """``path``'s head as the import reads a transcript's, when it is a Codex rollout; else None."""
    found = codex.head(path)
    if found is None:
        return None
    if found.subagent:
        return Sniff(SUBAGENT_ROLLOUT, found.session_id, found.cwd, found.timestamp)
    return Sniff("", found.session_id, found.cwd, found.timestamp)


def codex_session_id(path: Path) -> str:
    """The session id a Codex rollout's hooks and anchors use ('' when ``path`` is not a rollout)."""
    found = codex.head(path)
    return found.session_id if found is not None else ""
