"""Every shell command the real sessions in ../shared ran (read in place, never copied).

Claude Code transcripts through memdown's own parser (each Bash tool_use's ``command``); the other
agents' logs (Codex, Gemini, Copilot, Cursor, OpenCode) by walking their JSON for a ``command`` /
``cmd`` value (Codex's ``arguments`` is a JSON string; its argv form ``["bash", "-lc", X]`` gives X).
"""
from __future__ import annotations

import json
from pathlib import Path

SHELLS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "powershell.exe", "pwsh", "powershell"}


def transcript_commands(folder: Path) -> list[tuple[str, str]]:
    """(repository folder, command) for every Bash call in the Claude Code transcripts."""
    from memdown.transcript.parser import parse_transcript

    found: list[tuple[str, str]] = []
    for path in sorted(folder.rglob("*.jsonl")):
        try:
            transcript = parse_transcript(path, include_subagents=False)
        except Exception:  # noqa: BLE001 - a file that is not a transcript
            continue
        repo = path.relative_to(folder).parts[0]
        for turn in transcript.turns + ([transcript.preamble] if transcript.preamble else []):
            found.extend((repo, c) for c in turn.commands())
    return found


def _from_value(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        if len(value) >= 3 and value[0] in SHELLS and value[1].startswith("-"):
            return value[-1]
        import shlex

        return shlex.join(value)
    return None


def _walk(node: object, out: list[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("command", "cmd"):
                got = _from_value(value)
                if got and got.strip():
                    out.append(got)
                    continue
            if key in ("arguments", "args", "input") and isinstance(value, str) and value.startswith("{"):
                try:
                    _walk(json.loads(value), out)
                except ValueError:
                    pass
                continue
            _walk(value, out)
    elif isinstance(node, list):
        for item in node:
            _walk(item, out)


def agent_commands(folder: Path) -> list[tuple[str, str]]:
    """(client/repository, command) for every command value in the other agents' logs."""
    found: list[tuple[str, str]] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl")):
        parts = path.relative_to(folder).parts
        repo = "/".join(parts[:2])
        text = path.read_text(encoding="utf-8", errors="replace")
        docs: list[object] = []
        try:
            docs = [json.loads(text)]
        except ValueError:
            for line in text.splitlines():
                try:
                    docs.append(json.loads(line))
                except ValueError:
                    continue
        out: list[str] = []
        for doc in docs:
            _walk(doc, out)
        found.extend((repo, c) for c in out)
    return found


def all_commands(shared: Path) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if (shared / "transcripts").is_dir():
        found += transcript_commands(shared / "transcripts")
    if (shared / "agents").is_dir():
        found += agent_commands(shared / "agents")
    return found
