"""The typed answer of a hook, and its JSON form as Claude Code reads it.

``additionalContext`` is named here and nowhere else, and it is built only from
:class:`memdown.fence.Gated` text: a raw string is refused (``TypeError``; the
runner then answers ``{}``), so nothing reaches the model without the gate.
The other clients' adapters (``clientwire``, ``gemini``) relay that same text, taken
from a built answer with :func:`relayed_context`, under the field their client reads.
"""
from __future__ import annotations

TYPE_CHECKING = False  # not `import typing` at run time: every hook pays for it
if TYPE_CHECKING:
    from typing import Any

CLAUDE_CODE_CAP = 10_000  # Claude Code's own limit for one hook's additionalContext
CONTEXT_FIELD = "additionalContext"  # the name Claude Code, Codex, Gemini CLI and Copilot CLI read it under


class HookOutput:
    """What one hook says: a status line for the user, context for the model, a permission decision.

    Empty fields are left out of the JSON; an empty output is ``{}``.
    A plain class, not a dataclass: importing dataclasses costs every hook several ms.
    """

    __slots__ = ("event", "system_message", "context", "permission", "permission_reason")

    def __init__(self, event: str, *, system_message: str = "", context: str = "", permission: str = "",
                 permission_reason: str = "") -> None:
        if context or system_message or permission_reason:  # fence only then: PreToolUse's {} path stays bare
            from ..fence import Gated, clean

            if context and not isinstance(context, Gated):
                raise TypeError("a hook's context must come from memdown.fence (fence, fence_lines, own_line, join)")
            system_message = clean(system_message)  # shown to the person: no escapes or invisible characters
            permission_reason = clean(permission_reason)  # the model reads it (an approved rule's words)
        self.event = event
        self.system_message = system_message
        self.context = context
        self.permission = permission
        self.permission_reason = permission_reason

    def __repr__(self) -> str:
        return f"HookOutput({self.to_json()!r})"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.system_message:
            out["systemMessage"] = self.system_message
        specific: dict[str, Any] = {}
        if self.context:
            specific[CONTEXT_FIELD] = _within_cap(self.context)
        if self.permission:
            specific["permissionDecision"] = self.permission
            specific["permissionDecisionReason"] = self.permission_reason
        if specific:
            out["hookSpecificOutput"] = {"hookEventName": self.event, **specific}
        return out


def relayed_context(answer: dict[str, Any]) -> str:
    """The model-facing context of an answer :meth:`HookOutput.to_json` built (fenced text), or ``""``:
    what a client adapter may pass on, and nothing else."""
    return str((answer.get("hookSpecificOutput") or {}).get(CONTEXT_FIELD) or "")


def _within_cap(context: str) -> str:
    """``context`` cut to Claude Code's cap after a whole fenced block, never inside one (a fence whose
    closing tag is cut off would leave the rest of the prompt looking like recorded notes)."""
    if len(context) <= CLAUDE_CODE_CAP:
        return context
    end = context.rfind("\n</memdown-recorded-notes", 0, CLAUDE_CODE_CAP)
    end = context.find("\n", end + 1) if end >= 0 else -1
    return context[:end] if 0 <= end <= CLAUDE_CODE_CAP else ""
