"""Builds Claude Code-shaped transcripts (JSONL) for tests."""
from __future__ import annotations

import json
import uuid
from pathlib import Path


class TranscriptBuilder:
    def __init__(self, session_id: str | None = None, cwd: str = "/work/project") -> None:
        self.session_id = session_id or str(uuid.uuid4())
        self.cwd = cwd
        self.lines: list[dict] = []
        self.parent: str | None = None
        self.turn_uuids: list[str] = []
        self._minute = 0

    def _ts(self) -> str:
        self._minute += 1
        return f"2026-11-20T10:{self._minute % 60:02d}:00.000Z"

    def _entry(self, kind: str, message: dict, **extra) -> str:
        entry_uuid = str(uuid.uuid4())
        self.lines.append({
            "type": kind, "uuid": entry_uuid, "parentUuid": self.parent, "isSidechain": False,
            "sessionId": self.session_id, "cwd": self.cwd, "version": "2.1.100",
            "timestamp": self._ts(), "message": message, **extra,
        })
        self.parent = entry_uuid
        return entry_uuid

    def prompt(self, text: str) -> str:
        turn = self._entry("user", {"role": "user", "content": text})
        self.turn_uuids.append(turn)
        return turn

    def tool(self, name: str, tool_input: dict, result: str, *, is_error: bool = False) -> None:
        tool_id = "toolu_" + uuid.uuid4().hex[:20]
        self._entry("assistant", {"id": "msg_" + uuid.uuid4().hex[:10], "role": "assistant",
                                  "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]})
        self._entry("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_id, "content": result, "is_error": is_error}]},
            toolUseResult={"stdout": result})

    def reply(self, text: str) -> None:
        self._entry("assistant", {"id": "msg_" + uuid.uuid4().hex[:10], "role": "assistant",
                                  "content": [{"type": "text", "text": text}]})

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))
        return path


def hook_payload(event: str, builder: TranscriptBuilder, transcript: Path, cwd: Path, **extra) -> str:
    return json.dumps({"session_id": builder.session_id, "transcript_path": str(transcript), "cwd": str(cwd),
                       "hook_event_name": event, **extra})
