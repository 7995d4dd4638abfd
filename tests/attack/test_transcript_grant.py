"""``memdown transcript`` (and the MCP server's transcript tool) opens a file outside the client's
folders and the archive only when an import on THIS machine recorded it: a day file's anchor is
repository data, so an anchor naming ``/any/where/private.jsonl`` (or ``~/…``) grants nothing.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from transcript_factory import TranscriptBuilder

from memdown.config import load_config
from memdown.errors import NotATranscriptError
from memdown.services.recall.drilldown import transcript_view
from memdown.services.capture.import_sources import survey
from memdown.services.capture.importer import import_transcripts
from memdown.store.anchors import Anchor, anchor_escape

OLD = time.time() - 86400


def _transcript(isolate_paths: Path, where: Path, prompt: str) -> TranscriptBuilder:
    b = TranscriptBuilder(cwd=str(isolate_paths))
    b.prompt(prompt)
    b.reply("Done.")
    b.write(where)
    os.utime(where, (OLD, OLD))
    return b


def _committed_anchor(memory_root: Path, session: str, transcript: str) -> None:
    (memory_root / "memory").mkdir(parents=True, exist_ok=True)
    anchor = Anchor(session, "t1", anchor_escape(transcript)).render()
    (memory_root / "memory" / "2026-06-01.md").write_text(
        f"# 2026-06-01\n\n## Session 09:00\n\n### 09:00\n{anchor}\n\n- a note\n", encoding="utf-8")


@pytest.mark.parametrize("spelling", ["absolute", "home"])
def test_a_committed_anchor_grants_no_read_outside(isolate_paths, memory_root, tmp_path, spelling) -> None:
    private = Path(os.environ["HOME"]) / "Downloads" / "private.jsonl"
    private.parent.mkdir(parents=True)
    b = _transcript(isolate_paths, private, "PRIVATE plans of another project")
    named = str(private) if spelling == "absolute" else "~/Downloads/private.jsonl"
    _committed_anchor(memory_root, b.session_id, named)
    for ref in (named, str(private), b.session_id, b.session_id[:8]):
        with pytest.raises(NotATranscriptError if ref != b.session_id[:8] and ref != b.session_id else Exception):
            transcript_view(memory_root, ref)
    from memdown.mcpserver import RecallTools
    from memdown.services.upkeep.memory import Memory

    tools = RecallTools(Memory(memory_root, config=load_config(memory_root)))
    with pytest.raises(Exception) as refused:
        tools.transcript(named)
    assert "PRIVATE" not in str(refused.value)


def test_a_file_imported_here_still_opens_by_its_anchor(isolate_paths, memory_root, tmp_path) -> None:
    exported = tmp_path / "exported" / "session one.jsonl"
    exported.parent.mkdir()
    b = _transcript(isolate_paths, exported, "Document the backup rotation")
    import_transcripts(memory_root, survey([exported], cwd=Path.cwd(), root=memory_root),
                       config=load_config(memory_root), index=False)
    for ref in (anchor_escape(str(exported)), str(exported), b.session_id[:8]):
        assert "Document the backup rotation" in transcript_view(memory_root, ref), ref
