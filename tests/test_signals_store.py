"""Signals markdown: ids, round trip, redaction, hand edits, locked concurrent appends."""
from __future__ import annotations

import datetime as dt
import subprocess
import sys
import textwrap

from memdown.signals import store
from memdown.store import entries
from memdown.signals.store import Signal

NOW = dt.datetime(2026, 11, 22, 10, 0, tzinfo=dt.timezone.utc)


def _sig(text: str, kind: str = "correction", **kw) -> Signal:
    return Signal(kind, text, 2, session="s1", turn="t-" + text[:4], transcript="~/.claude/projects/p/s1.jsonl", **kw)


def _writer(root, tag: str = "K3F9") -> None:
    (root / "state").mkdir(parents=True, exist_ok=True)
    (root / "state" / "writer-id").write_text(tag + "\n")


def test_append_assigns_stable_ids_and_round_trips(memory_root):
    _writer(memory_root)
    written = store.append(memory_root, [_sig("no, use pnpm"), _sig("always run make lint", "convention")], now=NOW)
    assert [s.id for s in written] == ["SIG-20261122-K3F9-0001", "SIG-20261122-K3F9-0002"]
    more = store.append(memory_root, [_sig("stop using var", tags=["var"])], now=NOW)
    assert more[0].id == "SIG-20261122-K3F9-0003"
    path = memory_root / "signals" / "2026-11-22.md"
    text = path.read_text()
    assert text.startswith("# Signals 2026-11-22")
    assert "<!-- session:s1 turn:t-no,%20 transcript:~/.claude/projects/p/s1.jsonl -->" in text  # spaces escaped
    loaded = store.load(memory_root)
    assert [(s.id, s.type, s.confidence, s.status, s.text) for s in loaded] == [
        ("SIG-20261122-K3F9-0001", "correction", 2, "captured", "no, use pnpm"),
        ("SIG-20261122-K3F9-0002", "convention", 2, "captured", "always run make lint"),
        ("SIG-20261122-K3F9-0003", "correction", 2, "captured", "stop using var"),
    ]
    assert loaded[2].tags == ["var"] and loaded[0].session == "s1" and loaded[0].turn == "t-no, "
    assert loaded[0].transcript == "~/.claude/projects/p/s1.jsonl"


def test_secrets_are_redacted_everywhere(memory_root):
    token = "ghp_" + "a1B2c3D4e5" * 4
    store.append(memory_root, [Signal("memory_request", f"remember the token is {token}", 3,
                                      context=f"After: Bash export GITHUB_TOKEN={token}",
                                      extra={"input": f"curl -H 'Authorization: Bearer {token}'"})], now=NOW)
    text = (memory_root / "signals" / "2026-11-22.md").read_text()
    assert token not in text
    assert "[REDACTED:" in text


def test_hand_edits_are_respected(memory_root):
    store.append(memory_root, [_sig("no, use pnpm"), _sig("use httpx")], now=NOW)
    path = memory_root / "signals" / "2026-11-22.md"
    text = path.read_text()
    text = text.replace("- status: captured", "- status: dismissed", 1).replace("> use httpx", "> use httpx, not requests")
    text += "\nA note a person added at the end.\n"
    path.write_text(text)
    first, second = store.load(memory_root)
    assert first.status == "dismissed" and second.status == "captured"
    assert second.text == "use httpx, not requests"
    # a scripted update changes only its own line; the rest stays byte for byte
    store.update(memory_root, {second.id: {"status": "analyzed", "reason": "looked at"}})
    after = path.read_text()
    assert after.replace("- status: analyzed\n", "- status: captured\n").replace("- reason: looked at\n", "") == text
    # a stale plan never overwrites a decision made meanwhile
    assert store.update(memory_root, {first.id: {"status": "archived"}}, only_if_status=("captured", "analyzed")) == []
    assert store.get(memory_root, first.id).status == "dismissed"


def test_ids_survive_a_lost_counter_and_hand_added_entries(memory_root):
    _writer(memory_root)
    store.append(memory_root, [_sig("a one"), _sig("b two")], now=NOW)
    (memory_root / "state" / "signal-seq.json").unlink()
    path = memory_root / "signals" / "2026-11-22.md"
    path.write_text(path.read_text() + "## SIG-20261122-K3F9-0007 · correction\n- type: correction\n\n> by hand\n")
    assert store.append(memory_root, [_sig("c three")], now=NOW)[0].id == "SIG-20261122-K3F9-0008"


def test_concurrent_appends_from_processes_get_unique_ids(memory_root, tmp_path):
    script = tmp_path / "append.py"
    script.write_text(textwrap.dedent(f"""
        import datetime as dt, sys
        from pathlib import Path
        from memdown.signals import store
        root = Path({str(memory_root)!r})
        now = dt.datetime(2026, 11, 22, 10, 0, tzinfo=dt.timezone.utc)
        for i in range(10):
            store.append(root, [store.Signal("failure", f"error {{sys.argv[1]}}-{{i}}", 1)], now=now)
    """))
    procs = [subprocess.Popen([sys.executable, str(script), str(n)]) for n in range(4)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    ids = [s.id for s in store.load(memory_root)]
    assert len(ids) == 40 and len(set(ids)) == 40


def test_entries_sections_and_fields():
    text = "# Improvements\n\n## Pending\n\n## Applied\n"
    rendered = entries.render_entry(3, "IMP-20261122-0001", "Add a make target", {"created": "2026-11-22"},
                                    body="Add a `make test` target.")
    text = entries.insert_in_section(text, "Pending", rendered, section_level=2)
    parsed, _ = entries.parse(text, 3)
    assert [(e.id, e.section, e.fields, e.body) for e in parsed] == [
        ("IMP-20261122-0001", "Pending", {"created": "2026-11-22"}, "Add a `make test` target.")]
    text = entries.set_fields(text, "IMP-20261122-0001", 3, {"created": None, "sources": ["SIG-1", "SIG-2"]})
    parsed, _ = entries.parse(text, 3)
    assert parsed[0].fields == {"sources": "SIG-1, SIG-2"}
    assert text.index("## Pending") < text.index("IMP-20261122-0001") < text.index("## Applied")


def test_ids_name_their_writer_and_old_ids_keep_working(memory_root, tmp_path):
    """Two clones writing the same day make different ids; ids written before the tag still resolve."""
    other = tmp_path / "other" / ".memdown"
    first = store.append(memory_root, [_sig("use uv")], now=NOW)[0].id
    second = store.append(other, [_sig("use uv")], now=NOW)[0].id
    assert first != second
    assert entries.ID_RE.match(first) and first.startswith("SIG-20261122-") and len(first.split("-")) == 4
    assert entries.writer_id(memory_root) == first.split("-")[2]  # stable for the clone
    path = memory_root / "signals" / "2026-11-22.md"
    path.write_text(path.read_text() + "\n## SIG-20261122-0001 · correction\n- type: correction\n\n> written by 0.1\n")
    assert store.get(memory_root, "sig-20261122-0001").text == "written by 0.1"
    assert store.get(memory_root, first.lower()).text == "use uv"
    assert store.update(memory_root, {"SIG-20261122-0001": {"status": "dismissed"}}) == ["SIG-20261122-0001"]
    assert store.get(memory_root, first).status == "captured"
