"""What every non-Claude client reader shares: reading a log whole, building turns, naming tool calls.

Tool calls get the names the rest of memdown knows (``Bash`` with ``command``; ``Edit``/``Write``/``Read``
with ``file_path``), whatever the client calls them, so files touched, commands and guards read the same
for every agent. Standard library only (the capture worker reads logs with it).
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..transcript.model import ToolCall, Transcript, Turn
from ..transcript.reader import open_stream

MAX_DOCUMENT_BYTES = 256 * 1024 * 1024  # a bigger single JSON document is refused, not held in memory
SHELL = frozenset({"run_shell_command", "shell", "bash", "Bash", "Shell", "run_terminal_cmd", "powershell",
                   "run_in_terminal", "execute_command", "terminal"})
WRITE = frozenset({"write_file", "write", "Write", "create", "create_file", "write_to_file"})
EDIT = frozenset({"replace", "edit", "Edit", "edit_file", "StrReplace", "search_replace", "MultiEdit",
                  "str_replace", "multiedit", "patch"})
READ = frozenset({"read_file", "read", "Read", "ReadFile", "view", "read_many_files"})
_PATH_KEYS = ("file_path", "filePath", "absolute_path", "target_file", "path", "filename", "file")


def read_bytes(path: Path) -> bytes:
    """The whole file (gunzipped), through the transcript reader's safe open."""
    with open_stream(Path(path)) as handle:
        data = handle.read(MAX_DOCUMENT_BYTES + 1)
    if len(data) > MAX_DOCUMENT_BYTES:
        raise ValueError(f"{path} is over {MAX_DOCUMENT_BYTES >> 20} MiB")
    return data


def load_document(path: Path) -> Any:
    """One JSON document (a BOM is allowed); ``None`` when the file is not one."""
    try:
        return json.loads(read_bytes(path).decode("utf-8-sig", "replace"))
    except (ValueError, OSError):
        return None


def json_lines(path: Path) -> tuple[list[Any], int]:
    """(the parsed lines of a JSONL file, how many lines were not JSON)."""
    entries, bad = [], 0
    for line in read_bytes(path).decode("utf-8-sig", "replace").split("\n"):  # not splitlines: U+2028 is text
        if not line.strip():
            continue
        try:
            entries.append(json.loads(line))
        except ValueError:
            bad += 1
    return entries, bad


def iso(value: Any) -> str:
    """An ISO-8601 UTC time from an ISO string or epoch seconds/milliseconds ('' when neither)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        seconds = value / 1000 if value > 10**11 else value
        try:
            return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds").replace(
                "+00:00", "Z")
        except (OverflowError, OSError, ValueError):
            return ""
    return ""


def text_of(content: Any) -> str:
    """Text of a string, a list of ``{text}`` parts or strings, or a ``{text}`` dict."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content.get("text") or "")
    if isinstance(content, list):
        return "\n".join(text_of(part) for part in content if text_of(part))
    return ""


def tool_call(call_id: str, name: str, arguments: Any) -> ToolCall:
    """A client's tool call under memdown's names (``Bash``/``command``, ``Edit``/``file_path``…)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = {"input": arguments}
    args = dict(arguments) if isinstance(arguments, dict) else {"input": str(arguments)}
    if name in SHELL and isinstance(args.get("command", args.get("cmd")), str):
        return ToolCall(call_id, "Bash", {**args, "command": args.get("command", args.get("cmd"))})
    target = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k]), "")
    if name == "str_replace_editor":  # Copilot's one editor tool: view / create / str_replace / insert
        name = {"view": "Read", "create": "Write"}.get(str(args.get("command")), "Edit")
    for group, known in ((WRITE, "Write"), (EDIT, "Edit"), (READ, "Read")):
        if name in group and target:
            return ToolCall(call_id, known, {**args, "file_path": target})
    return ToolCall(call_id, name, args)


class Turns:
    """Turns of one session: a typed prompt opens a turn; replies and tool calls fill the open one."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.preamble: Turn | None = None
        self.calls: dict[str, ToolCall] = {}

    def prompt(self, uuid: str, text: str, stamp: str, offset: int = 0) -> Turn | None:
        if not text.strip():
            return None
        if any(t.uuid == uuid for t in self.turns):
            uuid = f"{uuid}-{len(self.turns)}"
        turn = Turn(uuid=uuid, index=len(self.turns), timestamp=stamp, prompt=text.strip(),
                    start_offset=offset, end_offset=offset)
        self.turns.append(turn)
        return turn

    def open(self, stamp: str = "") -> Turn:
        if self.turns:
            return self.turns[-1]
        if self.preamble is None:
            self.preamble = Turn(uuid="", index=-1, timestamp=stamp, prompt="", kind="continuation")
        return self.preamble

    def say(self, text: str, stamp: str = "") -> None:
        if text.strip():
            turn = self.open(stamp)
            turn.assistant_texts.append(text)
            turn.steps.append(text)

    def call(self, call: ToolCall, stamp: str = "") -> ToolCall:
        turn = self.open(stamp)
        turn.tool_calls.append(call)
        turn.steps.append(call)
        if call.id:
            self.calls[call.id] = call
        return call

    def result(self, call_id: str, text: Any, failed: bool) -> None:
        call = self.calls.get(call_id)
        if call is not None:
            call.result = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
            call.is_error = bool(failed)


def transcript(path: Path, agent: str, built: Turns, *, session: str, cwd: str = "", version: str = "",
               bad_lines: int = 0, start_offset: int = 0) -> Transcript:
    """The one transcript model for a whole-file log: ``end_offset`` is the file's size, so a reader that
    resumes at an offset (signal mining) gets nothing new until the file grows."""
    size = Path(path).stat().st_size if Path(path).exists() else 0
    end = size
    for turn in built.turns:
        turn.end_offset = end
    turns = [] if start_offset and start_offset >= size else built.turns
    return Transcript(path=Path(path), session_id=session, cwd=cwd, version=version, turns=turns,
                      bad_lines=bad_lines, end_offset=end, start_offset=start_offset, preamble=built.preamble,
                      agent=agent)
