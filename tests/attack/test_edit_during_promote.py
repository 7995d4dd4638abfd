"""A person's edit is never lost to ``reflect promote`` / ``reflect undo``: real processes on both sides.

While real processes promote learnings into CLAUDE.md and undo them again (``review.promote`` and
``review.undo``, what ``memdown reflect promote`` / ``undo`` run), three editor processes save CLAUDE.md,
learnings.md and a day file every ~150 ms the way editors do (``editor_race.Editor``: reload, type, save;
in place or by rename). Every note an editor saved must be in its file at the end: promote and undo write
through the compare-and-swap editor (``fsutil.edit_locked``), which rereads the file when a save came
between its read and its write. (An editor's own stale save may drop memdown's rule line: that is the
person's choice, not a lost edit, so the rule lines are not counted.)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memdown.signals import store
from memdown.signals.store import Signal

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent

# One editor process: saves ``path`` until ``stop`` exists, then prints the notes it saved.
EDITOR = """import json, os, sys, time
sys.path[:0] = [{tests!r}]
from pathlib import Path
from editor_race import Editor
editor = Editor(Path({path!r}), {style!r}, every=0.15, typing=0.02)
editor.start()
while not os.path.exists({stop!r}):
    time.sleep(0.02)
editor.stop()
print(json.dumps(editor.saved))
"""
DECIDE = """import json, sys
from pathlib import Path
from memdown.config import load_config
from memdown.learning import review
root = Path(sys.argv[1])
if sys.argv[2] == "promote":
    done = review.promote(root, sys.argv[3], "project", config=load_config(root))
else:
    done = review.undo(root, sys.argv[3], reason="a person took it back")
print(json.dumps(done, default=str))
"""
RULES = ["Use pnpm, not npm.", "Never run `git push --force` on main.", "Run the tests with `uv run pytest`.",
         "Prefer `rg` over `grep` in this repository.", "Keep migrations in `db/migrations/`.",
         "Do not edit `package-lock.json` by hand."]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "AI_AGENT", "CODEX_SANDBOX")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    return env


@pytest.mark.integration
@pytest.mark.parametrize("style", ["inplace", "rename"])
def test_editors_saving_while_promote_and_undo_run_lose_no_save(memory_root: Path, tmp_path: Path, style: str):
    memory_root.mkdir(parents=True)
    (memory_root / "memory").mkdir()
    claude = memory_root.parent / "CLAUDE.md"
    claude.write_text("# Project\n\nA person's own guidance.\n")
    day = memory_root / "memory" / "2026-11-28.md"
    day.write_text("# 2026-11-28\n\n## Session 09:00\n\n### 09:05\n- Fixed the rounding in billing\n")
    signals = store.append(memory_root, [Signal("correction", f"no, {rule[0].lower()}{rule[1:]}", 3, session="s1",
                                                turn=f"t{n}", pattern="en.correction.x") for n, rule in enumerate(RULES)])
    first = subprocess.run([sys.executable, "-c", DECIDE, str(memory_root), "promote", signals[0].id],
                           capture_output=True, text=True, env=_env(), timeout=120)
    assert first.returncode == 0, first.stderr  # learnings.md exists from here on, for its editor
    learnings_md = memory_root / "learnings.md"
    assert learnings_md.is_file() and "memdown:" in claude.read_text()

    stop = tmp_path / "stop-editors"
    editors = {path: subprocess.Popen([sys.executable, "-c", EDITOR.format(tests=str(TESTS), path=str(path),
                                                                          style=style, stop=str(stop))],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
               for path in (claude, learnings_md, day)}
    decided = [json.loads(first.stdout)]
    try:
        time.sleep(0.3)  # every editor is saving
        for sig in signals[1:]:
            decided.append(_decide("promote", memory_root, sig.id))
        for done in [d for d in decided if d.get("learning")][::2]:  # half taken back, the editors still saving
            decided.append(_decide("undo", memory_root, done["learning"]))
        time.sleep(0.2)
    finally:
        stop.touch()
        saved = {path: json.loads(proc.communicate(timeout=60)[0] or "[]") for path, proc in editors.items()}
    # An editor's stale save can drop memdown's own entry in learnings.md (reload, type, save over memdown's write),
    # and promote or undo then finds no such learning (one line, NotFoundError): not a lost edit of the person's.
    # A file saved more often than memdown's compare-and-swap can settle: memdown gives up its own write
    # (EditConflictError, one line, "retried later"), never the person's.
    assert all(done.get("changed") or done.get("action") == "revert" or done.get("gone") or done.get("conflict")
               for done in decided), decided
    assert sum(bool(done.get("changed")) for done in decided) >= 2, decided  # decisions did write meanwhile
    for path, notes in saved.items():
        assert len(notes) >= 5, (path.name, notes)  # the editor really raced the decisions
        text = path.read_text()
        lost = [note for note in notes if note + "\n" not in text]
        assert lost == [], f"{path.name}: {len(lost)} of {len(notes)} saves lost"
    print({"decisions": len(decided), "wrote": sum(bool(d.get("changed")) for d in decided),
           "gone": sum("gone" in d for d in decided), "conflict": sum("conflict" in d for d in decided),
           "saves": {path.name: len(notes) for path, notes in saved.items()}})


def _decide(action: str, root: Path, item: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", DECIDE, str(root), action, item], capture_output=True, text=True,
                          env=_env(), timeout=120)
    if proc.returncode and "NotFoundError: no entry LRN-" in proc.stderr:  # see the test: an editor dropped it
        return {"gone": proc.stderr.strip().rsplit(" ", 1)[-1]}
    if proc.returncode and "EditConflictError: " in proc.stderr:  # the file kept changing: memdown gave up its write
        return {"conflict": proc.stderr.strip().rsplit("EditConflictError: ", 1)[-1]}
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
