"""What the environment says, read without importing anything heavier than ``os``.

The PreToolUse hook runs before every tool call: it reads these before deciding whether to import
anything else (``pathlib`` alone costs milliseconds). ``config`` and ``paths`` use the same
functions, so each switch has one definition.
"""
from __future__ import annotations

import os

ON_WORDS = ("1", "true", "yes")
SUMMARIZER_ENV = "MEMDOWN_SUMMARIZER"  # set in memdown's own `claude -p` summarizer child


# Set by coding agents in the environment of the commands they run (and of hooks). Checked in the real
# clients we have: Claude Code 2.1.328 sets CLAUDECODE=1 and AI_AGENT=claude-code_<version>_agent in its Bash
# tool (AI_AGENT=…_harness in hooks); Codex 0.171's shell tool sets CODEX_THREAD_ID, CODEX_SESSION_ID,
# CODEX_TOOL_CALL_ID and CODEX_CI (its binary also names CODEX_SANDBOX* and CODEX_SHELL). The others come from the clients' documentation and pull requests (docs/trust.md lists them).
AGENT_ENV = (
    "CLAUDECODE", "CLAUDE_CODE", "CLAUDE_CODE_ENTRYPOINT",  # Claude Code
    "AI_AGENT",  # the cross-client convention
    "CODEX_THREAD_ID", "CODEX_SESSION_ID", "CODEX_TOOL_CALL_ID", "CODEX_CI",  # Codex CLI (0.171 shell tool)
    "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_SHELL",  # Codex CLI (sandboxed, older)
    "GEMINI_CLI",  # Gemini CLI
    "CURSOR_AGENT", "CURSOR_TRACE_ID",  # Cursor's agent; Cursor's editor terminals (a person's too)
    "COPILOT_CLI", "COPILOT_AGENT", "COPILOT_AGENT_SESSION_ID", "GITHUB_COPILOT_CLI_MODE",  # GitHub Copilot
    "OPENCODE",  # OpenCode
)


def agent_variables() -> list[str]:
    """The agent variables set in this environment (empty or 0 counts as unset)."""
    return [name for name in AGENT_ENV if os.environ.get(name, "").strip() not in ("", "0")]


def env_flag(name: str) -> bool:
    """True when environment variable ``name`` is 1, true or yes (any case)."""
    return os.environ.get(name, "").lower() in ON_WORDS


def memdown_disabled() -> bool:
    """``MEMDOWN_DISABLE``: every hook is a no-op and nothing is captured or mined."""
    return env_flag("MEMDOWN_DISABLE")


def hook_sync() -> bool:
    """``MEMDOWN_HOOK_SYNC``: hooks run their job in-process, without time budget or settle sleep (tests)."""
    return env_flag("MEMDOWN_HOOK_SYNC")


def in_summarizer() -> bool:
    """True inside memdown's own summarizer session, whose hooks must stay silent."""
    return bool(os.environ.get(SUMMARIZER_ENV))


def env_dir(name: str) -> str:
    """The folder an environment variable names (``~`` expanded), '' when unset or blank."""
    value = os.environ.get(name, "").strip()
    return os.path.expanduser(value) if value else ""


def memdown_home_dir() -> str:
    """memdown's per-user folder: ``$MEMDOWN_HOME``, else ``$XDG_DATA_HOME/memdown``, else ``~/.local/share/memdown``."""
    return env_dir("MEMDOWN_HOME") or os.path.join(
        env_dir("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share"), "memdown")
