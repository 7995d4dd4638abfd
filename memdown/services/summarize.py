"""Turning a transcript turn into 2–8 memory bullets.

``claude -p`` with a small model writes the summary when the ``claude`` CLI
exists; otherwise, or when it fails, a deterministic extractive summary is
written instead, so a turn is never silently lost. Everything is redacted
before it reaches a file.
"""
from __future__ import annotations

import os
import shutil
import subprocess

from .. import paths
from ..redact import redact
from ..transcript.parser import Turn

MAX_PROMPT_CHARS = 14_000
MIN_BULLETS, MAX_BULLETS = 2, 8
SUMMARIZER_ENV = "MEMDOWN_SUMMARIZER"  # set in the child so its own hooks stay silent

SUMMARY_INSTRUCTIONS = """You write a developer's project memory log. Summarize the coding-assistant turn below
as 2 to 8 markdown bullets, one line each, each starting with "- ". Cover: what the user asked,
what was done, decisions and their reasons, files touched, problems and their fixes. Keep exact
identifiers, file paths, commands and error names. No preamble, no headings, only the bullets.

"""


def _first_line(text: str, limit: int) -> str:
    for line in text.strip().splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def _clip(text: str, limit: int) -> str:
    flat = " ".join(redact(text).split())  # redact before cutting: half a token no longer matches
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def extractive_summary(turn: Turn, last_message: str | None = None) -> list[str]:
    """A deterministic summary from the turn itself: prompt, files, commands, errors, outcome."""
    bullets: list[str] = []
    asked = _clip(turn.prompt, 240)
    bullets.append(f"Asked: {asked}" if asked else "Asked: (no prompt text)")
    files = turn.files_touched()
    if files:
        shown = ", ".join(f"`{f}`" for f in files[:8])
        more = f" (+{len(files) - 8} more)" if len(files) > 8 else ""
        bullets.append(f"Files: {shown}{more}")
    commands = turn.commands()
    if commands:
        shown = "; ".join(f"`{_clip(c, 100)}`" for c in commands[:4])
        bullets.append(f"Commands: {shown}")
    errors = turn.errors()
    if errors:
        bullets.append("Problems: " + "; ".join(_clip(e, 160) for e in errors[:2]))
    outcome = last_message or turn.assistant_text()
    if outcome.strip():
        bullets.append(f"Outcome: {_clip(outcome, 300)}")
    elif turn.tool_calls:
        bullets.append(f"Did: {len(turn.tool_calls)} tool call(s), e.g. {_clip(turn.tool_calls[0].summary(), 120)}")
    if len(bullets) < MIN_BULLETS:
        bullets.append("Outcome: no assistant reply recorded")
    return [redact(b) for b in bullets[:MAX_BULLETS]]


def render_turn_for_model(turn: Turn, last_message: str | None = None) -> str:
    parts = [f"USER: {turn.prompt}"]
    for call in turn.tool_calls[:40]:
        line = f"TOOL: {call.summary()}"
        if call.is_error and call.result:
            line += f"  [error: {_clip(call.result, 200)}]"
        parts.append(line)
    parts.append(f"ASSISTANT: {last_message or turn.assistant_text()}")
    text = "\n".join(parts)
    if len(text) > MAX_PROMPT_CHARS:  # keep the start (the ask) and the end (the outcome)
        half = MAX_PROMPT_CHARS // 2
        text = text[:half] + "\n…\n" + text[-half:]
    return redact(text)


def parse_bullets(output: str) -> list[str]:
    bullets = []
    for line in output.splitlines():
        stripped = line.strip()
        if stripped.startswith(("- ", "* ", "• ")):
            body = stripped[2:].strip()
            if body:
                bullets.append(body)
    return bullets


def claude_summary(turn: Turn, *, model: str, timeout: float, last_message: str | None = None) -> list[str] | None:
    """Bullets from ``claude -p``, or None when the CLI is absent, fails or says nothing usable."""
    exe = shutil.which("claude")
    if not exe:
        return None
    workdir = paths.memdown_home() / "summarizer"
    workdir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MEMDOWN_DISABLE": "1", SUMMARIZER_ENV: "1"}
    try:
        proc = subprocess.run(
            [exe, "-p", "--model", model],
            input=SUMMARY_INSTRUCTIONS + render_turn_for_model(turn, last_message),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=workdir,  # its own transcript lands outside the user's project
            env=env,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    bullets = parse_bullets(proc.stdout)
    if len(bullets) < MIN_BULLETS:
        return None
    return [redact(b) for b in bullets[:MAX_BULLETS]]


def summarize_turn(turn: Turn, *, use_claude: bool, model: str, timeout: float,
                   last_message: str | None = None) -> tuple[list[str], str]:
    """(bullets, method) where method is "claude" or "extractive"."""
    if use_claude:
        bullets = claude_summary(turn, model=model, timeout=timeout, last_message=last_message)
        if bullets:
            return bullets, "claude"
    return extractive_summary(turn, last_message), "extractive"
