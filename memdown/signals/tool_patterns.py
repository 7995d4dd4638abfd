"""Tool-call patterns: what happened, not what was said.

The same tool failing twice in a row, one file edited 3+ times in a row, 3+
empty searches before a hit; and, for a failure, the later calls that fixed
it. Standard library only.
"""
from __future__ import annotations

import re

from .store import Signal
from .text import one_line

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit", "str_replace_editor",
                        "str_replace_based_edit_tool"})
SEARCH_TOOLS = frozenset({"Grep", "Glob", "LS"})
SEARCH_COMMANDS = frozenset({"grep", "rg", "ag", "ack", "find", "fd", "locate", "egrep", "fgrep"})


def _bash_head(command: str) -> str:
    command = re.sub(r"^(?:\s*cd\s+\S+\s*(?:&&|;)\s*)+", "", command or "")
    words = [w for w in command.split() if "=" not in w or w.startswith("-")]
    return " ".join(words[:2])


def _heads(command: str) -> set[str]:
    """The program of each part of a compound command (``a && b | c``), ``cd`` excluded."""
    heads = set()
    for part in re.split(r"&&|\|\||[;|]", command or ""):
        words = [w for w in part.split() if "=" not in w or w.startswith("-")]
        if words and words[0] not in ("cd", "sudo", "time", "env"):
            heads.add(words[0])
        elif len(words) > 1 and words[0] in ("sudo", "time", "env"):
            heads.add(words[1])
    return heads


def _is_search(call) -> bool:
    if call.name in SEARCH_TOOLS:
        return True
    if call.name == "Bash":
        head = _bash_head(str(call.input.get("command", ""))).split()
        return bool(head) and (head[0] in SEARCH_COMMANDS or head[:2] == ["git", "grep"])
    return False


_REJECTED = ("the user doesn't want to proceed", "the user doesn't want to take this action",   # older clients' wording
             "permission for this tool use was denied", "cancelled: parallel",
             "[request interrupted", "user rejected", "the user rejected")


_INTERRUPTED = "[request interrupted by user"   # the user stopped it: no failure of the tool


_PYTHON_M_MEMDOWN = re.compile(r"(?:^|[;&|(]\s*)\S*python3?(?:\.\d+)?\s+-m\s+memdown\b")


def own_call(name: str, tool_input: object) -> bool:
    """A call of memdown itself (its recall skill, or a Bash command running memdown): its failure is
    memdown's, never one of the user's failure signals."""
    if not isinstance(tool_input, dict):
        return False
    if name == "Skill":
        return str(tool_input.get("skill", "")).startswith("memdown:")
    command = str(tool_input.get("command", ""))
    heads = {head.rsplit("/", 1)[-1].lstrip("(") for head in _heads(command)}  # `memdown …`, `~/.venv/bin/memdown …`
    return name == "Bash" and ("memdown" in heads or bool(_PYTHON_M_MEMDOWN.search(command.strip())))


def failed(call) -> bool:
    """A real tool failure (a user's rejection or interruption, or memdown's own failed command, is not one)."""
    if not call.is_error or own_call(call.name, call.input):
        return False
    text = (call.result or "").strip().lower().replace("<tool_use_error>", "")
    return not text.startswith(_REJECTED) and _INTERRUPTED not in text   # "Exit code 137 [Request interrupted by user…"


def _empty(call) -> bool:
    result = (call.result or "").strip()
    if not result:
        return True
    low = result.lower()
    if re.match(r"^(?:no (?:files|matches) found|no matches|found 0 |0 (?:files|matches)|\(no output\))", low):
        return True
    return call.is_error and len(low) < 40 and "exit code 1" in low


def similar_input(a, b) -> bool:
    """Two calls of one tool that aim at the same thing (a retry, or the fix of a failure)."""
    if a.name != b.name:
        return False
    if a.name == "Bash":
        ca, cb = str(a.input.get("command", "")), str(b.input.get("command", ""))
        if not _heads(ca) & _heads(cb):  # the retry runs the same program (maybe after a setup step)
            return False
        ta, tb = set(re.findall(r"[\w.-]+", ca.lower())), set(re.findall(r"[\w.-]+", cb.lower()))
        return len(ta & tb) / max(1, len(ta | tb)) >= 0.4
    fa = a.input.get("file_path") or a.input.get("path") or a.input.get("notebook_path")
    fb = b.input.get("file_path") or b.input.get("path") or b.input.get("notebook_path")
    return fa == fb if fa or fb else True


READ_ONLY_TOOLS = frozenset({"Read", "Grep", "Glob", "LS", "WebSearch", "WebFetch", "TodoWrite", "TodoRead",
                             "BashOutput", "ToolSearch", "Task", "Agent", "Skill", "ExitPlanMode"})
READ_ONLY_COMMANDS = frozenset("""ls cat head tail less more grep rg find fd pwd echo which whereis type file stat du df
wc tree env printenv date whoami id uname ps top history diff sort uniq cut jq yq""".split())
READ_ONLY_GIT = frozenset({"status", "log", "diff", "show", "branch", "remote", "config", "ls-files", "rev-parse",
                           "blame", "describe", "reflog", "shortlog", "fetch"})


def _norm_command(call) -> str:
    return " ".join(str(call.input.get("command", "")).split())


def same_call(a, b) -> bool:
    """The very same action (a retry that changed nothing)."""
    if a.name != b.name:
        return False
    if a.name == "Bash":
        return _norm_command(a) == _norm_command(b)
    return a.input == b.input


def changes_something(call) -> bool:
    """A step that can have made a retry work: not a read, a search or a status look."""
    if call.name in READ_ONLY_TOOLS or failed(call):
        return False
    if call.name != "Bash":
        return True
    for part in re.split(r"&&|\|\||[;|]", str(call.input.get("command", ""))):
        words = [w for w in part.split() if "=" not in w or w.startswith("-")]
        if not words or words[0] == "cd":
            continue
        if words[0] == "git" and len(words) > 1 and words[1] in READ_ONLY_GIT:
            continue
        if words[0] not in READ_ONLY_COMMANDS:
            return True
    return False


def find_fix(calls: list, k: int, window: int = 8) -> list | None:
    """What made failed call ``k`` work, or None.

    A fix is an action that differs from the failing call and made the next attempt succeed: the
    steps between the failure and the first successful retry that changed something, plus the retry
    itself when it differs from the failing call. The very same call succeeding after nothing but
    reads (a flaky network, a race) has no fix.
    """
    bad = calls[k]
    between: list = []
    for later in calls[k + 1:k + 1 + window]:
        if later.name == bad.name and not later.is_error and similar_input(bad, later):
            steps = [c for c in between if changes_something(c) and not same_call(c, bad)]
            if not same_call(later, bad):
                steps.append(later)
            return steps or None
        between.append(later)
    return None


def fix_text(steps) -> str:
    """One line naming the fix steps (a call or a list of calls), in order."""
    steps = steps if isinstance(steps, list) else [steps]
    parts = []
    for call in steps[-4:]:
        if call.name == "Bash" and isinstance(call.input.get("command"), str):
            from ..redact.commands import redact_command

            parts.append(f"Bash `{one_line(redact_command(call.input['command']), 200)}`")
        else:
            parts.append(one_line(call.summary(), 200))
    return one_line(", then ".join(parts), 300)


def detect_tool_patterns(calls: list) -> list[Signal]:
    """Repeated failures, multi-attempt edits and search thrashing in a call sequence."""
    out: list[Signal] = []
    k = 0
    while k < len(calls):  # the same tool failing twice (or more) in a row
        run = 1
        while k + run < len(calls) and failed(calls[k + run]) and failed(calls[k]) \
                and calls[k + run].name == calls[k].name:
            run += 1
        if run >= 2:
            last = calls[k + run - 1]
            fix = find_fix(calls, k + run - 1)
            extra = {"tool": last.name, "input": one_line(last.summary(), 200), "attempts": str(run)}
            if fix is not None:
                extra["fix"] = fix_text(fix)
            out.append(Signal("repeated_failure", one_line(last.error_excerpt(), 300), 2 if run >= 3 else 1,
                              pattern="tool.repeated-failure", tags=[last.name], extra=extra,
                              context=f"Failed {run} times in a row: {one_line(last.summary(), 200)}"))
        k += run
    edits = [c for c in calls if c.name in EDIT_TOOLS]
    k = 0
    while k < len(edits):  # one file edited 3+ times in a row
        target = edits[k].input.get("file_path") or edits[k].input.get("path") or edits[k].input.get("notebook_path")
        run = 1
        while k + run < len(edits) and target and (edits[k + run].input.get("file_path")
                                                   or edits[k + run].input.get("path")) == target:
            run += 1
        if run >= 3 and target:
            out.append(Signal("multi_edit", f"{target} edited {run} times in a row", 1,
                              pattern="tool.multi-edit", tags=[str(target).rsplit("/", 1)[-1]],
                              extra={"file": str(target), "attempts": str(run)}))
        k += run
    empties: list = []
    for call in calls:  # 3+ empty searches before a hit
        if not _is_search(call):
            continue
        if _empty(call):
            empties.append(call)
            continue
        if len(empties) >= 3:
            tried = "; ".join(one_line(c.summary(), 80) for c in empties[-5:])
            out.append(Signal("search_thrash", f"{len(empties)} empty searches before: {one_line(call.summary(), 160)}",
                              2 if len(empties) >= 5 else 1, pattern="tool.search-thrash",
                              context=f"Tried: {tried}", extra={"found_with": one_line(call.summary(), 200)}))
        empties = []
    return out
