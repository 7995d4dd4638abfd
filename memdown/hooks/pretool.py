"""``memdown hook PreToolUse``: before every tool call, so it has its own short path.

``entry`` sends this event here before importing anything else: no ``pathlib``, no config, no
time-budget timer. What it does: allow memdown's read-only recall skill, and stop a Bash command or
an edit that breaks a guard (``shellguard``: rules approved on this machine). With no guard file
the answer is ``{}`` after one failed ``open``. The memory root is looked up only when a project's
guard matched. Any error answers ``{}`` (fail open); a stop is logged to ``logs/hooks.log``.
"""
from __future__ import annotations

import os
import sys
import time

from . import MAX_STDIN
from .output import HookOutput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# memdown's own read-only recall skill may run without a permission rule, when the file the client will load
# is the plugin's own (skillorigin); any other skill (and any other tool) is left to the user's settings.
RECALL_SKILL = "memdown:memory-recall"
MAX_COMMAND = 100_000  # longer commands (generated scripts) are not parsed within the budget: _too_long_to_parse


def answer(payload: dict[str, Any], root: Any = None, client: str = "") -> HookOutput | None:
    """The decision for one tool call; ``root`` is the memory root, or a function finding it.

    ``client`` is ``"codex"`` when Codex CLI asks (``memdown hook PreToolUse codex``): its ``apply_patch``
    is judged as an edit of each file it names, and an ``ask`` becomes a ``deny`` (Codex 0.171.0 refuses
    ``ask`` from PreToolUse and would run the call), the model getting the same reason either way.
    ``"gemini"`` (``memdown hook BeforeTool gemini``): the payload is already in memdown's terms
    (``hooks.gemini.in_memdown_terms``) and the answer is put in Gemini's by ``main``."""
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    tool = str(payload.get("tool_name") or "")
    if tool == "apply_patch":  # Codex's, and any client's patch tool (hooks.clientwire names them)
        return _patch(payload, tool_input, root, client)
    if tool == "Skill" and not client:  # Claude Code's plugin skill only; another client's tool of that name is not it
        if tool_input.get("skill") != RECALL_SKILL:
            return None
        from .skillorigin import why_not_ours

        reason = why_not_ours(payload)  # by identity, not by name
        if reason:
            _log(payload, f"no allow for {RECALL_SKILL}: {reason}")
            return None
        return HookOutput("PreToolUse", permission="allow", permission_reason="memdown: read-only memory recall")
    command = tool_input.get("command")
    if isinstance(command, str) and len(command) > MAX_COMMAND:
        return _too_long_to_parse(payload, command, client)
    from .. import shellguard
    from ..envflags import memdown_home_dir

    # Another client's shell (Codex, Gemini, Copilot, Cursor, OpenCode; Claude Code's recall skill has its own
    # Bash rules): a PERSON command is refused by what it runs, not by the environment the agent may have cleared.
    person = shellguard.person_command(command) if client and tool == "Bash" and isinstance(command, str) else ""
    if person:
        return HookOutput("PreToolUse", permission="deny", permission_reason=(
            f"memdown: `memdown {person}` changes a person's settings, rules or approvals; an agent never runs it. "
            "Tell the user the exact command to run in their own terminal."))

    guards = shellguard.load(memdown_home_dir())
    if not guards:
        return None
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else ""
    hit = shellguard.check(guards, tool, tool_input, root if root is not None else _root_finder(payload), cwd,
                           _rule_stands(payload))
    if hit is None:
        return None
    return HookOutput("PreToolUse", permission="deny" if client == "codex" else hit[0], permission_reason=hit[1])


def _too_long_to_parse(payload: dict[str, Any], command: str, client: str) -> HookOutput | None:
    """A command too long to parse in the hook's budget is not waved through when it could be what a rule
    forbids: padding (``git push --force`` then 100,000 blanks) must not buy a pass. When it names a program or
    path a guard of this machine watches (or, in another client's shell, memdown), a person decides (Codex:
    denied, it refuses ``ask``); a long command that names none passes, as before; both are logged."""
    from .. import shellguard
    from ..envflags import memdown_home_dir

    folded = command.casefold()
    named = {"memdown"} if client and "memdown" in folded else set()  # PERSON commands: other clients' shells
    live = _rule_stands(payload)
    for guard in shellguard.load(memdown_home_dir()):
        words = {str((rule.get("argv") or [""])[0]) for rule in guard.get("forbid") or ()}
        words |= {str(rule.get("program") or "") for rule in guard.get("require") or ()}
        words |= {_literal_part(str(path)) for path in guard.get("paths") or ()}
        hits = {w for w in words if w and w.casefold() in folded}
        if hits and live(guard):  # a rule a person took back stops nothing, here too
            named |= hits
    if not named:
        _log(payload, f"a {len(command):,}-character command not checked (over {MAX_COMMAND:,}): "
                      "it names no guarded program")
        return None
    shown = ", ".join(sorted(named))
    _log(payload, f"a {len(command):,}-character command names {shown}: a person decides")
    return HookOutput("PreToolUse", permission="deny" if client == "codex" else "ask", permission_reason=(
        f"memdown: this command is {len(command):,} characters long, too long to check against your rules "
        f"(limit {MAX_COMMAND:,}), and it mentions {shown}, which a rule or memdown itself watches. Check it "
        "before it runs; a shorter command or a script file is checked as usual."))


def _literal_part(pattern: str) -> str:
    """The longest run of a path pattern's last component that a command naming the path must contain
    (``*.lock`` -> ``.lock``)."""
    last = pattern.rstrip("/").rsplit("/", 1)[-1]
    for glob in "*?[]":
        last = last.replace(glob, "\0")
    return max(last.split("\0"), key=len)


def _rule_stands(payload: dict[str, Any]):
    """``shellguard.check``'s ``live``: a guard whose rule a person deleted or rewrote stops nothing (logged)."""
    def live(guard: dict[str, Any]) -> bool:
        from ..shellguard import still_written

        if still_written(guard):
            return True
        _log(payload, f"guard {guard.get('id')}: its rule is no longer in an instruction file as approved "
                      "(taken back by a person); not applied")
        return False
    return live


_PATCH_FILE = "*** "  # "*** Update File: path" lines of Codex's apply_patch format


def _patch(payload: dict[str, Any], tool_input: dict[str, Any], root: Any, client: str) -> HookOutput | None:
    """An ``apply_patch`` judged as an ``Edit`` of every file it adds, updates, deletes or moves to."""
    patch = next((v for v in tool_input.values() if isinstance(v, str) and _PATCH_FILE in v), "")
    cwd = str(payload.get("cwd") or "")
    for line in patch.splitlines():
        for head in ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "):
            if line.startswith(head):
                path = os.path.join(cwd, line[len(head):].strip())
                decided = answer({**payload, "tool_name": "Edit", "tool_input": {"file_path": path}}, root, client)
                if decided is not None:
                    return decided
    return None


def _root_finder(payload: dict[str, Any]):
    def find() -> str:
        from .where import root_path

        found = root_path(payload)
        return os.path.realpath(found) if found is not None else ""

    return find


def main(client: str = "") -> int:
    started = time.perf_counter()
    out: dict[str, Any] = {}
    try:
        from ..envflags import in_summarizer, memdown_disabled

        stdin = sys.stdin
        raw = b"" if memdown_disabled() or in_summarizer() or stdin is None or stdin.isatty() \
            else stdin.buffer.read(MAX_STDIN + 1)
        if len(raw) > MAX_STDIN and _guards_exist():  # not cut (hooks.MAX_STDIN): fail open, logged
            from . import too_big

            _log({}, too_big())
            raw = b""
        if raw and ((b'"Skill"' in raw and not client) or (client and b"memdown" in raw) or _guards_exist()):  # else nothing to decide: not even json is imported
            from ..wirejson import loads  # json's own C codec without `import json` (no re, no enum)

            payload = sent = loads(raw.decode("utf-8", "replace") or "{}")
            wire = False
            if client:  # another client's hook: Claude Code's own path never loads the wire adapter
                from .clientwire import CLIENTS

                wire = client in CLIENTS
            if wire and isinstance(sent, dict):
                from .clientwire import to_memdown

                payload = to_memdown(client, "PreToolUse", sent)
            decided = answer(payload, client=client) if isinstance(payload, dict) else None
            out = decided.to_json() if decided is not None else {}
            if wire and isinstance(sent, dict):
                from .clientwire import to_client

                out = to_client(client, "PreToolUse", out, sent)
            if out and decided is not None and decided.permission != "allow":
                _log(payload, f"{decided.permission} {1000 * (time.perf_counter() - started):.0f}ms: "
                              f"{decided.permission_reason[:200]}")
    except BaseException as exc:  # fail open, whatever happened; logged in the hook's own folder's project
        out = {}
        _log({}, f"error {type(exc).__name__}: {str(exc)[:300]}")
    try:
        if out:
            from ..wirejson import dumps

            sys.stdout.write(dumps(out) + "\n")
        else:
            sys.stdout.write("{}\n")
        sys.stdout.flush()
    except Exception:
        pass
    return 0


def _guards_exist() -> bool:
    from .. import shellguard
    from ..envflags import memdown_home_dir

    return os.path.exists(shellguard.guard_path(memdown_home_dir()))


def _log(payload: dict[str, Any], message: str) -> None:
    try:
        from ..pathstr import private_umask
        from .where import log_line, root_path

        private_umask()
        log_line(root_path(payload), "PreToolUse", message)
    except Exception:
        pass
