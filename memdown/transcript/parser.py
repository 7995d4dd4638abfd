"""The one Claude Code transcript parser: JSONL (or .jsonl.gz) → turns.

Standard library only: hooks parse transcripts on their fast path.

A *turn* is one real user prompt plus everything up to the next real prompt.
What counts as a real prompt (see ``content.classify_user``):

- typed text, with ``<system-reminder>``/IDE-context blocks stripped;
- a slash command, kept in readable form ``"/name args"`` (``kind="command"``)
  because it is what the user asked for; its output
  (``<local-command-stdout>``) and expanded body (``isMeta``) are not prompts;
- a bash-mode line, kept as ``"!cmd"`` (``kind="bash"``); its output is not.

Never prompts: tool results, ``isMeta`` entries, compaction summaries,
``[Request interrupted by user…]`` (it marks the current turn
``interrupted``), task notifications, and anything in ``attachment`` entries
(other plugins' hook output lives there).

Sidechains (subagent conversations) never enter the main turns: inline
``isSidechain`` lines are grouped by their ``parentUuid`` chains into one
sub-transcript each; ``<session>/subagents/**/agent-*.jsonl`` and sibling
``agent-*.jsonl`` files of the same session are parsed as sub-transcripts.

A resumed 2.0.x session may re-log earlier history with fresh uuids. A turn
whose assistant message ids all appeared in earlier turns is such a replay
and is dropped (counted in ``replayed_turns``).
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import AmbiguousIdError, InputFileError, MemdownError, NotFoundError, UsageError
from . import content as C
from .layout import is_agent_file, session_stem, subagent_files
from .model import ToolCall, Transcript, Turn
from .reader import LineReader, iter_entries

__all__ = [
    "ToolCall", "Turn", "Transcript", "iter_entries", "parse_transcript",
    "find_turn", "locate_turn", "last_turn", "session_stem",
]

class _Builder:
    """Accumulates turns for one conversation stream (main or one sidechain)."""

    def __init__(self, tools: dict[str, ToolCall]) -> None:
        self.turns: list[Turn] = []
        self.current: Turn | None = None
        self.preamble: Turn | None = None
        self.tools = tools                 # shared tool_use id → ToolCall, for pairing
        self.prompt_uuids: set[str] = set()
        self.uuid_uses: dict[str, int] = {}  # prompt uuid → turns that had it (``_unique_key``)
        self.turn_msg_ids: set[str] = set()
        self.seen_msg_ids: set[str] = set()
        self.last_text_msg: str | None = None
        self.boundaries: set[str] = set()
        self.compactions = 0
        self.replayed = 0

    # --- turn lifecycle ---
    def _close(self) -> None:
        turn = self.current
        if turn is None:
            return
        if self.turn_msg_ids and self.turn_msg_ids <= self.seen_msg_ids:
            self.replayed += 1
        else:
            turn.index = len(self.turns)
            turn.message_ids = sorted(self.turn_msg_ids)
            turn.uuid = self._unique_key(turn)
            self.turns.append(turn)
        self.seen_msg_ids |= self.turn_msg_ids
        self.turn_msg_ids = set()
        self.prompt_uuids = set()
        self.current = None
        self.last_text_msg = None

    def _unique_key(self, turn: Turn) -> str:
        """The turn's key: its prompt's uuid, unless an earlier turn of this stream has it (a client bug, a
        hand-edited or merged file) or it has none; then ``<uuid>@<n>`` (the n-th turn with that uuid) or
        ``@<byte offset>``, so every turn has its own anchor and done-state, the same on every full parse."""
        if not turn.uuid:
            return f"@{turn.start_offset}"
        seen = self.uuid_uses.get(turn.uuid, 0) + 1
        self.uuid_uses[turn.uuid] = seen
        return turn.uuid if seen == 1 else f"{turn.uuid}@{seen}"

    def _target(self, offset: int, entry: dict) -> Turn:
        """The turn new assistant work belongs to (the preamble before any prompt)."""
        if self.current is not None:
            return self.current
        if self.preamble is None:
            self.preamble = Turn(
                uuid=str(entry.get("uuid") or ""), index=-1, timestamp=str(entry.get("timestamp") or ""),
                prompt="", is_sidechain=bool(entry.get("isSidechain")), start_offset=offset,
                end_offset=offset, kind="continuation",
            )
        return self.preamble

    def extend(self, end: int) -> None:
        if self.current is not None:
            self.current.end_offset = end

    # --- entries ---
    def user(self, offset: int, end: int, entry: dict) -> None:
        kind, text = C.classify_user(entry)
        if kind == C.TOOL_RESULT:
            self._tool_results(entry)
        elif kind == C.COMPACT:
            if entry.get("parentUuid") not in self.boundaries:
                self.compactions += 1
        elif kind == C.INTERRUPT:
            if self.current is not None:
                self.current.interrupted = True
        elif kind in C.PROMPT_KINDS:
            self._prompt(offset, end, entry, kind, text)
            return
        self.extend(end)

    def _prompt(self, offset: int, end: int, entry: dict, kind: str, text: str) -> None:
        uuid = str(entry.get("uuid") or "")
        turn = self.current
        # IDE context and typed text can arrive as consecutive entries chained by
        # parentUuid with nothing in between: one prompt, not two.
        if (
            turn is not None and kind == C.PROMPT and turn.kind == C.PROMPT
            and not turn.steps and entry.get("parentUuid") in self.prompt_uuids
        ):
            turn.prompt = f"{turn.prompt}\n\n{text}"
            turn.end_offset = end
            if uuid:
                self.prompt_uuids.add(uuid)
            return
        self._close()
        self.current = Turn(
            uuid=uuid, index=len(self.turns), timestamp=str(entry.get("timestamp") or ""),
            prompt=text, is_sidechain=bool(entry.get("isSidechain")),
            start_offset=offset, end_offset=end, kind=kind,
        )
        if uuid:
            self.prompt_uuids.add(uuid)

    def _tool_results(self, entry: dict) -> None:
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in C.blocks_of(content):
            if block.get("type") != "tool_result":
                continue
            call = self.tools.get(str(block.get("tool_use_id") or ""))
            if call is None:
                continue  # its tool_use was before start_offset, or never logged
            call.result = C.flatten_tool_result(block.get("content"))
            call.is_error = block.get("is_error") is True

    def assistant(self, offset: int, end: int, entry: dict) -> None:
        message = entry.get("message")
        if not isinstance(message, dict):
            return
        turn = self._target(offset, entry)
        msg_id = message.get("id")
        if isinstance(msg_id, str) and msg_id and turn is self.current:
            self.turn_msg_ids.add(msg_id)
        key = msg_id if isinstance(msg_id, str) and msg_id else str(entry.get("uuid") or offset)
        if C.is_api_error(entry):
            # Shown in drill-down (steps) like before, but never the model's own words.
            text = C.user_text(message.get("content"))[0].strip()
            if text:
                turn.api_errors.append(text)
                turn.steps.append(text)
            self.last_text_msg = None
            turn.end_offset = end
            return
        for block in C.blocks_of(message.get("content")):
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if not isinstance(text, str) or not text.strip() or text.strip() == "(no content)":
                    continue
                # One API message is logged over several lines sharing message.id:
                # consecutive text pieces of one message are one text.
                if self.last_text_msg == key and turn.steps and isinstance(turn.steps[-1], str):
                    merged = f"{turn.steps[-1]}\n\n{text}"
                    turn.steps[-1] = merged
                    turn.assistant_texts[-1] = merged
                else:
                    turn.steps.append(text)
                    turn.assistant_texts.append(text)
                self.last_text_msg = key
            elif kind == "tool_use":
                call_id = str(block.get("id") or "")
                if call_id and any(c.id == call_id for c in turn.tool_calls):
                    continue  # the same block logged twice
                tool_input = block.get("input")
                call = ToolCall(
                    id=call_id, name=str(block.get("name") or "?"),
                    input=tool_input if isinstance(tool_input, dict) else {},
                )
                turn.tool_calls.append(call)
                turn.steps.append(call)
                if call_id:
                    self.tools[call_id] = call
                self.last_text_msg = None
            # thinking / redacted_thinking / unknown blocks: not part of the text
        turn.end_offset = end

    def system(self, end: int, entry: dict) -> None:
        if entry.get("subtype") == "compact_boundary":
            self.compactions += 1
            if entry.get("uuid"):
                self.boundaries.add(str(entry["uuid"]))
        self.extend(end)

    def finish(self) -> None:
        self._close()


def _build_turns(reader: LineReader, agent_file: bool) -> tuple[_Builder, dict[str, _Builder], dict[str, str], int]:
    """Feed every entry to its builder: (main, sidechain root uuid → builder, session meta, main messages)."""
    tools: dict[str, ToolCall] = {}
    main = _Builder(tools)
    groups: dict[str, _Builder] = {}       # sidechain root uuid → builder
    group_of: dict[str, str] = {}          # sidechain entry uuid → root uuid
    meta = {"sessionId": "", "cwd": "", "version": ""}
    main_messages = 0

    for offset, end, entry in reader:
        if entry is None:
            continue
        for key in meta:
            if not meta[key] and isinstance(entry.get(key), str):
                meta[key] = entry[key]
        kind = entry.get("type")
        builder = main
        if entry.get("isSidechain") is True and not agent_file:
            parent = str(entry.get("parentUuid") or "")
            root = group_of.get(parent) or str(entry.get("uuid") or f"@{offset}")
            group_of[str(entry.get("uuid") or f"@{offset}")] = root
            builder = groups.setdefault(root, _Builder(tools))
        elif kind in ("user", "assistant"):
            main_messages += 1
        if kind == "user":
            builder.user(offset, end, entry)
        elif kind == "assistant":
            builder.assistant(offset, end, entry)
        elif kind == "system":
            builder.system(end, entry)
        else:
            # attachment, progress, summary, file-history-snapshot, queue-operation,
            # unknown future types: never content, but they still belong to the turn.
            builder.extend(end)
    return main, groups, meta, main_messages


def parse_transcript(
    path: Path, *, start_offset: int = 0, include_subagents: bool = True
) -> Transcript:
    """Parse ``path`` (``.jsonl`` or ``.jsonl.gz``) from ``start_offset``.

    For incremental mining pass the previous ``end_offset``; only turns whose
    prompt lies after it are returned. Raises ``NotFoundError`` for a missing
    file and ``InputFileError`` for a binary or non-JSONL file.
    """
    path = Path(path)
    reader = LineReader(path, start_offset)
    agent_file = is_agent_file(path)
    main, groups, meta, main_messages = _build_turns(reader, agent_file)

    if start_offset == 0 and reader.good_lines == 0 and (reader.bad_lines or reader.truncated_tail):
        if reader.binary_head:
            raise InputFileError(f"{path} is a binary file, not a transcript")
        raise InputFileError(f"{path} is not a Claude Code transcript (no JSON lines)")

    main.finish()
    for builder in groups.values():
        builder.finish()
    session_id = meta["sessionId"] or session_stem(path)
    transcript = Transcript(
        path=path, session_id=session_id, cwd=meta["cwd"], version=meta["version"],
        turns=main.turns, bad_lines=reader.bad_lines, compactions=main.compactions,
        end_offset=reader.end_offset, start_offset=reader.start_offset,
        agent_id=session_stem(path) if agent_file else "",
        truncated_tail=reader.truncated_tail, replayed_turns=main.replayed, preamble=main.preamble,
    )
    side = [
        Transcript(
            path=path, session_id=session_id, cwd=meta["cwd"], version=meta["version"],
            turns=b.turns, compactions=b.compactions, end_offset=reader.end_offset,
            start_offset=reader.start_offset, agent_id=root, replayed_turns=b.replayed,
            preamble=b.preamble,
        )
        for root, b in groups.items()
    ]
    if main_messages == 0 and start_offset == 0 and len(side) == 1:
        # A file holding one sidechain only (a subagent log under another name).
        only = side.pop()
        transcript.turns, transcript.compactions = only.turns, only.compactions
        transcript.preamble, transcript.replayed_turns = only.preamble, only.replayed_turns
    transcript.subagents = side
    if include_subagents and not agent_file:
        for sub_path in subagent_files(path, session_id):
            try:
                transcript.subagents.append(parse_transcript(sub_path, include_subagents=False))
            except MemdownError:
                continue  # one unreadable subagent log must not hide the session
    return transcript


def _all_turns(transcript: Transcript) -> list[tuple[Transcript, Turn]]:
    pairs = [(transcript, t) for t in transcript.turns]
    for sub in transcript.subagents:
        pairs.extend(_all_turns(sub))
    return pairs


def locate_turn(transcript: Transcript, uuid_prefix: str) -> tuple[Transcript, Turn]:
    """Like ``find_turn`` but also returns the (sub)transcript holding the turn.

    Main turns are searched first; subagent turns only when no main turn matches.
    """
    prefix = (uuid_prefix or "").strip().lower()
    if not prefix:
        raise UsageError("empty turn id")
    if not re.fullmatch(r"[0-9a-zA-Z@-]+", prefix):
        raise UsageError(f"invalid turn id {uuid_prefix!r}")
    for scope in ([(transcript, t) for t in transcript.turns], _all_turns(transcript)):
        matches = [(tr, t) for tr, t in scope if t.uuid.lower().startswith(prefix)]
        exact = [(tr, t) for tr, t in matches if t.uuid.lower() == prefix]
        if len(exact) == 1:
            return exact[0]
        if len(matches) == 1:
            return matches[0]
        if matches:
            shown = ", ".join(t.uuid[:12] for _tr, t in matches[:5])
            raise AmbiguousIdError(
                f"turn id {uuid_prefix!r} matches {len(matches)} turns ({shown})",
                hint="give more characters",
            )
    raise NotFoundError(
        f"no turn {uuid_prefix!r} in session {transcript.session_id}",
        hint=f"list turns with: memdown transcript {transcript.session_id}",
    )


def find_turn(transcript: Transcript, uuid_prefix: str) -> Turn:
    """The turn whose prompt uuid starts with ``uuid_prefix``."""
    return locate_turn(transcript, uuid_prefix)[1]


def last_turn(transcript: Transcript) -> Turn | None:
    return transcript.turns[-1] if transcript.turns else None
