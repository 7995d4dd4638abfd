"""The optional `claude -p` classifier, with a fake `claude` first on PATH."""
from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import install_fake_claude
from memdown.config import load_config
from memdown.learning.sweep import sweep
from memdown.signals import store
from memdown.signals.mining import mine_session
from memdown.signals.semantic import available, parse_reply, queue_file
from transcript_factory import TranscriptBuilder

FAKE = """#!{python}
import json, os, sys
prompt = sys.stdin.read()
log = os.environ["FAKE_CLAUDE_LOG"]
with open(log, "a") as fh:
    fh.write(json.dumps({{"argv": sys.argv[1:], "disable": os.environ.get("MEMDOWN_DISABLE"), "prompt": prompt}}) + "\\n")
if os.environ.get("FAKE_CLAUDE_FAIL"):
    sys.exit(3)
rows = []
for line in prompt.splitlines():
    if line.startswith("[") and "]" in line:
        n = int(line[1:line.index("]")])
        if "pnpm" in line:
            rows.append({{"n": n, "type": "correction", "confidence": 3, "quote": "use pnpm not npm"}})
        if "fine but" in line:
            rows.append({{"n": n, "type": "convention", "confidence": 2, "quote": "lockfiles are committed"}})
        if "invented" in line:
            rows.append({{"n": n, "type": "correction", "confidence": 3, "quote": "words the user never typed"}})
print("Here you go:\\n```json\\n" + json.dumps(rows) + "\\n```")
"""


def _fake_claude(tmp_path: Path, monkeypatch) -> Path:
    return install_fake_claude(tmp_path, monkeypatch, FAKE)


def _session(tmp_path: Path, session_id: str = "sess-s") -> Path:
    tb = TranscriptBuilder(session_id=session_id)
    tb.prompt("set up the project")
    tb.tool("Bash", {"command": "npm install"}, "ok")
    tb.reply("Done with npm.")
    tb.prompt("no, use pnpm not npm")
    tb.reply("Switching.")
    tb.prompt("that's fine but in our team lockfiles are committed")
    tb.reply("Noted.")
    tb.prompt("this line is invented for the test")
    return tb.write(tmp_path / f"{session_id}.jsonl")


def test_classifier_confirms_and_adds_signals(memory_root, tmp_path, monkeypatch):
    log = _fake_claude(tmp_path, monkeypatch)
    monkeypatch.setenv("MEMDOWN_MINING_SEMANTIC", "true")
    config = load_config(memory_root)
    assert available(config)
    mined = mine_session(memory_root, _session(tmp_path), "sess-s", config=config)
    assert [s.type for s in mined] == ["correction"]  # patterns only; nothing slow on the hook path
    assert not log.exists() and queue_file(memory_root).exists()
    report = sweep(memory_root, config=config)
    assert report["semantic"]["prompts"] == 4
    assert report["semantic"]["confirmed"] == 1 and report["semantic"]["added"] == 1
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls[0]["argv"] == ["-p", "--model", "haiku"] and calls[0]["disable"] == "1"
    signals = {s.type: s for s in store.load(memory_root)}
    assert signals["correction"].extra["semantic"] == "confirmed"
    assert signals["convention"].text == "lockfiles are committed" and signals["convention"].pattern == "semantic"
    assert "never typed" not in json.dumps([s.text for s in store.load(memory_root)])  # hallucinated quote dropped
    assert not queue_file(memory_root).exists()


def test_fallback_keeps_pattern_results(memory_root, tmp_path, monkeypatch):
    log = _fake_claude(tmp_path, monkeypatch)
    mined = mine_session(memory_root, _session(tmp_path), "sess-s", config=load_config(memory_root))  # semantic off by default
    assert not queue_file(memory_root).exists()
    assert sweep(memory_root, config=load_config(memory_root))["semantic"] is None and not log.exists()
    monkeypatch.setenv("MEMDOWN_MINING_SEMANTIC", "true")
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "1")
    # A second session with the same words (its own turns: a copy of the first file's turns would be a
    # fork's, which memdown records once).
    mine_session(memory_root, _session(tmp_path, "sess-t"), "sess-t", config=load_config(memory_root))
    report = sweep(memory_root, config=load_config(memory_root))
    assert report["semantic"]["fallback"] is True
    assert [s.type for s in store.load(memory_root)] == [s.type for s in mined] * 2
    monkeypatch.setenv("PATH", "/nonexistent")
    assert not available(load_config(memory_root))


def test_parse_reply_tolerates_prose():
    assert parse_reply('Sure!\n[{"n": 1, "type": "correction"}]\nBye') == [{"n": 1, "type": "correction"}]
    assert parse_reply("no json here") is None
    assert parse_reply(None) is None


LABELLED_FAKE = """#!{python}
import json, os, sys
prompt = sys.stdin.read()
with open(os.environ["FAKE_CLAUDE_LOG"], "a") as fh:
    fh.write(json.dumps({{"prompt": prompt}}) + "\\n")
# A model that follows the instructions: these held-out phrasings (written for this test, in the
# shapes the labelled real prompts take) are signals; chatter and a plain task are not.
table = {{"is not an option": ("correction", "that staging box is not an option"),
          "REVIEWER agent": ("correction", "we already have the REVIEWER agent"),
          "do we not have": ("correction", "do we not have a deploy script for this?"),
          "我是说": ("correction", "我是说放在全局规则里"),
          "one file at a time": ("convention", "one file at a time please"),
          "remember that": ("memory_request", "remember that the docs live in site/")}}
rows = []
for line in prompt.splitlines():
    if line.startswith("[") and "]" in line:
        n = int(line[1:line.index("]")])
        for key, (kind, quote) in table.items():
            if key in line:
                rows.append({{"n": n, "type": kind, "confidence": 2, "quote": quote}})
print(json.dumps(rows))
"""

LABELLED_PHRASINGS = [
    "that staging box is not an option",
    "we already have the REVIEWER agent",
    "do we not have a deploy script for this?",
    "我是说放在全局规则里",
    "one file at a time please",
    "remember that the docs live in site/",
    "sweet",
    "it worked! now only the footer is left",
    "add a dark mode toggle to the header",
]


def test_semantic_prompt_on_the_labelled_sets_phrasing(memory_root, tmp_path, monkeypatch):
    """The `claude -p` prompt names the phrasings the labelled set shows (statements and questions that
    correct, standing preferences, chatter that is not a signal); every message reaches the model
    numbered once, and only the user's own words come back as signals."""
    from memdown.signals.semantic import INSTRUCTIONS, classify_queue, queue_prompts

    log = install_fake_claude(tmp_path, monkeypatch, LABELLED_FAKE)
    monkeypatch.setenv("MEMDOWN_MINING_SEMANTIC", "true")
    for phrase in ("phrased as a statement or a question", "we already have X", "do we not have X?",
                   "standing preference", "chatter", "any language"):
        assert phrase in INSTRUCTIONS
    queue_prompts(memory_root, "sess-l", "t.jsonl", [(f"turn-{k}", p, "") for k, p in enumerate(LABELLED_PHRASINGS)])
    report = classify_queue(memory_root, load_config(memory_root))
    assert report["prompts"] == len(LABELLED_PHRASINGS) and report["added"] == 6
    sent = json.loads(log.read_text().splitlines()[0])["prompt"]
    for k, phrase in enumerate(LABELLED_PHRASINGS, 1):
        assert sent.count(f"[{k}] user: {phrase}") == 1
    got = {(s.turn, s.type, s.text) for s in store.load(memory_root)}
    assert ("turn-3", "correction", "我是说放在全局规则里") in got
    assert ("turn-5", "memory_request", "remember that the docs live in site/") in got
    assert not {t for t, _, _ in got} & {"turn-6", "turn-7", "turn-8"}  # chatter and a task stay unsignalled
