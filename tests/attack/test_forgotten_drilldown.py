"""A forgotten turn stays forgotten in the drill-down too (docs/entries.md: the client's own transcript is
not edited, and "memdown never reads a forgotten turn from it again"): ``memdown transcript`` and the MCP
transcript tool read the live transcript under ``~/.claude/projects``, which still holds the turn.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from transcript_factory import TranscriptBuilder

from memdown.errors import MemdownError
from memdown.services.recall.drilldown import transcript_view
from memdown.store import forgetting


def _live(isolate_paths: Path) -> TranscriptBuilder:
    b = TranscriptBuilder(cwd=str(isolate_paths))
    b.prompt("Keep this: the staging host is staging.example")
    b.reply("Noted.")
    b.prompt("FORGOTTEN-SECRET the deploy key lives in vault/ops")
    b.reply("FORGOTTEN-REPLY ok")
    b.prompt("Last: run the linter")
    b.reply("Linted.")
    b.write(Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-proj" / f"{b.session_id}.jsonl")
    return b


def _shown(memory_root: Path, ref: str, turn: str | None = None, context: int = 0) -> str:
    try:
        text = str(transcript_view(memory_root, ref, turn, context))
        data = json.dumps(transcript_view(memory_root, ref, turn, context, as_json=True))
    except MemdownError as exc:
        return str(exc)
    return text + data


def test_a_forgotten_turn_is_not_shown_by_the_drill_down(isolate_paths, memory_root) -> None:
    b = _live(isolate_paths)
    forgotten = b.turn_uuids[1]
    forgetting.note(memory_root, {forgotten: b.session_id}, set())
    views = [_shown(memory_root, b.session_id), _shown(memory_root, b.session_id, "last", 5),
             _shown(memory_root, b.session_id, b.turn_uuids[0], 2), _shown(memory_root, b.session_id, forgotten[:8])]
    for view in views:
        assert "FORGOTTEN" not in view, view
    assert "staging.example" in views[0] and "run the linter" in views[1]


def test_a_forgotten_session_is_not_shown(isolate_paths, memory_root) -> None:
    b = _live(isolate_paths)
    forgetting.note(memory_root, {}, {b.session_id})
    for view in (_shown(memory_root, b.session_id), _shown(memory_root, b.session_id, "last", 5)):
        assert "FORGOTTEN" not in view and "staging.example" not in view, view
