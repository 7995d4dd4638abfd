"""A person's own words after a ``<hook_context>`` they typed are their prompt (session 8 attack, promise 1).

Gemini CLI puts hook context in front of the typed prompt in ``<hook_context>…</hook_context>`` blocks, and
``fence.without_hook_context`` cuts them out of what memdown records. It also cut everything after an
unclosed opening tag anywhere, so a person asking about the tag ("why does Gemini wrap my context in
<hook_context> tags? …") had the rest of their prompt dropped from the day file, the search index and the
restated prompts: a memory lost. A block the CLI writes is whole, or the whole text; an unclosed tag
after the person's words is theirs.

Red without it: the ``break`` for an unclosed tag after typed words (both tests).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memdown.clients import parse_log
from memdown.fence import without_hook_context

DIGEST = '<hook_context>&lt;memdown-recorded-notes nonce="0a1b2c3d4e5f"&gt;\n- old note\n&lt;/memdown-recorded-notes nonce="0a1b2c3d4e5f"&gt;</hook_context>'
TYPED = "why does gemini wrap the context in <hook_context> tags? my parser chokes on the retry budget line"


def test_an_unclosed_tag_after_typed_words_is_kept() -> None:
    assert without_hook_context(TYPED) == TYPED
    assert without_hook_context(f"{DIGEST}\n\n{TYPED}") == TYPED
    assert without_hook_context("<hook_context>never closed") == ""  # a block at the start still runs to the end
    assert without_hook_context(f"{DIGEST}\n\nWhat retry budget?") == "What retry budget?"


def test_a_gemini_turn_records_the_whole_typed_prompt(isolate_paths: Path, memory_root: Path, tmp_path: Path) -> None:
    (memory_root / "memory").mkdir(parents=True)
    chat = tmp_path / "gemini" / "tmp" / "proj" / "chats" / "session-2026-11-27T10-00-5e551.jsonl"
    chat.parent.mkdir(parents=True)
    (chat.parent.parent / ".project_root").write_text(str(isolate_paths))
    lines = [{"sessionId": "5e55-1", "projectHash": "ab", "startTime": "2026-11-27T10:00:00.000Z", "kind": "main"},
             {"id": "u1", "timestamp": "2026-11-27T10:00:01.000Z", "type": "user",
              "content": [{"text": f"{DIGEST}\n\n{TYPED}"}]},
             {"id": "g1", "timestamp": "2026-11-27T10:00:03.000Z", "type": "gemini",
              "content": "The parser splits on angle brackets; escape them before the retry budget line."}]
    chat.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert [t.prompt for t in parse_log(chat).turns] == [TYPED]
    payload = {"session_id": "5e55-1", "transcript_path": str(chat), "cwd": str(isolate_paths),
               "hook_event_name": "AfterAgent", "timestamp": "2026-11-27T10:00:00.000Z",
               "prompt": f"{DIGEST}\n\n{TYPED}", "prompt_response": lines[-1]["content"], "stop_hook_active": False}
    proc = subprocess.run([str(Path(sys.executable).parent / "memdown"), "hook", "AfterAgent", "gemini"],
                          input=json.dumps(payload), capture_output=True, text=True, cwd=isolate_paths, timeout=120,
                          env={**os.environ, "MEMDOWN_HOOK_SYNC": "1"})
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}
    text = "".join(p.read_text() for p in (memory_root / "memory").glob("*.md"))
    assert "my parser chokes" in text and "old note" not in text, text
