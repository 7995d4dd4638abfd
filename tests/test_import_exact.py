"""Import is exact (#25.5): reused uuids lose nothing, and any file name anchors correctly."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import run_memdown
from transcript_factory import TranscriptBuilder

from memdown.config import load_config
from memdown.services.capture.record import record_session
from memdown.services.capture.import_sources import project_key, survey
from memdown.services.capture.importer import import_transcripts
from memdown.store.anchors import Anchor, anchor_escape, anchor_unescape, parse_anchor
from memdown.store.daily import heal_recent, read_entries, vanished

OLD = 1_700_000_000


def _history(place: Path) -> Path:
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / project_key(place)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _save(b: TranscriptBuilder, path: Path) -> Path:
    b.write(path)
    os.utime(path, (OLD, OLD))
    return path


def _import(root: Path, targets=()):
    return import_transcripts(root, survey(list(targets), cwd=Path.cwd(), root=root), config=load_config(root),
                              index=False)


def _entries(root: Path) -> list:
    return [e for p in sorted((root / "memory").glob("*.md")) for e in read_entries(p) if e.anchor]


def _reuse_uuid(b: TranscriptBuilder, line: int, of: int) -> None:
    """Give the prompt line ``line`` the uuid of prompt line ``of`` (a client bug, a merged file)."""
    old = b.lines[line]["uuid"]
    b.lines[line]["uuid"] = b.lines[of]["uuid"]
    for entry in b.lines:
        if entry.get("parentUuid") == old:
            entry["parentUuid"] = b.lines[of]["uuid"]


def test_two_prompts_sharing_a_uuid_both_land_once(isolate_paths, memory_root):
    folder = _history(isolate_paths)
    b = TranscriptBuilder(cwd=str(isolate_paths))
    b.prompt("Rename the exporter's retry flag to --retries")
    b.reply("Renamed the flag to --retries in cli.py.")
    b.prompt("Now bump the default timeout to 30 seconds")
    b.reply("The default timeout is 30 seconds now.")
    _reuse_uuid(b, 2, 0)
    path = _save(b, folder / f"{b.session_id}.jsonl")
    first = _import(memory_root)
    texts = " ".join(e.body for e in _entries(memory_root))
    assert first.entries == 2 and "--retries" in texts and "30 seconds" in texts, texts
    assert len({e.anchor.turn for e in _entries(memory_root)}) == 2
    assert _import(memory_root).entries == 0  # idempotent
    b.prompt("And log each retry")
    b.reply("Each retry is logged at INFO.")
    _save(b, path)
    stop = record_session(memory_root, path, b.session_id, config=load_config(memory_root))
    assert stop.written == 1, stop  # the Stop after the import writes only the new turn
    assert len(_entries(memory_root)) == 3


def test_a_uuid_reused_by_another_sessions_prompt_is_recorded_but_a_copy_is_not(isolate_paths, memory_root):
    folder = _history(isolate_paths)
    one = TranscriptBuilder(cwd=str(isolate_paths))
    one.prompt("Pin the lockfile to npm 10")
    one.reply("Pinned npm 10 in package.json engines.")
    _save(one, folder / f"{one.session_id}.jsonl")
    _import(memory_root)
    other = TranscriptBuilder(cwd=str(isolate_paths))
    other.prompt("Add a healthcheck endpoint")
    other.reply("Added GET /healthz returning 200.")
    other.lines[0]["uuid"] = one.lines[0]["uuid"]  # the same uuid, another prompt
    _save(other, folder / f"{other.session_id}.jsonl")
    copy = TranscriptBuilder(cwd=str(isolate_paths))
    copy.lines = [{**line, "sessionId": copy.session_id} for line in one.lines]  # a fork's copy of `one`
    _save(copy, folder / f"{copy.session_id}.jsonl")
    report = _import(memory_root)
    sessions = sorted(e.anchor.session for e in _entries(memory_root))
    assert sessions == sorted([one.session_id, other.session_id]), sessions
    assert report.entries == 1 and report.skipped == 1


@pytest.mark.parametrize("name", ["new\nline.jsonl", "tab\there.jsonl", "esc\x1b[2J.jsonl", "sp ace%20.jsonl",
                                  "arrow-->.jsonl", "\u2028sep.jsonl", "caf\u00e9 \u6587.jsonl"])
def test_any_file_name_anchors_and_verify_finds_every_turn(isolate_paths, memory_root, tmp_path, name):
    b = TranscriptBuilder(cwd=str(isolate_paths))
    b.prompt("Document the backup rotation")
    b.reply("Documented the 7-day rotation in docs/backup.md.")
    path = _save(b, tmp_path / "odd" / name)
    assert _import(memory_root, [path]).entries == 1
    (entry,) = _entries(memory_root)
    assert Path(anchor_unescape(entry.anchor.transcript)).expanduser() == path
    assert entry.anchor.turn == b.turn_uuids[0]
    raw = next((memory_root / "memory").glob("*.md")).read_text()
    anchor_line = next(line for line in raw.splitlines() if "session:" in line)
    assert "\x1b" not in anchor_line and "\t" not in anchor_line and anchor_line.rstrip().endswith("-->")
    assert vanished(memory_root) == ([], []) and heal_recent(memory_root) == []


def test_anchor_values_round_trip_and_old_anchors_still_read():
    for value in ["/a b/c.jsonl", "/x\n\ty\x1b]52;c;x\x07.jsonl", "100%", "%41", "a-->b", "/t/\udcff\u200bz",
                  "/\u5bb6/\u6587\u4ef6 1.jsonl", "\x85\u2028\u2029\x00"]:
        escaped = anchor_escape(value)
        assert anchor_unescape(escaped) == value
        anchor = parse_anchor("x " + Anchor(anchor_escape("s 1"), anchor_escape("t\t2"), escaped).render() + " y")
        assert anchor is not None and anchor_unescape(anchor.transcript) == value
        assert (anchor.session, anchor.turn) == ("s 1", "t\t2")  # keys come back decoded
    # written before the encoding covered more than %, space and -->: read as before
    old = parse_anchor("<!-- session:abc turn:def transcript:~/.claude/p/a%20b%25c--%3E.jsonl -->")
    assert old == Anchor("abc", "def", "~/.claude/p/a%20b%25c--%3E.jsonl")
    assert anchor_unescape(old.transcript) == "~/.claude/p/a b%c-->.jsonl"


def test_the_import_report_is_one_line_per_reason_whatever_a_cwd_holds(isolate_paths, memory_root):
    folder = _history(isolate_paths)
    b = TranscriptBuilder(cwd=f"{isolate_paths.parent}-project\n\x1b[2Jfake line")
    b.prompt("hello")
    b.reply("hi")
    _save(b, folder / f"{b.session_id}.jsonl")
    proc = run_memdown("import", "--no-index", env={"MEMDOWN_ARCHIVE_ENABLED": "0"})
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("skipped")]
    assert len(lines) == 1 and "another project" in lines[0] and "\x1b" not in proc.stdout, proc.stdout
    assert json.loads(run_memdown("import", "--no-index", "--json").stdout)["skipped_sessions"] == 1


def test_a_resumed_sessions_file_is_imported_under_its_own_session(isolate_paths, memory_root):
    """A resumed session's file starts with the lines of the session it resumed (their older sessionId):
    its entries carry the file's own session, the one its Stop hook names, and that Stop adds nothing twice."""
    folder = _history(isolate_paths)
    earlier = TranscriptBuilder(cwd=str(isolate_paths))
    earlier.prompt("Set up the staging database")
    earlier.reply("Created the staging database.")
    resumed = TranscriptBuilder(cwd=str(isolate_paths))
    resumed.lines = [dict(line) for line in earlier.lines]
    resumed.parent = resumed.lines[-1]["uuid"]
    resumed._minute = earlier._minute
    resumed.prompt("Now seed it with the fixtures")
    resumed.reply("Seeded staging with the fixtures.")
    path = _save(resumed, folder / f"{resumed.session_id}.jsonl")
    _import(memory_root)
    assert {e.anchor.session for e in _entries(memory_root)} == {resumed.session_id}
    stop = record_session(memory_root, path, resumed.session_id, config=load_config(memory_root))
    assert stop.written == 0 and len(_entries(memory_root)) == 2


def test_a_cited_file_name_of_any_shape_keeps_the_anchor_whole():
    from memdown.store.citations import Citation, parse_cites, render_cites

    cites = [Citation("src/new\nline\tand, # ~ >.py", "run#x", "9c1e77a0ab12"), Citation("README.md")]
    anchor = parse_anchor("x " + Anchor("s", "t", "p", "abc123", render_cites(cites)).render())
    assert anchor is not None and parse_cites(anchor.cites) == cites
    assert parse_cites("src/a%20b%2Cc.py#x~9c1e77a0") == [Citation("src/a b,c.py", "x", "9c1e77a0")]  # as written before


def test_the_drill_down_opens_an_imported_file_by_its_anchor_or_its_session(isolate_paths, memory_root, tmp_path):
    """What expand shows (the anchor's escaped path) and the session id both lead back to the turns,
    also for a file imported from outside the client's projects folder."""
    from memdown.services.recall.drilldown import transcript_view

    b = TranscriptBuilder(cwd=str(isolate_paths))
    b.prompt("Document the backup rotation")
    b.reply("Documented the 7-day rotation in docs/backup.md.")
    path = _save(b, tmp_path / "exported" / "odd\tname 1.jsonl")
    _import(memory_root, [path])
    (entry,) = _entries(memory_root)
    for ref in (entry.anchor.transcript, b.session_id, b.session_id[:8]):
        shown = transcript_view(memory_root, ref)
        assert "Document the backup rotation" in shown, ref
