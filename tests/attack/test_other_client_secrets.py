"""A secret never reaches a committed file through another client's capture (session 9 attack).

The redaction corpus is Claude Code's transcripts. A Codex rollout reaches the same writers through its own
parser (clients/codex.py): the typed prompt, a shell call's command and output, an apply_patch body and the
reply. Imported with mining on, no committed file under ``.memdown`` (day files, signals) may hold the
secret values, and neither may ``memdown search``'s answer.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from test_clients_codex import SESSION, TURN, _line

GITHUB = "ghp_" + "R4nd0mT0k3nV4lu3" + "x9Qw2Er7Ty5Ui3Op1As"
AWS = "AKIA" + "QX3J7KZP2M5N8B4V"
BEARER = "sk-proj-" + "Zq8Xv2Lm9Nw4Rt7Yp3Ks6Jd1Hf5Gb0Ca"
DBPASS = "Tr0ub4dor&3-" + "horse-battery"
SECRETS = (GITHUB, AWS, BEARER, DBPASS)


def _rollout(home: Path, cwd: Path) -> Path:
    prompt = (f"No, don't paste my token {GITHUB} or the key {AWS} into commands, always use the DEPLOY_TOKEN "
              "environment variable instead. Remember that.")
    lines = [
        _line("2026-11-27T17:19:42.217Z", "session_meta", {"id": SESSION, "timestamp": "2026-11-27T17:19:42.217Z",
                                                            "cwd": str(cwd), "originator": "codex_exec",
                                                            "cli_version": "0.171.0", "source": "exec"}),
        _line("2026-11-27T17:19:42.300Z", "event_msg", {"type": "task_started", "turn_id": TURN}),
        _line("2026-11-27T17:19:42.302Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": prompt}]}),
        _line("2026-11-27T17:19:42.303Z", "event_msg", {"type": "item_completed", "turn_id": TURN, "item": {
            "type": "UserMessage", "content": [{"type": "text", "text": prompt}]}}),
        _line("2026-11-27T17:19:42.400Z", "response_item", {"type": "function_call", "name": "exec_command",
              "arguments": json.dumps({"cmd": f"curl -H 'Authorization: Bearer {BEARER}' https://api.example.com/deploy"}),
              "call_id": "call_1"}),
        _line("2026-11-27T17:19:42.500Z", "response_item", {"type": "function_call_output", "call_id": "call_1",
              "output": f"Process exited with code 1\nOutput:\nerror: auth failed for postgres://app:{DBPASS}@db:5432/app\n"}),
        _line("2026-11-27T17:19:42.600Z", "response_item", {"type": "custom_tool_call", "name": "apply_patch",
              "call_id": "call_2", "input": f"*** Begin Patch\n*** Update File: .env\n@@\n-DB_PASSWORD=x\n"
                                            f"+DB_PASSWORD={DBPASS}\n*** End Patch"}),
        _line("2026-11-27T17:19:42.700Z", "response_item", {"type": "custom_tool_call_output", "call_id": "call_2",
              "output": json.dumps({"output": "Success.", "metadata": {"exit_code": 0}})}),
        _line("2026-11-27T17:19:42.800Z", "response_item", {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": f"Deployed. I used {GITHUB} as asked; the DB password is {DBPASS}."}]}),
        _line("2026-11-27T17:19:42.900Z", "event_msg", {"type": "task_complete", "turn_id": TURN}),
    ]
    path = home / "sessions" / "2026" / "11" / "27" / f"rollout-2026-11-27T17-19-42-{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    return path


def _holding(folder: Path) -> list[str]:
    return sorted(f"{p.relative_to(folder)}: {s[:12]}" for p in folder.rglob("*") if p.is_file() and not p.is_symlink()
                  and "index" not in p.parts and "state" not in p.parts and "logs" not in p.parts
                  for s in SECRETS if s.encode() in p.read_bytes())


def test_a_codex_sessions_secrets_reach_no_committed_file(tmp_path: Path, memory_root: Path, monkeypatch) -> None:
    from memdown.config import load_config
    from memdown.services.capture.importer import import_transcripts, survey
    from memdown.store.layout import init_layout

    init_layout(memory_root)
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    _rollout(home, memory_root.parent)
    found = survey([], cwd=memory_root.parent, root=memory_root)
    report = import_transcripts(memory_root, found, config=load_config(memory_root), index=False)
    assert report.entries == 1
    assert "deploy" in "".join(p.read_text() for p in (memory_root / "memory").glob("*.md")).lower()
    assert _holding(memory_root) == []

