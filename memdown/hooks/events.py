"""The hook table: each Claude Code event is one service call, answered as a ``HookOutput``.

``handler(payload, root, config) -> HookOutput``. ``config`` is loaded once by
the runner (``None`` for events that need none). The capture events (Stop,
PreCompact, SessionEnd) are not here: the runner queues their job directly
(``hooks.detach``) before any other import.
"""
from __future__ import annotations

import os
from pathlib import Path

from .. import paths
from .output import HookOutput

TYPE_CHECKING = False  # not `import typing` at run time: every hook pays for it
if TYPE_CHECKING:
    from typing import Any, Callable

    from ..config import Config

    Handler = Callable[[dict[str, Any], Path | None, Config | None], HookOutput | None]

# memdown's own read-only recall skill may run without a permission rule; any
# other skill (and any other tool) is left to the user's settings.
RECALL_SKILL = "memdown:memory-recall"


def shown_as(root: Path) -> str:
    """The root as the user sees it: relative to the session's folder when inside it."""
    try:
        return str(root.relative_to(Path.cwd()))
    except ValueError:
        return str(root)


def session_start(payload: dict[str, Any], root: Path | None, config: Config | None) -> HookOutput | None:
    if root is None or config is None:
        return None
    from ..services.session import session_brief

    brief = session_brief(root, config, shown_as=shown_as(root),
                          transcript_path=str(payload.get("transcript_path") or ""),
                          session_id=str(payload.get("session_id") or ""))
    return HookOutput("SessionStart", system_message=brief.status, context=brief.context)


def user_prompt(payload: dict[str, Any], root: Path | None, config: Config | None) -> HookOutput | None:
    prompt = payload.get("prompt")
    if root is None or config is None or not isinstance(prompt, str) or not paths.daily_dir(root).is_dir():
        return None
    from ..services.session import prompt_hint

    hint = prompt_hint(root, config, prompt=prompt, session_id=str(payload.get("session_id") or ""),
                       shown_as=shown_as(root))
    return HookOutput("UserPromptSubmit", context=hint)


def tool_failure(payload: dict[str, Any], root: Path | None, config: Config | None) -> HookOutput | None:
    if root is None or config is None or payload.get("is_interrupt") or not root.is_dir():
        return None
    from ..services.session import failure_note

    return HookOutput("PostToolUseFailure", context=failure_note(root, config, payload))


def pre_tool_use(payload: dict[str, Any], root: Path | None, config: Config | None) -> HookOutput | None:
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    if payload.get("tool_name") == "Skill":
        if tool_input.get("skill") != RECALL_SKILL:
            return None
        return HookOutput("PreToolUse", permission="allow", permission_reason="memdown: read-only memory recall")
    return guard_answer(str(payload.get("tool_name") or ""), tool_input, root)


def guard_answer(tool: str, tool_input: dict[str, Any], root: Path | None) -> HookOutput | None:
    """Deny (or ask about) a tool call that repeats a mistake the user corrected and approved as a rule."""
    from .. import shellguard

    guards = shellguard.load(str(paths.memdown_home()))
    if not guards:
        return None
    hit = shellguard.check(guards, tool, tool_input, os.path.realpath(root) if root is not None else "")
    if hit is None:
        return None
    return HookOutput("PreToolUse", permission=hit[0], permission_reason=hit[1])


HANDLERS: dict[str, Handler] = {
    "SessionStart": session_start,
    "UserPromptSubmit": user_prompt,
    "PostToolUseFailure": tool_failure,
    "PreToolUse": pre_tool_use,
}
# Events whose handler reads settings (the runner loads the config once, inside the time budget).
USES_CONFIG = ("SessionStart", "UserPromptSubmit", "PostToolUseFailure")
