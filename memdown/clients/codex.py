"""Codex CLI session logs ("rollouts", ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) → memdown turns.

Standard library only (the capture worker and hooks parse with it). The result is the one transcript
model (``transcript.model``), so capture, redaction, entries, signals and guards read a Codex session
the way they read a Claude Code one. Tool calls get the names the rest of memdown knows: a shell call
(``exec_command``, ``shell``, ``shell_command``, ``local_shell_call``) is ``Bash`` with ``command``; an
``apply_patch`` is one ``Edit`` (or ``Write`` for an added file) per file it touches. Other tools keep
their own names.

Two shapes (see ../shared/agents/FORMATS.md):
- rollout v2 (cli 0.34 on): ``{"timestamp", "type", "payload"}`` lines. A typed prompt is an
  ``event_msg`` ``user_message`` (cli ≤ 0.126) or, where a file has none (cli 0.171 writes none), an
  ``item_completed`` ``UserMessage``. ``response_item`` user messages also carry injected context
  (AGENTS.md, ``<environment_context>``), so they are prompts only in the legacy shape.
- legacy (Sept 2025): a bare meta line, then bare ``ResponseItem``s; typed prompts are the user
  messages that are not injected context.
Sub-agent rollouts (``source: {"subagent": …}``) hold prompts the parent agent wrote: no turns.
"""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from ..transcript.model import ToolCall, Transcript, Turn
from ..transcript.reader import LineReader

AGENT = "codex"
SHELL_TOOLS = frozenset({"exec_command", "shell", "shell_command", "local_shell", "container.exec"})
# User-role messages the client injects (not typed): their first characters.
_INJECTED = ("<environment_context", "<user_instructions", "# AGENTS.md instructions", "<turn_aborted",
             "<permissions instructions", "<INSTRUCTIONS>", "<user_shell_command", "<skills_instructions",
             "<subagent_notification")
_EXIT_CODE = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.M)
_CWD_TAG = re.compile(r"<cwd>([^<]+)</cwd>")


def is_rollout(first: dict[str, Any]) -> bool:
    """Whether the first JSON line of a file is a Codex rollout's (either shape)."""
    if first.get("type") == "session_meta" and isinstance(first.get("payload"), dict):
        return True
    return "instructions" in first and "id" in first and "type" not in first and "role" not in first


def is_injected(text: str) -> bool:
    return text.lstrip().startswith(_INJECTED)


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(str(c.get("text") or "") for c in content if isinstance(c, dict) and c.get("text"))


def shell_command(arguments: Any) -> str:
    """The command line of a shell call's arguments (a JSON string or a dict; argv lists joined)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return arguments
    if not isinstance(arguments, dict):
        return ""
    command = arguments.get("cmd", arguments.get("command"))
    if isinstance(command, list) and all(isinstance(p, str) for p in command):
        if len(command) >= 3 and command[-2] in ("-lc", "-c", "-Command", "/c"):
            return command[-1]
        return shlex.join(command)
    return command if isinstance(command, str) else ""


def _tool_calls(item: dict[str, Any]) -> list[ToolCall]:
    """Memdown's tool calls for one ``function_call`` / ``custom_tool_call`` / ``local_shell_call`` item."""
    call_id = str(item.get("call_id") or item.get("id") or "")
    name = str(item.get("name") or item.get("type") or "?")
    if item.get("type") == "local_shell_call":
        return [ToolCall(call_id, "Bash", {"command": shell_command(item.get("action") or {})})]
    if name in SHELL_TOOLS:
        return [ToolCall(call_id, "Bash", {"command": shell_command(item.get("arguments"))})]
    raw = item.get("input") if item.get("type") == "custom_tool_call" else item.get("arguments")
    if name == "apply_patch":
        patch = raw if isinstance(raw, str) else shell_command(raw)
        files = _PATCH_FILE.findall(patch or "")
        return [ToolCall(call_id, "Write" if op == "Add" else "Edit", {"file_path": path.strip()})
                for op, path in files] or [ToolCall(call_id, "Edit", {})]
    arguments: Any = raw
    if isinstance(raw, str):
        try:
            arguments = json.loads(raw)
        except ValueError:
            arguments = {"input": raw}
    return [ToolCall(call_id, name, arguments if isinstance(arguments, dict) else {"input": str(raw)})]


def _output_text(output: Any) -> tuple[str, bool]:
    """(text, failed) of a tool output: plain text, or a JSON string with ``output`` and ``metadata``."""
    code: Any = None
    if isinstance(output, str) and output.startswith("{"):
        try:
            parsed = json.loads(output)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and "output" in parsed:
            meta = parsed.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            output = parsed.get("output")
    if isinstance(output, dict):
        output = output.get("content") or json.dumps(output)
    text = output if isinstance(output, str) else _texts(output)
    if code is None:
        match = _EXIT_CODE.search(text[:400])
        code = int(match.group(1)) if match else None
    return text, isinstance(code, int) and code != 0


class _Builder:
    """Turns of one rollout: a typed prompt opens a turn; assistant text and tool calls fill it."""

    def __init__(self, prompt_source: str) -> None:
        self.prompt_source = prompt_source  # "user_message" | "UserMessage" | "legacy"
        self.turns: list[Turn] = []
        self.current: Turn | None = None
        self.preamble: Turn | None = None
        self.calls: dict[str, list[ToolCall]] = {}
        self.turn_id = ""
        self.meta = {"session": "", "cwd": "", "version": "", "subagent": False, "timestamp": ""}

    def target(self, offset: int, stamp: str) -> Turn:
        if self.current is not None:
            return self.current
        if self.preamble is None:
            self.preamble = Turn(uuid="", index=-1, timestamp=stamp, prompt="", start_offset=offset,
                                 end_offset=offset, kind="continuation")
        return self.preamble

    def prompt(self, offset: int, end: int, stamp: str, text: str, turn_id: str) -> None:
        if self.meta["subagent"] or not text.strip():
            return
        self.close()
        uuid = turn_id or self.turn_id or f"{self.meta['session'][:8] or 'codex'}-{offset}"
        if any(t.uuid == uuid for t in self.turns):  # one turn, two prompt lines (steered): keep both
            uuid = f"{uuid}-{offset}"
        self.turn_id = ""
        self.current = Turn(uuid=uuid, index=len(self.turns), timestamp=stamp or self.meta["timestamp"],
                            prompt=text.strip(), start_offset=offset, end_offset=end)

    def close(self) -> None:
        if self.current is not None:
            self.turns.append(self.current)
            self.current = None

    def item(self, offset: int, end: int, stamp: str, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if kind == "message":
            text = _texts(item.get("content"))
            if item.get("role") == "assistant" and text.strip():
                turn = self.target(offset, stamp)
                turn.assistant_texts.append(text)
                turn.steps.append(text)
            elif item.get("role") == "user" and self.prompt_source == "legacy" and not is_injected(text):
                self.prompt(offset, end, stamp, text, "")
            elif item.get("role") == "user" and not self.meta["cwd"]:
                found = _CWD_TAG.search(text)
                self.meta["cwd"] = found.group(1).strip() if found else ""
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            turn = self.target(offset, stamp)
            calls = _tool_calls(item)
            turn.tool_calls.extend(calls)
            turn.steps.extend(calls)
            self.calls[calls[0].id] = calls
        elif kind in ("function_call_output", "custom_tool_call_output"):
            text, failed = _output_text(item.get("output"))
            for call in self.calls.get(str(item.get("call_id") or ""), []):
                call.result, call.is_error = text, failed
        self.extend(end)

    def event(self, offset: int, end: int, stamp: str, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "task_started":
            self.turn_id = str(payload.get("turn_id") or "")
        elif kind == "user_message" and self.prompt_source == "user_message":
            self.prompt(offset, end, stamp, str(payload.get("message") or ""), "")
        elif kind == "item_completed" and self.prompt_source == "UserMessage":
            item = payload.get("item")
            if isinstance(item, dict) and item.get("type") == "UserMessage":
                self.prompt(offset, end, stamp, _texts(item.get("content")), str(payload.get("turn_id") or ""))
        elif kind == "turn_aborted" and self.current is not None:
            self.current.interrupted = True
        self.extend(end)

    def extend(self, end: int) -> None:
        if self.current is not None:
            self.current.end_offset = end

    def session_meta(self, payload: dict[str, Any]) -> None:
        meta = self.meta
        if not meta["session"]:
            meta["session"] = str(payload.get("id") or payload.get("session_id") or "")
            meta["cwd"] = meta["cwd"] or str(payload.get("cwd") or "")
            meta["version"] = str(payload.get("cli_version") or "")
            meta["timestamp"] = str(payload.get("timestamp") or "")
            source = payload.get("source")
            meta["subagent"] = isinstance(source, dict) and "subagent" in source


def prompt_source(path: Path) -> str:
    """Where this file's typed prompts are: ``user_message`` events, ``UserMessage`` items, or legacy."""
    found = "legacy"
    for _offset, _end, entry in LineReader(path):
        if not isinstance(entry, dict) or "payload" not in entry:
            continue
        payload = entry.get("payload")
        kind = payload.get("type") if isinstance(payload, dict) else None
        if entry.get("type") == "event_msg" and kind == "user_message":
            return "user_message"
        if entry.get("type") == "event_msg" and kind == "item_completed":
            item = payload.get("item")
            if isinstance(item, dict) and item.get("type") == "UserMessage":
                found = "UserMessage"
    return found


def parse_rollout(path: Path, *, start_offset: int = 0) -> Transcript:
    """One Codex rollout as memdown's transcript model (``agent == "codex"``)."""
    path = Path(path)
    builder = _Builder(prompt_source(path))
    if start_offset:  # the session's id, cwd and version are on its first line
        for _offset, _end, entry in LineReader(path):
            _feed(builder, 0, 0, entry, meta_only=True)
            break
    reader = LineReader(path, start_offset)
    for offset, end, entry in reader:
        _feed(builder, offset, end, entry)
    builder.close()
    meta = builder.meta
    session = meta["session"] or _stem_id(path)
    return Transcript(
        path=path, session_id=session, cwd=meta["cwd"], version=meta["version"], turns=builder.turns,
        bad_lines=reader.bad_lines, end_offset=reader.end_offset, start_offset=reader.start_offset,
        truncated_tail=reader.truncated_tail, preamble=builder.preamble, agent=AGENT,
        agent_id="subagent" if meta["subagent"] else "",
    )


def _feed(builder: _Builder, offset: int, end: int, entry: Any, *, meta_only: bool = False) -> None:
    if not isinstance(entry, dict):
        return
    payload = entry.get("payload")
    kind = entry.get("type")
    if kind == "session_meta" and isinstance(payload, dict):
        builder.session_meta(payload)
    elif "payload" not in entry and "instructions" in entry and "id" in entry:  # the legacy meta line
        builder.session_meta(entry)
    if meta_only:
        return
    stamp = str(entry.get("timestamp") or "") if "payload" in entry else ""
    if kind == "response_item" and isinstance(payload, dict):
        builder.item(offset, end, stamp, payload)
    elif kind == "event_msg" and isinstance(payload, dict):
        builder.event(offset, end, stamp, payload)
    elif "payload" not in entry and isinstance(kind, str):  # legacy: a bare ResponseItem
        builder.item(offset, end, stamp, entry)
    else:
        builder.extend(end)


_UUID_TAIL = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")


def _stem_id(path: Path) -> str:
    stem = path.name.split(".", 1)[0]
    found = _UUID_TAIL.search(stem)
    return found.group(1) if found else stem


class Head:
    """What a rollout's first lines say: its session id, the cwd it started in, when, whether a sub-agent's."""

    __slots__ = ("session_id", "cwd", "timestamp", "subagent")

    def __init__(self, session_id: str, cwd: str, timestamp: str, subagent: bool) -> None:
        self.session_id, self.cwd, self.timestamp, self.subagent = session_id, cwd, timestamp, subagent


def head(path: Path, max_lines: int = 8) -> Head | None:
    """The head of ``path`` when it is a Codex rollout (either shape), else None. Reads a few lines only."""
    builder = _Builder("legacy")
    n = -1
    try:
        for n, (_offset, _end, entry) in enumerate(LineReader(Path(path))):
            if n == 0 and not (isinstance(entry, dict) and is_rollout(entry)):
                return None
            if isinstance(entry, dict):
                _feed(builder, 0, 0, entry, meta_only=True)
                payload = entry.get("payload") if "payload" in entry else entry
                if not builder.meta["cwd"] and isinstance(payload, dict) and payload.get("role") == "user":
                    found = _CWD_TAG.search(_texts(payload.get("content")))
                    builder.meta["cwd"] = found.group(1).strip() if found else ""
            if builder.meta["cwd"] or n >= max_lines:
                break
    except Exception:  # unreadable: not a rollout memdown can import
        return None
    if n < 0:  # no line at all
        return None
    meta = builder.meta
    return Head(meta["session"] or _stem_id(Path(path)), meta["cwd"], meta["timestamp"], bool(meta["subagent"]))
