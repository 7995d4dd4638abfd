"""Deleted by a person means deleted everywhere, for PART of an entry too (session 9 attack).

``memdown verify`` followed only whole-entry deletions: a person who cut a word, a sentence or a line out
of an entry and kept the rest left those words in the signals of that turn (and in the next turn's
``After:``/``Assistant:`` lines), in the prompts kept for repetition (``state/prompts.jsonl``), in the
healing ledger (which could write the old words back) and in the index's old versions and cached vectors.
Now the words a person cut, and that the day file no longer holds anywhere, are forgotten by the same
reconcile (``services/upkeep/forget_cuts.py``); the entry stays as the person left it.

Mutations that turn these red: ``return cuts`` at the top of ``find_cuts`` (nothing reconciled);
``written.adopt`` made a no-op (the ledger keeps the old words: heal writes them back); ``_holds`` made
``return False`` (signals and kept prompts keep them); dropping ``purge_index`` from ``purge_cuts`` (the
index history keeps them); ``and not _holds(everywhere, [run])`` removed (words a person moved elsewhere
drop the signals).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from test_forget import UNIQUE, _recorded, _traces


def _cut(day: Path, turn_words: str, cut: str) -> str:
    """The person edits the entry holding ``turn_words``: every ``cut`` (a regex) leaves it, the rest stays."""
    from memdown.store import forgetting

    text = day.read_text()
    entry = next(e for e in forgetting.entries_in(day, text) if turn_words in e.block)
    lines = text.split("\n")
    edited = re.sub(cut, "", "\n".join(lines[entry.start:entry.end]), flags=re.I)
    lines[entry.start:entry.end] = edited.split("\n")
    day.write_text("\n".join(lines))
    return entry.turn


def _outside_archive(root: Path, home: Path, needle: str = UNIQUE) -> list[str]:
    """Traces outside the transcript archive (the client's record of the turn: ``forget`` takes it)."""
    return [t for t in _traces(root, home, needle=needle) if "/transcripts/" not in t]


def test_a_word_cut_from_an_entry_leaves_every_derived_file(isolate_paths: Path, memory_root: Path,
                                                             fake_embedder, monkeypatch) -> None:
    from memdown.services.upkeep.verify import verify
    from memdown.signals import restated
    from memdown.store import daily, written

    home, memdown_home = Path(os.environ["HOME"]), Path(os.environ["MEMDOWN_HOME"])
    b, _transcript, mem = _recorded(memory_root, home, isolate_paths, fake_embedder)
    places = _outside_archive(memory_root, memdown_home)
    assert any("signals/" in t for t in places) and any("state/written" in t for t in places)
    assert any("prompts.jsonl" in t for t in places) and any("index/" in t for t in places)

    day = memory_root / "memory" / "2026-11-20.md"
    monkeypatch.setattr(written, "HEAL_SECONDS", -1.0)  # long after the write
    turn = _cut(day, UNIQUE, UNIQUE)
    assert "commit messages" in day.read_text() and UNIQUE not in day.read_text().lower()
    report = verify(mem)
    assert report.cut == 1 and report.purged == 0 and not report.deleted_turns
    assert _outside_archive(memory_root, memdown_home) == []
    # the entry stays as the person left it, and healing writes back their version, never the cut
    assert f"turn:{turn}" in day.read_text() and daily.heal_all(memory_root) == []
    assert written.load(memory_root, day)[turn].block.strip() in day.read_text()
    assert all(row.get("turn") != turn for row in restated.load(memory_root))
    assert verify(mem).cut == 0  # reconciled once


def test_a_sentence_cut_from_an_entry_goes_from_other_signals_quoting_it(isolate_paths: Path, memory_root: Path,
                                                                         fake_embedder, monkeypatch) -> None:
    """A cut of 16+ characters is looked for in every signal, as ``forget --text`` looks for a phrase."""
    from memdown.services.upkeep.verify import verify
    from memdown.store import written

    home = Path(os.environ["HOME"])
    _b, _transcript, mem = _recorded(memory_root, home, isolate_paths, fake_embedder)
    sentence = "don't edit the changelog by hand"
    assert sentence in "".join(p.read_text().lower() for p in (memory_root / "signals").glob("*.md"))
    monkeypatch.setattr(written, "HEAL_SECONDS", -1.0)
    _cut(mem.root / "memory" / "2026-11-20.md", "changelog", re.escape(sentence))
    assert verify(mem).cut == 1
    assert sentence not in "".join(p.read_text().lower() for p in (memory_root / "signals").glob("*.md"))
    assert _outside_archive(memory_root, Path(os.environ["MEMDOWN_HOME"]), needle=sentence) == []


def test_words_moved_or_kept_elsewhere_in_the_day_drop_nothing(isolate_paths: Path, memory_root: Path,
                                                                fake_embedder, monkeypatch) -> None:
    """A person who moves a line (or cuts words the day still holds elsewhere) deleted nothing: the signals stay."""
    from memdown.services.upkeep.verify import verify
    from memdown.store import written

    home = Path(os.environ["HOME"])
    _b, _transcript, mem = _recorded(memory_root, home, isolate_paths, fake_embedder)
    signals = sorted(p.read_text() for p in (memory_root / "signals").glob("*.md"))
    day = memory_root / "memory" / "2026-11-20.md"
    monkeypatch.setattr(written, "HEAL_SECONDS", -1.0)
    _cut(day, UNIQUE, UNIQUE)
    day.write_text(day.read_text() + f"\n## Notes\n\nThe codename is {UNIQUE}.\n")  # the person keeps the word
    assert verify(mem).cut == 0
    assert sorted(p.read_text() for p in (memory_root / "signals").glob("*.md")) == signals


def test_a_restatement_cut_from_its_entry_leaves_the_preference(isolate_paths: Path, memory_root: Path,
                                                                fake_embedder, monkeypatch) -> None:
    """The prompt kept for repetition goes with the words cut from its entry: the preference restated in
    four prompts is counted from the three left and no longer quotes the cut one. Red with ``kept = {}``
    in ``purge_cuts`` (the turn's kept prompt stays and is counted)."""
    from datetime import datetime

    from memdown.api import Memory
    from memdown.config import load_config
    from memdown.services.capture.signal_mining import mine_session
    from memdown.services.upkeep.verify import verify
    from memdown.signals import restated, store
    from memdown.store import daily, written
    from memdown.store.layout import init_layout
    from test_forget_restated import FORGOTTEN, SESSIONS
    from transcript_factory import TranscriptBuilder

    init_layout(memory_root)
    for n, (prompt,) in enumerate(SESSIONS):
        tb = TranscriptBuilder(session_id=f"pt-{n}")
        turn = tb.prompt(prompt)
        tb.tool("Read", {"file_path": "src/app.py"}, "ok")
        tb.reply("Entendido.")
        daily.append_entry(memory_root, daily.Entry(datetime(2026, 11, 20, 10, n), f"pt-{n}", turn, "~/t.jsonl",
                                                    [f"Asked: {prompt}", "Outcome: read src/app.py"]))
        mine_session(memory_root, tb.write(tmp_path_of(isolate_paths) / f"pt-{n}.jsonl"), f"pt-{n}",
                     config=load_config(memory_root))
    (sig,) = [s for s in store.load(memory_root) if s.pattern == restated.PATTERN]
    assert FORGOTTEN in sig.extra["restated_as"] and sig.extra["restated"] == "4"
    monkeypatch.setattr(written, "HEAL_SECONDS", -1.0)
    _cut(memory_root / "memory" / "2026-11-20.md", FORGOTTEN, "por favor!")  # short: looked for in its turn only
    mem = Memory.open(memory_root, embedder=fake_embedder)
    assert verify(mem).cut == 1
    left = [s for s in store.load(memory_root) if s.pattern == restated.PATTERN]
    assert [s.extra["restated"] for s in left] == ["3"]
    assert FORGOTTEN not in "".join(p.read_text() for p in (memory_root / "signals").glob("*.md"))
    assert FORGOTTEN not in restated.prompts_file(memory_root).read_text()


def tmp_path_of(project: Path) -> Path:
    folder = project.parent / "transcripts"
    folder.mkdir(exist_ok=True)
    return folder
