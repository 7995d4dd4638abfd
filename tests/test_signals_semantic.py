"""The optional `claude -p` classifier, with a fake `claude` first on PATH."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

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
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "claude"
    exe.write_text(FAKE.format(python=os.sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "claude.log"
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CLAUDE_LOG", str(log))
    return log


def _session(tmp_path: Path) -> Path:
    tb = TranscriptBuilder(session_id="sess-s")
    tb.prompt("set up the project")
    tb.tool("Bash", {"command": "npm install"}, "ok")
    tb.reply("Done with npm.")
    tb.prompt("no, use pnpm not npm")
    tb.reply("Switching.")
    tb.prompt("that's fine but in our team lockfiles are committed")
    tb.reply("Noted.")
    tb.prompt("this line is invented for the test")
    return tb.write(tmp_path / "sess-s.jsonl")


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
    (tmp_path / "sess-s2.jsonl").write_text((tmp_path / "sess-s.jsonl").read_text().replace("sess-s", "sess-t"))
    mine_session(memory_root, tmp_path / "sess-s2.jsonl", "sess-t", config=load_config(memory_root))
    report = sweep(memory_root, config=load_config(memory_root))
    assert report["semantic"]["fallback"] is True
    assert [s.type for s in store.load(memory_root)] == [s.type for s in mined] * 2
    monkeypatch.setenv("PATH", "/nonexistent")
    assert not available(load_config(memory_root))


def test_parse_reply_tolerates_prose():
    assert parse_reply('Sure!\n[{"n": 1, "type": "correction"}]\nBye') == [{"n": 1, "type": "correction"}]
    assert parse_reply("no json here") is None
    assert parse_reply(None) is None
