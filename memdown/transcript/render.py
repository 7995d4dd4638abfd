"""Human and JSON views of a parsed transcript, for ``memdown transcript``.

Output is bounded: drill-down output goes to a terminal or into an agent's
context window, so every text block and the whole rendering are capped.
Standard library only.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from . import content as C
from .archive import portable_path
from .parser import ToolCall, Transcript, Turn

BLOCK_CHARS = 2_000      # one prompt / assistant text / tool result
TOTAL_CHARS = 20_000     # the whole rendering
PROMPT_PREVIEW = 100     # the list view's prompt column
UUID_CHARS = 8


def cap(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` chars with an explicit "…[truncated N chars]" marker."""
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()}…[truncated {len(text) - limit} chars]"


def local_time(timestamp: str) -> datetime | None:
    """A transcript's ISO timestamp (UTC, "Z") as naive local time; None when absent or unparsable."""
    if not timestamp:
        return None
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone().replace(tzinfo=None)


def format_time(timestamp: str) -> str:
    """ISO timestamp → local "YYYY-MM-DD HH:MM" ('' when absent)."""
    moment = local_time(timestamp)
    if moment is None:
        return timestamp[:16].replace("T", " ")
    return moment.strftime("%Y-%m-%d %H:%M")


def _owner(transcript: Transcript, turn: Turn) -> Transcript:
    """The (sub)transcript whose ``turns`` holds ``turn`` (by identity)."""
    stack = [transcript]
    while stack:
        current = stack.pop(0)
        if any(t is turn for t in current.turns):
            return current
        stack.extend(current.subagents)
    return transcript


def _window(transcript: Transcript, turn: Turn, context: int) -> tuple[Transcript, list[Turn]]:
    owner = _owner(transcript, turn)
    position = next((i for i, t in enumerate(owner.turns) if t is turn), None)
    if position is None:
        return owner, [turn]
    context = max(0, int(context))
    return owner, owner.turns[max(0, position - context): position + context + 1]


# --- list view ------------------------------------------------------------------


def list_turns(transcript: Transcript) -> list[dict]:
    """One row per main turn: uuid prefix, time, first prompt line, tool-call count."""
    return [
        {
            "uuid": turn.uuid[:UUID_CHARS],
            "index": turn.index,
            "time": format_time(turn.timestamp),
            "prompt": C.first_line(turn.prompt, PROMPT_PREVIEW),
            "tool_calls": len(turn.tool_calls),
            "kind": turn.kind,
            "interrupted": turn.interrupted,
        }
        for turn in transcript.turns
    ]


def transcript_info(transcript: Transcript) -> dict[str, Any]:
    """Session-level facts shared by the list and render JSON forms."""
    return {
        "session_id": transcript.session_id,
        "path": portable_path(transcript.path),
        "cwd": transcript.cwd,
        "version": transcript.version,
        "turn_count": len(transcript.turns),
        "subagents": [
            {"agent_id": sub.agent_id, "turns": len(sub.turns)} for sub in transcript.subagents
        ],
        "compactions": transcript.compactions,
        "bad_lines": transcript.bad_lines,
    }


def list_turns_json(transcript: Transcript) -> dict[str, Any]:
    return {**transcript_info(transcript), "turns": list_turns(transcript)}


def format_turn_list(transcript: Transcript) -> str:
    """The list view as text: a header line, then one line per turn."""
    lines = [_header(transcript)]
    if not transcript.turns:
        lines.append("(no user prompts in this transcript)")
    for row in list_turns(transcript):
        flag = " ⏹" if row["interrupted"] else ""
        tools = f"{row['tool_calls']:>3} tools" if row["tool_calls"] else "         "
        lines.append(f"{row['uuid']:<8}  {row['time']:<16}  {tools}  {row['prompt']}{flag}")
    if transcript.subagents:
        names = ", ".join(f"{s.agent_id or '?'} ({len(s.turns)} turns)" for s in transcript.subagents[:6])
        more = f" +{len(transcript.subagents) - 6} more" if len(transcript.subagents) > 6 else ""
        lines.append(f"subagents: {names}{more}")
    return cap("\n".join(lines), TOTAL_CHARS)


def _header(transcript: Transcript) -> str:
    facts = [f"session {transcript.session_id}", f"{len(transcript.turns)} turns"]
    if transcript.compactions:
        facts.append(f"{transcript.compactions} compactions")
    if transcript.bad_lines:
        facts.append(f"{transcript.bad_lines} bad lines skipped")
    facts.append(portable_path(transcript.path))
    return " · ".join(facts)


# --- drill-down -----------------------------------------------------------------


def _indent(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())


def _tool_line(call: ToolCall) -> str:
    line = f"  • {call.summary()}"
    if call.is_error:
        line += f"\n    ✗ {call.error_excerpt()}"
    elif call.result is None:
        line += "  (no result)"
    return line


def _render_turn(turn: Turn, total: int, selected: bool) -> str:
    marker = "▶" if selected else "─"
    where = " · subagent" if turn.is_sidechain else ""
    out = [
        f"{marker}── turn {turn.index + 1}/{total} · {turn.uuid[:UUID_CHARS]} · "
        f"{format_time(turn.timestamp) or 'no time'}{where} ───"
    ]
    out.append("user:")
    out.append(_indent(cap(turn.prompt, BLOCK_CHARS)))
    if turn.interrupted:
        out.append("  [interrupted by the user]")
    if turn.steps:
        out.append("assistant:")
        for step in turn.steps:
            if isinstance(step, ToolCall):
                out.append(_tool_line(step))
            else:
                out.append(_indent(cap(step, BLOCK_CHARS)))
    else:
        out.append("assistant: (no response)")
    return "\n".join(out)


def _cut(text: str, limit: int) -> str:
    """Like ``cap`` but cuts at a line boundary and puts the marker on its own line."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    if "\n" in head[limit // 2:]:
        head = head[: head.rindex("\n")]
    return f"{head.rstrip()}\n…[truncated {len(text) - len(head)} chars]"


def render_turns(transcript: Transcript, turn: Turn, context: int = 0) -> str:
    """``turn`` plus ``context`` turns either side: user text, assistant text and
    one line per tool call (``✗`` and an excerpt when it failed).

    The selected turn gets the budget first, so huge neighbours can never push
    it out of the bounded output.
    """
    owner, window = _window(transcript, turn, context)
    header = _header(owner)
    budget = TOTAL_CHARS - len(header) - 2 * len(window)
    selected = _cut(_render_turn(turn, len(owner.turns), True), budget)
    others = [t for t in window if t is not turn]
    share = (budget - len(selected)) // len(others) if others else 0
    parts = [header]
    for t in window:
        if t is turn:
            parts.append(selected)
        elif share >= 200:
            parts.append(_cut(_render_turn(t, len(owner.turns), False), share))
        else:
            parts.append(f"─── turn {t.index + 1}/{len(owner.turns)} · {t.uuid[:UUID_CHARS]} · (omitted: output limit)")
    return "\n\n".join(parts)


def tool_call_dict(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "name": call.name,
        "summary": call.summary(),
        "is_error": call.is_error,
        "error": call.error_excerpt() if call.is_error else None,
        "result": cap(call.result, BLOCK_CHARS) if call.result is not None else None,
    }


def turn_to_dict(turn: Turn, *, selected: bool = False) -> dict[str, Any]:
    return {
        "uuid": turn.uuid,
        "index": turn.index,
        "timestamp": turn.timestamp,
        "kind": turn.kind,
        "selected": selected,
        "is_sidechain": turn.is_sidechain,
        "interrupted": turn.interrupted,
        "prompt": cap(turn.prompt, BLOCK_CHARS),
        "assistant_texts": [cap(text, BLOCK_CHARS) for text in turn.assistant_texts],
        "tool_calls": [tool_call_dict(call) for call in turn.tool_calls],
        "files_touched": turn.files_touched(),
        "commands": [C.one_line(cmd, 300) for cmd in turn.commands()],
        "errors": turn.errors(),
        "start_offset": turn.start_offset,
        "end_offset": turn.end_offset,
    }


def render_turns_json(transcript: Transcript, turn: Turn, context: int = 0) -> dict[str, Any]:
    """JSON form of ``render_turns``, bounded like it.

    To fit the budget (TOTAL_CHARS * 2: JSON escaping inflates text), tool
    results go first (outer turns before the selected one), then the outer
    turns farthest from the selected one, then the selected turn's long lists.
    ``truncated`` says whether anything was dropped.
    """
    import json

    owner, window = _window(transcript, turn, context)
    turns = [turn_to_dict(t, selected=t is turn) for t in window]
    data: dict[str, Any] = {
        **transcript_info(owner), "selected": turn.uuid, "truncated": False, "turns": turns,
    }
    budget = TOTAL_CHARS * 2

    def over() -> bool:
        return len(json.dumps(data, ensure_ascii=False)) > budget

    if not over():
        return data
    data["truncated"] = True
    for pass_selected in (False, True):
        for item in turns:
            if item["selected"] == pass_selected:
                for call in item["tool_calls"]:
                    call["result"] = None
        if not over():
            return data
    item = next(entry for entry in turns if entry["selected"])
    for key, keep in (("tool_calls", 40), ("errors", 20), ("files_touched", 40),
                      ("commands", 40), ("assistant_texts", 10)):
        if over() and len(item[key]) > keep:
            item[f"{key}_omitted"] = len(item[key]) - keep
            item[key] = item[key][: keep // 2] + item[key][-(keep - keep // 2):]
    while over() and len(turns) > 1:
        # Drop the outer turn farthest from the selected one.
        chosen = turns.index(item)
        turns.pop(0 if chosen >= len(turns) - 1 - chosen else len(turns) - 1)
    if over():
        item["assistant_texts"] = [cap(text, 500) for text in item["assistant_texts"]]
    return data
