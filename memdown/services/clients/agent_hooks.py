"""``memdown install copilot|cursor`` / ``uninstall``: memdown's hook commands in GitHub Copilot CLI's and
Cursor's hook files.

Both clients read ``{"version": 1, "hooks": {event: [entry, …]}}`` with flat entries (no matcher groups):
- Copilot CLI: every ``*.json`` in the repository's ``.github/hooks/`` and in ``$COPILOT_HOME/hooks/``
  (``~/.copilot/hooks``), all run; an entry is ``{"type": "command", "bash": …, "timeoutSec": …}``.
  memdown writes its own file there, ``memdown.json``.
- Cursor: ``.cursor/hooks.json`` in the repository and ``~/.cursor/hooks.json``; an entry is
  ``{"command": …, "timeout": …, "matcher"?: …}``. memdown adds its entries to that one shared file.

OpenCode takes JavaScript plugins, not hook commands: memdown writes its own plugin file, ``memdown.js``, in
``.opencode/plugins/`` or ``$XDG_CONFIG_HOME/opencode/plugins/`` (``~/.config/opencode/plugins``), files
OpenCode loads at start (opencode.ai/docs/plugins); it calls ``memdown hook PreToolUse opencode`` before each
``bash``, ``edit``, ``write``, ``multiedit`` and patch (``patch``/``apply_patch``) call and throws the guard's
reason back, and ``memdown hook Stop opencode`` when a session goes idle (capture of that session from
OpenCode's database).

An entry is memdown's when its command is ``memdown hook EVENT CLIENT`` (any path to memdown); every other
entry and key is kept as it was. Installing twice changes nothing; uninstall removes what install wrote,
and the file too when install created it and nothing else is in it. What each event answers:
``hooks.clientwire`` (the payloads and answers, with the vendors' documents it was checked against).
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ... import fsutil, paths
from ...errors import InputFileError
from .codex_setup import OURS_PREFIX, edit_settings, in_project, memdown_program, write_own_file


@dataclass(frozen=True)
class Hook:
    client_event: str  # the client's name for the event
    event: str  # memdown's (``memdown hook EVENT``)
    timeout: int
    matcher: str = ""


# Copilot CLI: userPromptSubmitted's answer is not read (no pointers there); postToolUse is not needed (capture
# reads the session's events file).
COPILOT = (
    Hook("sessionStart", "SessionStart", 15),
    Hook("preToolUse", "PreToolUse", 10, "bash|powershell|edit|create|str_replace_editor|apply_patch"),
    Hook("preCompact", "PreCompact", 30),
    Hook("agentStop", "Stop", 30),
    Hook("sessionEnd", "SessionEnd", 5),
)
# Cursor: beforeSubmitPrompt cannot add context; afterFileEdit is not needed (capture reads the transcript).
CURSOR = (
    Hook("sessionStart", "SessionStart", 15),
    Hook("beforeShellExecution", "PreToolUse", 10),
    Hook("preToolUse", "PreToolUse", 10, "Write|StrReplace|Delete|EditNotebook|ApplyPatch"),
    Hook("stop", "Stop", 30),
    Hook("sessionEnd", "SessionEnd", 5),
)
HOOKS = {"copilot": COPILOT, "cursor": CURSOR}
_COMMAND_KEY = {"copilot": "bash", "cursor": "command"}
_OURS = re.compile(OURS_PREFIX + r" (?P<client>copilot|cursor)\s*$")


@dataclass
class HookFileReport:
    hooks_file: Path
    skill_file: Path | None = None  # neither client gets a skill from memdown
    changes: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def hooks_file(client: str, project: bool, start: Path | None = None) -> Path:
    homes = paths.agent_homes()
    if project:
        return in_project(start, ".github", "hooks", "memdown.json") if client == "copilot" else \
            in_project(start, ".cursor", "hooks.json")
    return homes["copilot"] / "hooks" / "memdown.json" if client == "copilot" else homes["cursor"] / "hooks.json"


def hook_command(client: str, project: bool, event: str) -> str:
    return f"{shlex.quote(memdown_program(project))} hook {event} {client}"


def _entry(client: str, project: bool, hook: Hook) -> dict:
    command = hook_command(client, project, hook.event)
    if client == "copilot":
        entry: dict = {"type": "command", "bash": command, "timeoutSec": hook.timeout}
    else:
        entry = {"command": command, "timeout": hook.timeout}
    return {**entry, **({"matcher": hook.matcher} if hook.matcher else {})}


def is_ours(client: str, entry: object) -> bool:
    command = entry.get(_COMMAND_KEY[client]) if isinstance(entry, dict) else None
    match = _OURS.match(command) if isinstance(command, str) else None
    return match is not None and match["client"] == client


def _entries(data: dict, event: str) -> list:
    entries = data["hooks"].setdefault(event, [])
    if not isinstance(entries, list):
        raise InputFileError(f"hooks.{event} is not a list; memdown changed nothing")
    return entries


def install(client: str, project: bool = False, start: Path | None = None) -> HookFileReport:
    """memdown's hook entries in ``client``'s user (or project) hook file; idempotent."""
    report = HookFileReport(hooks_file(client, project, start))
    changed, _ = edit_settings(report.hooks_file, lambda data: _add(client, project, data))
    if changed:
        report.changes.append(f"hooks for {', '.join(changed)} in {report.hooks_file}")
    return report


def _add(client: str, project: bool, data: dict) -> list[str]:
    data.setdefault("version", 1)
    data.setdefault("hooks", {})
    changed = []
    for event in dict.fromkeys(h.client_event for h in HOOKS[client]):
        wanted = [_entry(client, project, h) for h in HOOKS[client] if h.client_event == event]
        entries = _entries(data, event)
        if [e for e in entries if is_ours(client, e)] == wanted:
            continue
        entries[:] = [e for e in entries if not is_ours(client, e)] + wanted
        changed.append(event)
    return changed


def _drop(client: str, data: dict) -> list[str]:
    hooks = data.get("hooks") or {}
    removed = []
    for event in dict.fromkeys(h.client_event for h in HOOKS[client]):
        entries = hooks.get(event)
        if not isinstance(entries, list) or not any(is_ours(client, e) for e in entries):
            continue
        entries[:] = [e for e in entries if not is_ours(client, e)]
        removed.append(event)
        if not entries:
            del hooks[event]
    return removed


def uninstall(client: str, project: bool = False, start: Path | None = None) -> HookFileReport:
    """Remove exactly memdown's entries; the file goes too when nothing of anyone else's is left in it."""
    report = HookFileReport(hooks_file(client, project, start))
    removed, data = edit_settings(report.hooks_file, lambda data: _drop(client, data))
    if removed and data == {"version": 1, "hooks": {}}:
        fsutil.unlink(report.hooks_file)
        report.changes.append(f"removed {report.hooks_file} (memdown's hooks only)")
    elif removed:
        report.changes.append(f"removed hooks for {', '.join(removed)} from {report.hooks_file}")
    return report


PLUGIN_MARK = "// memdown: the guard plugin for OpenCode; `memdown uninstall opencode` removes this file"
_PLUGIN = """{mark}
// Before each bash, edit, write and patch call, memdown's guards (rules a person approved on this machine) may stop it:
// the call is refused with the rule as its reason. When a session goes idle, memdown records its turns.
// Any failure of memdown lets the session go on as if it were not there (fail open).
import {{ spawnSync }} from "node:child_process";

const MEMDOWN = {memdown};
const TOOLS = new Set(["bash", "edit", "write", "multiedit", "patch", "apply_patch"]);

function ask(event, payload) {{
  try {{
    const run = spawnSync(MEMDOWN, ["hook", event, "opencode"], {{ input: JSON.stringify(payload), encoding: "utf8", timeout: 10000 }});
    return JSON.parse(run.stdout || "{{}}");
  }} catch {{
    return {{}};
  }}
}}

export const MemdownPlugin = async ({{ directory }}) => ({{
  "tool.execute.before": async (input, output) => {{
    if (!TOOLS.has(input.tool)) return;
    const answer = ask("PreToolUse", {{ sessionID: input.sessionID, tool: input.tool, args: output.args, directory }});
    if (answer.decision === "deny") throw new Error(answer.reason || "memdown guard");
  }},
  event: async ({{ event }}) => {{
    // The session's turns so far go into memdown's daily log (a detached job; this returns at once).
    if (event.type === "session.idle") ask("Stop", {{ sessionID: event.properties?.sessionID, directory }});
  }},
}});
"""


def plugin_file(project: bool, start: Path | None = None) -> Path:
    if project:
        return in_project(start, ".opencode", "plugins", "memdown.js")
    import os

    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return config / "opencode" / "plugins" / "memdown.js"


def plugin_text(project: bool) -> str:
    import json

    return _PLUGIN.format(mark=PLUGIN_MARK, memdown=json.dumps(memdown_program(project)))


def install_plugin(project: bool = False, start: Path | None = None) -> HookFileReport:
    """memdown's OpenCode plugin file; a file of that name memdown did not write is left alone."""
    report = HookFileReport(plugin_file(project, start))
    write_own_file(report, report.hooks_file, plugin_text(project), PLUGIN_MARK, "the memdown plugin")  # type: ignore[arg-type]
    return report


def uninstall_plugin(project: bool = False, start: Path | None = None) -> HookFileReport:
    """Remove the plugin file memdown wrote (one a person edited is kept and named)."""
    report = HookFileReport(plugin_file(project, start))
    if not report.hooks_file.exists():
        return report
    if fsutil.read_text(report.hooks_file) == plugin_text(project):
        fsutil.unlink(report.hooks_file)
        report.changes.append(f"removed the memdown plugin ({report.hooks_file})")
    else:
        report.kept.append(f"{report.hooks_file} (not the file memdown wrote: left for you)")
    return report
