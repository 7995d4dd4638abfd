"""The parsed shape of a transcript: turns, their tool calls, sub-transcripts.

Standard library only (hooks import it on their fast path). Built by
``parser.parse_transcript`` for Claude Code and by ``memdown.clients`` for other
agents (tool calls under the names memdown knows: ``Bash``/``command``, ``Edit``/
``file_path``); read by capture, signals, drill-down and search.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import content as C

_EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "Read"})
_ERROR_EXCERPT = 240


@dataclass
class ToolCall:
    id: str
    name: str
    input: dict
    result: str | None = None   # tool_result text (flattened), None if no result seen
    is_error: bool = False

    def summary(self) -> str:
        """One line, e.g. ``"Bash: pytest -q"`` / ``"Edit: src/app.py"``."""
        detail = C.one_line(C.tool_detail(self.name, self.input), 160)
        return f"{self.name}: {detail}" if detail else self.name

    def error_excerpt(self, limit: int = _ERROR_EXCERPT) -> str:
        """The failure text on one line ('' when the call did not fail)."""
        if not self.is_error:
            return ""
        from ..redact import redact_lines  # redacted with its lines: joined, a config listing is no longer one

        text = (self.result or "").replace("<tool_use_error>", "").replace("</tool_use_error>", "")
        return C.one_line(redact_lines(text, limit), limit) or "(no output)"


@dataclass
class Turn:
    uuid: str                 # uuid of the turn's real user prompt entry
    index: int                # 0-based among turns of this transcript
    timestamp: str            # ISO string from the prompt entry ('' if absent)
    prompt: str               # the real user prompt text
    assistant_texts: list[str] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    is_sidechain: bool = False
    start_offset: int = 0     # byte offset of the prompt line in the file
    end_offset: int = 0       # byte offset just after the turn's last line
    kind: str = C.PROMPT      # "prompt" | "command" ("/x args") | "bash" ("!cmd")
    interrupted: bool = False
    # "API Error: …" replies the client wrote in the model's place: in ``steps`` (drill-down
    # shows them) but not in ``assistant_texts`` (they are not the model's words).
    api_errors: list[str] = field(default_factory=list)
    # Assistant texts and tool calls in the order they happened (for rendering).
    steps: list[str | ToolCall] = field(default_factory=list, repr=False)
    # API message ids of the model's replies: a resumed session that re-logs this turn
    # under fresh uuids still carries them (services.capture.recorded_turns tells copies apart).
    message_ids: list[str] = field(default_factory=list, repr=False)

    def assistant_text(self) -> str:
        return "\n\n".join(self.assistant_texts)

    def files_touched(self) -> list[str]:
        seen: dict[str, None] = {}
        for call in self.tool_calls:
            if call.name in _EDIT_TOOLS:
                path = C.file_of(call.input)
                if path:
                    seen.setdefault(path, None)
        return list(seen)

    def commands(self) -> list[str]:
        return [
            call.input["command"] for call in self.tool_calls
            if call.name == "Bash" and isinstance(call.input.get("command"), str)
        ]

    def errors(self) -> list[str]:
        return [f"{call.summary()}: {call.error_excerpt()}" for call in self.tool_calls if call.is_error]


@dataclass
class Transcript:
    path: Path
    session_id: str
    cwd: str
    version: str
    turns: list[Turn]
    subagents: list["Transcript"] = field(default_factory=list)
    bad_lines: int = 0               # corrupt JSON lines skipped
    compactions: int = 0
    end_offset: int = 0              # after the last complete line read
    start_offset: int = 0
    agent_id: str = ""               # subagent transcripts: "agent-…" or the sidechain root uuid
    truncated_tail: bool = False     # an unparsable last line without newline was left unread
    replayed_turns: int = 0          # resume replays dropped (see module doc)
    # Assistant work before the first prompt (a file or chunk starting mid-turn).
    preamble: Turn | None = field(default=None, repr=False)
    # Which client wrote the log: "" for Claude Code (its headings stay unlabelled), else e.g. "codex".
    agent: str = ""
    # Prompts a reader left out, by reason (another client's log: e.g. a prompt its chat file also holds).
    left_out: dict[str, int] = field(default_factory=dict)
