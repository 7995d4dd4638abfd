"""Gemini CLI's hooks in memdown's terms: ``memdown hook EVENT gemini`` (``memdown install gemini``).

Gemini CLI 0.61.0 (its bundled ``HookEventHandler``/``HookRunner``, geminicli.com/docs/hooks/reference)
sends every hook ``session_id``, ``transcript_path`` (the session's chat file), ``cwd``,
``hook_event_name`` and ``timestamp``, plus per event: SessionStart ``source``; BeforeAgent ``prompt``;
AfterAgent ``prompt``, ``prompt_response``, ``stop_hook_active``; BeforeTool ``tool_name``,
``tool_input``; PreCompress ``trigger``; SessionEnd ``reason``. It reads ``systemMessage``,
``hookSpecificOutput.additionalContext`` (SessionStart, BeforeAgent: the CLI escapes ``<``/``>`` in it and
wraps it in ``<hook_context>``) and, for BeforeTool, a top-level ``decision`` (``deny``/``block``/``ask``)
with its ``reason``; memdown answers ``deny`` for a guard's ``ask`` too (a headless session cannot be asked). Each event is answered by the handler of its Claude Code twin.

Standard library only, nothing imported at module level: the hook runner and the BeforeTool fast path use it.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CLIENT = "gemini"
# Gemini CLI event (lower case, as the runner normalizes names) -> the memdown handler that answers it.
EVENTS = {"beforeagent": "UserPromptSubmit", "afteragent": "Stop", "precompress": "PreCompact",
          "beforetool": "PreToolUse"}
NAMES = {"UserPromptSubmit": "BeforeAgent", "Stop": "AfterAgent", "PreCompact": "PreCompress",
         "PreToolUse": "BeforeTool"}
# Gemini CLI's built-in tools -> the names memdown's guards judge (clients/common.py reads its logs alike).
TOOLS = {"run_shell_command": "Bash", "write_file": "Write", "replace": "Edit"}


def in_memdown_terms(payload: dict[str, Any]) -> dict[str, Any]:
    """A Gemini payload with the fields memdown's handlers read (the original ones kept)."""
    out = dict(payload)
    prompt = out.get("prompt")
    if isinstance(prompt, str) and "<hook_context>" in prompt:  # headless: the SessionStart context, not typed
        from ..fence import without_hook_context

        out["prompt"] = without_hook_context(prompt)
    if isinstance(out.get("prompt_response"), str):
        out.setdefault("last_assistant_message", out["prompt_response"])
    tool = out.get("tool_name")
    tool_input = out.get("tool_input")
    if isinstance(tool, str) and tool in TOOLS and isinstance(tool_input, dict):
        out["tool_name"] = TOOLS[tool]
        out["tool_input"] = _tool_input(TOOLS[tool], tool_input, str(out.get("cwd") or ""))
        folder = tool_input.get("dir_path", tool_input.get("directory"))
        if TOOLS[tool] == "Bash" and isinstance(folder, str) and folder:
            import os

            out["cwd"] = os.path.join(str(out.get("cwd") or ""), folder)  # the folder the command runs in
    return out


def _tool_input(tool: str, tool_input: dict[str, Any], cwd: str) -> dict[str, Any]:
    if tool == "Bash":
        return {"command": tool_input.get("command")}
    path = tool_input.get("file_path", tool_input.get("absolute_path"))
    if not isinstance(path, str):
        return {}
    import os

    return {"file_path": os.path.join(cwd, path)}  # a relative path is the project's


def answer(out: dict[str, Any]) -> dict[str, Any]:
    """A Claude Code-shaped hook answer (``HookOutput.to_json``) in the form Gemini CLI reads."""
    if not out:
        return out
    gemini: dict[str, Any] = {}
    if out.get("systemMessage"):
        gemini["systemMessage"] = out["systemMessage"]
    specific = out.get("hookSpecificOutput") or {}
    event = str(specific.get("hookEventName") or "")
    from .output import CONTEXT_FIELD, relayed_context  # only when there is an answer: capture hooks never load it

    context = relayed_context(out)
    if context:
        gemini["hookSpecificOutput"] = {"hookEventName": NAMES.get(event, event), CONTEXT_FIELD: context}
    if specific.get("permissionDecision") in ("deny", "ask"):  # allow is Gemini's default: said by saying nothing
        # An ask becomes a deny: 0.61.0 turns a hook's ask into a confirmation even under --yolo, and a headless
        # `gemini -p` then waits for it forever (tests/e2e/test_gemini.py). The reason says how to ask the person.
        gemini["decision"] = "deny"
        gemini["reason"] = str(specific.get("permissionDecisionReason") or "memdown guard")
    return gemini
