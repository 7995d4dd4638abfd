"""Turning a transcript turn into memory bullets a developer reads a month later.

An entry records the ask, the outcome or decision (taken from the END of the
turn, never its preamble), what was found on the way, the files changed, the
commands that mattered, and errors with what followed them.

``claude -p`` with a small model writes the summary when the ``claude`` CLI
exists and asks for that same shape; otherwise, or when it fails, the
deterministic extractive summary below is written, so a turn is never silently
lost. A turn that only recalled memory gets a pointer entry (``recall_bullets``)
and is never summarized: its facts already live in the entries it cites.
Everything is redacted before it reaches a file.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

from ... import fsutil, paths
from ...committed_config import claude_argv
from ...config import SUMMARIZER_ENV
from ...errors import ConfigError
from ...redact import redact
from ...transcript.content import one_line
from ...transcript.model import ToolCall, Turn
from ...transcript.segments import Unit, ended_badly
from .outcome import MAX_ITEMS, inline, sentences, structured


def _clip(text: str, limit: int) -> str:
    return one_line(redact(text), limit)  # redact before cutting: half a token no longer matches

MAX_PROMPT_CHARS = 14_000
MIN_BULLETS, MAX_BULLETS = 1, 8

SUMMARY_INSTRUCTIONS = """You write a developer's project memory log, read weeks later by someone who was not there.
Summarize the coding-assistant turn below as 1 to 6 markdown bullets, one line each, each starting
with "- ". Use these labels, and leave out any that do not apply:
- Asked: what the user wanted, in their terms.
- Decided: / Outcome: the conclusion, taken from the END of the turn (the final assistant message),
  not from its opening lines; with the reason when one is given.
- Found: the cause or key fact discovered on the way.
- Files: the files changed.
- Commands: the commands that mattered (tests, builds, installs, migrations, git push).
- Error: the error, then "→ fixed by" what fixed it, only if something did.
Keep exact identifiers, file paths, commands and error names. A trivial turn needs one bullet.
No preamble, no headings, only the bullets.

"""

_FINDING = re.compile(r"\b(?:the (?:error|issue|problem|cause|bug) (?:is|was|shows|comes)|root cause|"
                      r"found the (?:issue|problem|bug|cause)|because|the fix (?:is|was))\b", re.I)
_TRIVIAL_COMMANDS = frozenset({
    "ls", "cat", "head", "tail", "grep", "rg", "find", "pwd", "echo", "wc", "sleep", "which", "cd",
    "sed", "awk", "tree", "file", "stat", "true", "date",
})
_TRIVIAL_GIT = frozenset({"status", "diff", "log", "show", "branch", "remote"})
_EDITS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_CD_PREFIX = re.compile(r"^(?:cd\s+(?:\"[^\"]*\"|'[^']*'|\S+)\s*&&\s*)+")


def outcome(turn: Turn, last_message: str | None = None) -> tuple[str, list[str]]:
    """(lead, list items) of the last assistant message that reports something (services/capture/outcome.py)."""
    texts = [t for t in turn.assistant_texts if t.strip()]
    if last_message and last_message.strip() and not last_message.lstrip().startswith("API Error"):
        texts.append(last_message)
    for text in reversed(texts):
        lead, items = structured(text)
        if lead or items:
            return lead, items
    return "", []


def conclusion(turn: Turn, last_message: str | None = None) -> str:
    """What the turn ended with, as one line (its list items after the lead)."""
    lead, items = outcome(turn, last_message)
    return " ".join([lead, *items]).strip()


def _finding(turn: Turn, said: str) -> str:
    """A cause or key fact stated on the way, when the conclusion does not already say it."""
    for text in turn.assistant_texts[:-1]:
        for sentence in sentences(text):
            plain = inline(sentence)
            if len(plain) >= 40 and plain[:1].isupper() and _FINDING.search(plain) and plain[:60] not in said:
                return plain
    return ""


def _short_path(path: str, cwd: str) -> str:
    if cwd and path.startswith(cwd.rstrip("/\\") + ("/" if "/" in path else "\\")):
        return path[len(cwd.rstrip("/\\")) + 1:]
    parts = re.split(r"[/\\]", path)
    return "/".join(parts[-3:]) if len(parts) > 3 else path


def _files(calls: list[ToolCall], names: frozenset[str], cwd: str) -> list[str]:
    seen: dict[str, None] = {}
    for call in calls:
        path = call.input.get("file_path") or call.input.get("notebook_path")
        if call.name in names and isinstance(path, str) and path.strip():
            seen.setdefault(_short_path(path, cwd), None)
    return list(seen)


def _command_key(command: str) -> tuple[str, ...] | None:
    """(program, subcommand) of a command worth recording; None for a look-around."""
    line = command.strip().splitlines()[0] if command.strip() else ""
    line = _CD_PREFIX.sub("", line)
    words = line.split()
    if not words or words[0] in _TRIVIAL_COMMANDS:
        return None
    if words[0] == "git" and (len(words) < 2 or words[1] in _TRIVIAL_GIT):
        return None
    return tuple(words[:2])


def _commands(calls: list[ToolCall]) -> list[str]:
    """Commands that changed or checked something, the last of each kind, in order."""
    last: dict[tuple[str, ...], tuple[int, ToolCall]] = {}
    for n, call in enumerate(calls):
        command = call.input.get("command") if call.name == "Bash" else None
        if isinstance(command, str):
            key = _command_key(command)
            if key:
                last[key] = (n, call)
    return [f"`{_command_text(str(call.input['command']))}`" + (" (failed)" if call.is_error else "")
            for _n, call in sorted(last.values(), key=lambda item: item[0])]


def _error_line(call: ToolCall) -> str:
    """The telling part of a failure: from the first line naming an error, else its first lines."""
    text = (call.result or "").replace("<tool_use_error>", "").replace("</tool_use_error>", "")
    lines = [ln.strip() for ln in text.splitlines()]
    useful = [ln for ln in lines if ln and not re.match(r"^(?:Exit code \d+|Traceback.*|Error:?)$", ln)]
    named = next((n for n, ln in enumerate(useful) if re.search(r"error|failed|exception|not found", ln, re.I)), 0)
    return _clip(" ".join(useful[named: named + 3]), 160)


def _errors(calls: list[ToolCall], cwd: str = "") -> list[str]:
    """Each failure once, with the change that followed it when the same call then passed."""
    out: list[str] = []
    for n, call in enumerate(calls):
        # Only commands: a failed Edit ("String to replace not found") is tool mechanics, not project news.
        if not call.is_error or call.name != "Bash":
            continue
        text = f"`{_clip(_command_text(str(call.input.get('command') or '')), 60)}`: {_error_line(call)}"
        later = calls[n + 1:]
        fixed_by = [c for c in later if c.name in _EDITS or (c.name == "Bash" and c.input != call.input)]
        again = next((c for c in later if c.name == call.name and c.input == call.input and not c.is_error), None)
        if again is not None and fixed_by:
            first = fixed_by[0]
            text += f" → fixed by {first.name} {_clip(_call_detail(first, cwd), 70)}"
        out.append(text)
        if len(out) == 2:
            break
    return out


def _call_detail(call: ToolCall, cwd: str = "") -> str:
    path = call.input.get("file_path")
    if isinstance(path, str) and path:
        return f"`{_short_path(path, cwd)}`"
    return f"`{_command_text(str(call.input.get('command') or call.summary()))}`"


def _command_text(command: str) -> str:
    """A command on one line; a heredoc commit message is shown by its title line; values that are not a
    safe shape masked (``redact.commands``)."""
    from ...redact.commands import redact_command

    command = _CD_PREFIX.sub("", redact_command(command).strip())
    lines = command.splitlines() or [""]
    if len(lines) > 1 and re.search(r"<<-?\s*['\"]?EOF", lines[0]):
        title = next((ln.strip() for ln in lines[1:] if ln.strip()), "")
        program = re.split(r"\s+-m\s", lines[0])[0]
        return _clip(f'{program} -m "{title}"', 90)
    return _clip(lines[0], 90)


def _ask(unit: Unit) -> str:
    turn = unit.turn
    if unit.retry_of is not None:
        why = "after an API error" if unit.retry_of.api_errors else (
            "after an interruption" if unit.retry_of.interrupted else "")
        label = f"retried {why}".strip() if ended_badly(unit.retry_of) else "continuing"
        return f"Asked: {_clip(unit.retry_of.prompt, 200)} ({label}: \"{_clip(turn.prompt, 30)}\")"
    return f"Asked: {_clip(turn.prompt, 240)}" if turn.prompt.strip() else "Asked: (no prompt text)"


def _earlier_asks(unit: Unit) -> list[str]:
    """Prompts of folded empty turns, unless the entry already shows the same words."""
    asks = {unit.turn.prompt.strip()} | ({unit.retry_of.prompt.strip()} if unit.retry_of else set())
    out = []
    for earlier in unit.earlier:
        if earlier.prompt.strip() and earlier.prompt.strip() not in asks:
            why = f"no reply: {_clip(earlier.api_errors[0], 60)}" if earlier.api_errors else "interrupted, no reply"
            out.append(f"Earlier ask ({why}): {_clip(earlier.prompt, 200)}")
            asks.add(earlier.prompt.strip())
    return out


def extractive_bullets(unit: Unit, cwd: str = "", last_message: str | None = None) -> list[str]:
    """A deterministic entry: ask, outcome, finding, files, commands, errors."""
    turn = unit.turn
    bullets = [_ask(unit), *_earlier_asks(unit)]
    lead, items = outcome(turn, last_message)
    if lead or items:
        bullets.append(_outcome_bullet(lead, items) + (" (interrupted)" if turn.interrupted else ""))
    elif turn.api_errors:
        bullets.append(f"Outcome: stopped by {_clip(turn.api_errors[-1], 120)}")
    finding = _finding(turn, " ".join([lead, *items]))
    if finding:
        bullets.append(f"Found: {_clip(finding, 220)}")
    changed = _files(turn.tool_calls, _EDITS, cwd)
    if changed:
        more = f" (+{len(changed) - 6} more)" if len(changed) > 6 else ""
        bullets.append("Files changed: " + ", ".join(f"`{f}`" for f in changed[:6]) + more)
    else:
        read = _files(turn.tool_calls, frozenset({"Read"}), cwd)
        if read:
            bullets.append("Read: " + ", ".join(f"`{f}`" for f in read[:4]))
    commands = _commands(turn.tool_calls)
    if commands:
        bullets.append("Commands: " + "; ".join(commands[-5:]))
    for error in _errors(turn.tool_calls, cwd):
        bullets.append(f"Error: {error}")
    if unit.recall and unit.recall.cited:
        bullets.append("Recalled: " + ", ".join(f"`{c}`" for c in unit.recall.cited[:6]))
    return [redact(b) for b in bullets[:MAX_BULLETS]]


def _outcome_bullet(lead: str, items: list[str]) -> str:
    """``Outcome: lead``, with the message's list items as sub-bullets (one per line after the first)."""
    shown = [_clip(item, 200) for item in items[:MAX_ITEMS]]
    if len(items) > MAX_ITEMS:
        shown.append(f"(+{len(items) - MAX_ITEMS} more)")
    return "\n".join([f"Outcome: {_clip(lead, 360)}".rstrip(), *shown])


def recall_bullets(unit: Unit) -> list[str]:
    """A recall turn as a pointer: the question and what it cited, never the recalled facts."""
    cited = unit.recall.cited if unit.recall else []
    bullets = [f"Recall: {_clip(unit.turn.prompt, 240)}", *_earlier_asks(unit)]
    bullets.append("Cited: " + ", ".join(f"`{c}`" for c in cited[:8]) if cited
                   else "Cited: no memory file named in the answer")
    return [redact(b) for b in bullets]


def extractive_summary(turn: Turn, last_message: str | None = None, cwd: str = "") -> list[str]:
    """The extractive entry of one turn on its own."""
    return extractive_bullets(Unit(turn=turn), cwd, last_message)


def render_unit_for_model(unit: Unit, last_message: str | None = None) -> str:
    turn = unit.turn
    parts = [f"USER: {unit.retry_of.prompt if unit.retry_of else turn.prompt}"]
    if unit.retry_of is not None:
        parts.append(f"USER (carrying on): {turn.prompt}")
    for earlier in unit.earlier:
        parts.append(f"EARLIER USER ASK (no reply): {earlier.prompt}")
    steps = turn.steps or [*turn.tool_calls, *turn.assistant_texts]
    final = last_message if last_message and last_message.strip() else (turn.assistant_texts[-1] if turn.assistant_texts else "")
    for step in steps[:80]:
        if isinstance(step, ToolCall):
            line = f"TOOL: {step.summary()}"
            if step.is_error and step.result:
                line += f"  [error: {_clip(step.result, 200)}]"
            parts.append(line)
        elif step is not final and step not in turn.api_errors:
            parts.append(f"ASSISTANT (during the turn): {_clip(step, 600)}")
    for error in turn.api_errors:
        parts.append(f"CLIENT: {_clip(error, 200)}")
    parts.append(f"FINAL ASSISTANT MESSAGE: {final}")
    text = "\n".join(parts)
    if len(text) > MAX_PROMPT_CHARS:  # keep the start (the ask) and the end (the outcome)
        half = MAX_PROMPT_CHARS // 2
        text = text[:half] + "\n…\n" + text[-half:]
    return redact(text)


def render_turn_for_model(turn: Turn, last_message: str | None = None) -> str:
    return render_unit_for_model(Unit(turn=turn), last_message)


def parse_bullets(output: str) -> list[str]:
    bullets = []
    for line in output.splitlines():
        stripped = line.strip()
        if stripped.startswith(("- ", "* ", "• ")):
            body = stripped[2:].strip()
            if body:
                bullets.append(body)
    return bullets


def claude_summary(unit: Unit | Turn, *, model: str, timeout: float, last_message: str | None = None) -> list[str] | None:
    """Bullets from ``claude -p``, or None when the CLI is absent, fails or says nothing usable."""
    exe = shutil.which("claude")
    if not exe:
        return None
    unit = unit if isinstance(unit, Unit) else Unit(turn=unit)
    workdir = paths.memdown_home() / "summarizer"
    fsutil.make_dirs(workdir)
    env = {**os.environ, "MEMDOWN_DISABLE": "1", SUMMARIZER_ENV: "1"}
    try:
        proc = subprocess.run(
            claude_argv(exe, model),  # a committed value like "--dangerously-skip-permissions" is refused
            input=SUMMARY_INSTRUCTIONS + render_unit_for_model(unit, last_message),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=workdir,  # its own transcript lands outside the user's project
            env=env,
        )
    except (OSError, subprocess.SubprocessError, ConfigError):
        return None
    if proc.returncode != 0:
        return None
    bullets = parse_bullets(proc.stdout)
    if len(bullets) < MIN_BULLETS:
        return None
    return [redact(b) for b in bullets[:MAX_BULLETS]]


def summarize_unit(unit: Unit, *, use_claude: bool, model: str, timeout: float, cwd: str = "",
                   last_message: str | None = None) -> tuple[list[str], str]:
    """(bullets, method) where method is "recall", "claude" or "extractive"."""
    if unit.recall is not None and unit.recall.only:
        return recall_bullets(unit), "recall"
    if use_claude:
        bullets = claude_summary(unit, model=model, timeout=timeout, last_message=last_message)
        if bullets:
            if unit.recall and unit.recall.cited:  # the model may not say where the recalled facts live
                bullets = [*bullets[: MAX_BULLETS - 1], redact("Recalled: " + ", ".join(f"`{c}`" for c in unit.recall.cited[:6]))]
            return bullets, "claude"
    return extractive_bullets(unit, cwd, last_message), "extractive"
