"""GitHub Copilot CLI's and Cursor's hook wire formats ↔ memdown's own (Claude Code's) hook payload and answer.

``memdown hook EVENT CLIENT`` reads the client's payload, turns it into the payload memdown's handlers
take (``session_id``, ``cwd``, ``transcript_path``, ``prompt``, ``tool_name`` and ``tool_input`` with
Claude Code's tool names), runs the one handler, and turns its answer (``HookOutput.to_json``: only
``additionalContext`` that came through the fence, a permission decision) into the shape that client
reads. Nothing else is answered: an event the client gives no model-facing answer for gets ``{}``.

Sources (checked 2026-11-27; docs/clients/copilot.md and cursor.md cite them):
- Copilot CLI: docs.github.com "GitHub Copilot hooks reference" (github/docs
  content/copilot/reference/hooks-reference.md): camelCase events, payload ``sessionId``, ``cwd``,
  ``transcriptPath`` (agentStop, preCompact), ``toolName``/``toolArgs``; answers ``additionalContext``
  (sessionStart), ``permissionDecision`` allow|deny|ask + ``permissionDecisionReason`` (preToolUse).
  The real hook inputs recorded in ../shared/agents (``hook.start`` events, cli 1.0.x) carry the same
  camelCase fields with ``toolArgs`` an object.
- Cursor: payload ``conversation_id``, ``session_id`` (sessionStart/End), ``workspace_roots``,
  ``transcript_path``; ``beforeShellExecution`` gives ``command``/``cwd`` and takes ``permission``
  allow|deny|ask with ``user_message``/``agent_message``; ``preToolUse`` gives ``tool_name``/``tool_input``
  (``Shell``, ``Write``, ``StrReplace``, ``Delete`` with ``path``, as in the real agent transcripts) and takes
  ``permission`` allow|deny; ``sessionStart`` takes ``additional_context``.
- OpenCode: memdown's own plugin (``services.agent_hooks.PLUGIN``) sends ``tool.execute.before``'s
  ``input.tool``/``output.args`` (``bash`` {command}, ``edit``/``write`` {filePath}) and throws the reason
  it gets back (opencode.ai/docs/plugins: throwing in ``tool.execute.before`` stops the call).

Standard library only, nothing at import time: it runs on the hook's fast path.
"""
from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CLIENTS = ("copilot", "cursor", "gemini", "opencode")  # Gemini CLI's wire: hooks/gemini.py
PATCH = "apply_patch"  # judged as an edit of every file the patch names (hooks/pretool.py), in any client
# The client's tool name -> memdown's tool. Each client has spelled the same tool differently across versions
# (the real logs in ../shared/agents: Cursor's older write/search_replace, Copilot's and Cursor's apply_patch
# for GPT models), so the command or the edited path is taken from whichever of the known keys holds it.
_TOOLS: dict[str, dict[str, str]] = {
    "copilot": {"bash": "Bash", "powershell": "Bash", "edit": "Edit", "create": "Write",
                "str_replace_editor": "Edit", "apply_patch": PATCH},
    "opencode": {"bash": "Bash", "edit": "Edit", "write": "Write", "multiedit": "Edit", "patch": PATCH,
                 "apply_patch": PATCH},
    "cursor": {"Shell": "Bash", "run_terminal_cmd": "Bash", "Write": "Write", "write": "Write", "StrReplace": "Edit",
               "search_replace": "Edit", "Delete": "Edit", "EditNotebook": "Edit", "ApplyPatch": PATCH},
}
_COMMAND_KEYS = ("command", "cmd")
_PATH_KEYS = ("path", "file_path", "filePath", "target_notebook", "notebook_path")
_PATCH_START = "*** Begin Patch"


def to_memdown(client: str, event: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The client's hook payload as the one memdown's handlers read (Claude Code's field names)."""
    if client == "gemini":
        from .gemini import in_memdown_terms

        return {**in_memdown_terms(payload), "memdown_client": "gemini"}  # services.clients.skill_identity
    if client == "opencode":
        return _from_opencode(event, payload)
    # memdown gives Copilot CLI and Cursor no recall skill: the digest names the shell command instead.
    translated = _from_copilot(event, payload) if client == "copilot" else _from_cursor(event, payload)
    return {**translated, "memdown_no_skill": True}


def _tool(client: str, name: Any, args: Any) -> tuple[str, dict[str, Any]]:
    patch = _patch_text(args)
    if patch:  # a patch is judged by what it is, whatever the tool carrying it is called
        return PATCH, {"input": patch}
    if isinstance(args, str):  # older Copilot builds send toolArgs as a JSON string
        import json

        try:
            args = json.loads(args)
        except ValueError:
            args = {}
    args = args if isinstance(args, dict) else {}
    tool = _TOOLS[client].get(str(name or ""))
    if tool is None:
        return str(name or ""), args
    if tool == PATCH:
        return tool, args
    keys = _COMMAND_KEYS if tool == "Bash" else _PATH_KEYS
    value = next((args[k] for k in keys if isinstance(args.get(k), str) and args[k]), None)
    if value is None:
        return tool, {}
    return tool, {"command": value} if tool == "Bash" else {"file_path": value}


def _patch_text(args: Any) -> str:
    """The apply_patch text a tool call carries (the raw argument, or one of its string fields), else ''."""
    values = args.values() if isinstance(args, dict) else (args,)
    return next((v for v in values if isinstance(v, str) and v.lstrip().startswith(_PATCH_START)), "")


def _from_copilot(event: str, payload: dict[str, Any]) -> dict[str, Any]:
    session = str(payload.get("sessionId") or payload.get("session_id") or "")
    out: dict[str, Any] = {"session_id": session, "cwd": payload.get("cwd"), "hook_event_name": event}
    transcript = payload.get("transcriptPath") or payload.get("transcript_path")
    if not transcript and session and event in ("SessionEnd", "Stop", "PreCompact"):
        transcript = _copilot_events_file(session)  # sessionEnd names no transcript: the session's own events file
    if transcript:
        out["transcript_path"] = transcript
    if isinstance(payload.get("prompt"), str):
        out["prompt"] = payload["prompt"]
    if event == "PreToolUse":
        out["tool_name"], out["tool_input"] = _tool("copilot", payload.get("toolName"), payload.get("toolArgs"))
    return out


def _copilot_events_file(session: str) -> str:
    if not session.replace("-", "").replace("_", "").isalnum():  # an id, never a path
        return ""
    home = os.environ.get("COPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".copilot")
    path = os.path.join(home, "session-state", session, "events.jsonl")
    return path if os.path.isfile(path) else ""


def _from_cursor(event: str, payload: dict[str, Any]) -> dict[str, Any]:
    transcript = payload.get("transcript_path")
    transcript = transcript if isinstance(transcript, str) and transcript else ""
    # The session is the transcript's uuid (what `memdown import` of the same file uses), else Cursor's ids.
    session = os.path.splitext(os.path.basename(transcript))[0] if transcript else \
        str(payload.get("conversation_id") or payload.get("session_id") or "")
    roots = payload.get("workspace_roots")
    cwd = payload.get("cwd") or (roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str)
                                 else os.environ.get("CURSOR_PROJECT_DIR"))
    out: dict[str, Any] = {"session_id": session, "cwd": cwd, "hook_event_name": event}
    if transcript:
        out["transcript_path"] = transcript
    if event == "PreToolUse":
        if isinstance(payload.get("command"), str):  # beforeShellExecution
            out["tool_name"], out["tool_input"] = "Bash", {"command": payload["command"]}
        else:  # preToolUse
            out["tool_name"], out["tool_input"] = _tool("cursor", payload.get("tool_name"), payload.get("tool_input"))
    return out


def _from_opencode(event: str, payload: dict[str, Any]) -> dict[str, Any]:
    """What memdown's OpenCode plugin sends: ``{sessionID, directory, tool, args}`` (``tool.execute.before``'s
    ``input.sessionID``/``input.tool`` and ``output.args``, the plugin context's ``directory``); on
    ``session.idle`` ``{sessionID, directory}``, captured from OpenCode's database."""
    out: dict[str, Any] = {"session_id": str(payload.get("sessionID") or ""), "cwd": payload.get("directory"),
                           "hook_event_name": event}
    if event == "PreToolUse":
        out["tool_name"], out["tool_input"] = _tool("opencode", payload.get("tool"), payload.get("args"))
    elif out["session_id"].startswith("ses_") and out["session_id"][4:].isalnum():  # an id, never a path
        database = _opencode_database()
        if database:  # the reader takes this session alone from it (clients.opencode.parse_database)
            out["transcript_path"] = database
    return out


def _opencode_database() -> str:
    """OpenCode's SQLite store (1.2 on): ``$XDG_DATA_HOME/opencode/opencode.db``."""
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    path = os.path.join(data, "opencode", "opencode.db")
    return path if os.path.isfile(path) else ""


def to_client(client: str, event: str, answer: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    """memdown's answer (Claude Code's JSON) in the shape ``client`` reads for ``event``; ``{}`` when it reads none."""
    if client == "gemini":
        from .gemini import answer as in_gemini_terms

        return in_gemini_terms(answer)
    if not answer:  # capture hooks answer {}: they never load the answer module
        return {}
    from .output import CONTEXT_FIELD, relayed_context

    specific = answer.get("hookSpecificOutput") or {}
    context = relayed_context(answer)
    decision = specific.get("permissionDecision")
    reason = specific.get("permissionDecisionReason") or ""
    if client == "opencode":  # the plugin throws the reason (its only way to stop a call): an ask stops it too
        return {"decision": "deny", "reason": reason} if event == "PreToolUse" and decision else {}
    if client == "copilot":
        if event == "SessionStart" and context:
            return {CONTEXT_FIELD: context}
        if event == "PreToolUse" and decision:
            return {"permissionDecision": decision, "permissionDecisionReason": reason}
        return {}
    if event == "SessionStart" and context:
        return {"additional_context": context}
    if event == "PreToolUse" and decision:
        if decision == "ask" and not isinstance(payload.get("command"), str):
            decision = "deny"  # Cursor's preToolUse takes allow|deny; the reason says how to ask the person
        return {"permission": decision, "user_message": reason, "agent_message": reason}
    return {}
