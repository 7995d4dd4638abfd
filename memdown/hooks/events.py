"""The hook table: each Claude Code event is one service call, answered as a ``HookOutput``.

``handler(payload, root, config) -> HookOutput``: ``root`` is the memory root as a string (``pathstr``),
``config`` is loaded once by the runner (``None`` for events that need none). The capture events (Stop,
PreCompact, SessionEnd) are not here: the runner queues their job directly (``hooks.detach``) before any
other import. UserPromptSubmit, on every prompt, works on the string; the others take a ``Path`` of it.
"""
from __future__ import annotations

import os

from .output import HookOutput

TYPE_CHECKING = False  # not `import typing` at run time: every hook pays for it
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Callable

    from ..config import Config

    Handler = Callable[[dict[str, Any], str | None, Config | None], HookOutput | None]


def _as_path(root: str | None) -> Path | None:
    """The root as a ``Path``, for the handlers whose services work with one (not the prompt's: no pathlib)."""
    if root is None:
        return None
    from pathlib import Path

    return Path(root)


def shown_as(root: str | os.PathLike[str]) -> str:
    """The root as the user sees it: relative to the session's folder when inside it (``Path.relative_to``)."""
    root = os.fspath(root)
    here = os.getcwd()
    if root == here:
        return "."
    inside = here.rstrip(os.sep) + os.sep
    return root[len(inside):] if root.startswith(inside) else root


def client_of(payload: dict[str, Any]) -> str:
    """Whose model reads the answer: ``gemini`` (its adapter says so), ``codex`` (the session log is a rollout:
    Codex sends Claude Code's wire format, ``memdown hook EVENT``), ``other`` (a client memdown gives no skill),
    else ``claude``. Chooses how memdown's recall is named (``services.clients.skill_identity``)."""
    if payload.get("memdown_no_skill"):
        return "other"
    if payload.get("memdown_client"):
        return str(payload["memdown_client"])
    return "codex" if os.path.basename(str(payload.get("transcript_path") or "")).startswith("rollout-") else "claude"


def session_start(payload: dict[str, Any], root: str | None, config: Config | None) -> HookOutput | None:
    root = _as_path(root)
    if root is None or config is None:
        return None
    from ..services.recall.session import RECALL_BY_COMMAND, RECALL_BY_SKILL, session_brief

    client = client_of(payload)
    recall, warning = {"other": (RECALL_BY_COMMAND, ""), "claude": (RECALL_BY_SKILL, "")}.get(client, ("", ""))
    if not recall:  # Codex, Gemini CLI: memdown's skill is the file it installed, if a repository's has its name
        from ..services.clients.skill_identity import recall_for

        recall, warning = recall_for(client, payload, root)
    brief = session_brief(root, config, shown_as=shown_as(root),
                          transcript_path=str(payload.get("transcript_path") or ""),
                          session_id=str(payload.get("session_id") or ""), recall_line=recall)
    status = f"{brief.status}; {warning}" if warning and brief.status else brief.status
    return HookOutput("SessionStart", system_message=status, context=brief.context)


def user_prompt(payload: dict[str, Any], root: str | None, config: Config | None) -> HookOutput | None:
    from .. import pathstr

    prompt = payload.get("prompt")
    if root is None or config is None or not isinstance(prompt, str) or not pathstr.is_dir(pathstr.daily_dir(root)):
        return None
    from ..services.recall.prompt import RECALL_HINT_CLAUDE, RECALL_HINT_SHELL, prompt_hint

    claude = client_of(payload) == "claude"
    hint = prompt_hint(root, config, prompt=prompt, session_id=str(payload.get("session_id") or ""),
                       shown_as=shown_as(root), recall_with=RECALL_HINT_CLAUDE if claude else RECALL_HINT_SHELL)
    return HookOutput("UserPromptSubmit", context=hint)


def tool_failure(payload: dict[str, Any], root: str | None, config: Config | None) -> HookOutput | None:
    root = _as_path(root)
    if root is None or config is None or payload.get("is_interrupt") or not root.is_dir():
        return None
    from ..services.recall.session import failure_note

    return HookOutput("PostToolUseFailure", context=failure_note(root, config, payload))


def pre_tool_use(payload: dict[str, Any], root: str | None, config: Config | None) -> HookOutput | None:
    """The recall skill's allow and the guards (``hooks.pretool``, which ``entry`` also calls directly)."""
    from .pretool import answer

    return answer(payload, os.path.realpath(root) if root is not None else "")


HANDLERS: dict[str, Handler] = {
    "SessionStart": session_start,
    "UserPromptSubmit": user_prompt,
    "PostToolUseFailure": tool_failure,
    "PreToolUse": pre_tool_use,
}
# Events whose handler reads settings (the runner loads the config once, inside the time budget).
USES_CONFIG = ("SessionStart", "UserPromptSubmit", "PostToolUseFailure")
