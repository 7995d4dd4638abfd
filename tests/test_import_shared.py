"""Every real history in ../shared/transcripts imports: each session with a typed prompt gets entries (#26.1).

Typed prompts are counted here from the raw JSON lines, not through memdown's parser, so a
session the importer never looks at (or reads as empty) shows up as missing."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SHARED_TRANSCRIPTS
from memdown.config import load_config
from memdown.services.capture.importer import import_transcripts, survey
from memdown.store.anchors import anchor_unescape
from memdown.store.daily import read_entries

pytestmark = pytest.mark.shared

NOT_TYPED = ("<command-", "<local-command-", "<bash-", "<task-notification", "[Request interrupted", "Caveat:",
             "<user-prompt-submit-hook", "This session is being continued")


def _typed(entry: dict) -> bool:
    """A prompt a person typed: a main-chain user line with text, not a tool result, command echo or meta line."""
    if entry.get("type") != "user" or entry.get("isSidechain") or entry.get("isMeta") or entry.get("isCompactSummary"):
        return False
    content = (entry.get("message") or {}).get("content")
    if isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return False
        content = "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    if not isinstance(content, str):
        return False
    text = content.strip()
    return bool(text) and not text.startswith(NOT_TYPED) and "<system-reminder>" not in text[:20]


def _files_with_typed_prompts(folder: Path) -> dict[Path, int]:
    """main-session file → typed prompts, over every ``*.jsonl`` under ``folder`` (plain JSON reading)."""
    counts: dict[Path, int] = {}
    for path in folder.rglob("*.jsonl"):
        if path.name.startswith("agent-") or "subagents" in path.parts:
            continue
        for raw in path.read_bytes().splitlines():
            try:
                entry = json.loads(raw.decode("utf-8", "replace").lstrip("\ufeff"))
            except ValueError:
                continue
            if isinstance(entry, dict) and _typed(entry) and entry.get("sessionId"):
                counts[path] = counts.get(path, 0) + 1
    return counts


def _project_folders() -> list[Path]:
    real = SHARED_TRANSCRIPTS / "real"
    return sorted(p for p in real.iterdir() if p.is_dir()) if real.is_dir() else []


@pytest.mark.parametrize("folder", _project_folders(), ids=lambda p: p.name)
def test_every_session_with_a_typed_prompt_is_imported(shared_transcripts, tmp_path, folder):
    root = tmp_path / "memory"
    found = survey([folder], cwd=tmp_path, root=root)
    report = import_transcripts(root, found, config=load_config(root), index=False)
    assert not report.errors, report.errors
    recorded: set[Path] = set()  # the transcripts the entries' anchors name
    for day in (root / "memory").glob("*.md"):
        for entry in read_entries(day):
            if entry.anchor and entry.anchor.transcript:
                recorded.add(Path(anchor_unescape(entry.anchor.transcript)).expanduser())
    expected = _files_with_typed_prompts(folder)
    opted_out = {Path(s["path"]) for s in report.skipped_files if s["reason"].startswith("opted out")}
    missing = {str(p.relative_to(folder)): n for p, n in expected.items() if p not in recorded | opted_out}
    assert not missing, f"transcripts with typed prompts and no entry: {missing}; skipped: {report.reasons()}"
