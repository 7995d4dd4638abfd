"""Lost updates under a person's editor and git: tried / lost, for human saves and for entries (issue 18).

    python bench/bench_lost_updates.py [--hooks 72] [--every 0.1] [--scenarios inplace,rename,stash,pull]
                                       [--source DIR]

Real ``python -m memdown hook Stop`` processes (detached workers, no model)
record ``--hooks`` turns (24 sessions, fired 50 ms apart) while:

- ``inplace``: an editor saves the day file every ``--every`` s by truncating and writing it;
- ``rename``: an editor saves it every ``--every`` s by writing a temp file and renaming it over;
- ``stash``: ``git stash; git stash pop`` runs in a loop;
- ``pull``: this clone commits and pulls in a loop while a teammate's clone commits and pushes notes.

Each editor save adds a unique note (a lost human save is a missing note).
"lost after race" counts entries missing once the workers are done; "lost
after next turn" counts them after one more turn's Stop (memdown heals then).
``--source DIR`` runs the hooks from another source tree (``git archive`` of
an older commit) for the before figures.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from editor_race import Editor, Loop, Recording, git, teammate_clone  # noqa: E402

SESSIONS = 24


def _day(root: Path) -> Path:
    return sorted((root / "memory").glob("*.md"))[0]


def _repo(tmp: Path, name: str, extra: dict) -> tuple[Path, Recording]:
    project = tmp / name
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    rec = Recording(tmp, project, SESSIONS, name=name, extra_env=extra)
    rec.fire(0, sync=True).wait(120)
    git(project, "add", "-A")
    git(project, "commit", "-qm", "memory")
    return project, rec


def scenario(kind: str, args: argparse.Namespace) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix=f"memdown-lost-{kind}-"))
    extra = {"PYTHONPATH": str(Path(args.source).resolve())} if args.source else {}
    rounds = max(1, args.hooks // SESSIONS)
    saves: list[str] = []
    lost_notes: list[str] = []
    if kind in ("inplace", "rename"):
        project = tmp / "project"
        (project / ".git").mkdir(parents=True)
        rec = Recording(tmp, project, SESSIONS, extra_env=extra)
        rec.fire(0, sync=True).wait(120)
        actor = Editor(_day(rec.root), kind, every=args.every)
    else:
        project, rec = _repo(tmp, kind, extra)
        if kind == "stash":
            actor = Loop(lambda: (git(project, "stash", "-q", check=False),
                                  git(project, "stash", "pop", "-q", check=False)), every=args.every)
        else:
            commit_note, pushed, _notes = teammate_clone(tmp, project, _day(rec.root))
            teammate = Loop(commit_note, every=2 * args.every)
            teammate.start()

            def pull() -> None:
                git(project, "add", "-A", check=False)
                git(project, "commit", "-qm", "wip", check=False)
                git(project, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main", check=False)

            actor = Loop(pull, every=args.every)
    actor.start()
    try:
        rec.fire_rounds(rounds, gap=0.05)
        rec.settle(timeout=args.timeout)
    finally:
        actor.stop()
        if kind == "pull":
            teammate.stop()
    after_race = len(rec.lost())
    if kind in ("inplace", "rename"):
        saves, lost_notes = actor.saved, actor.lost_notes()
    elif kind == "pull":
        pull()
        text = _day(rec.root).read_text()
        saves = pushed()
        lost_notes = [n for n in saves if n + "\n" not in text]
    rec.fire(1, sync=True).wait(120)
    rec.settle(timeout=args.timeout)
    result = {"scenario": kind, "entries": len(rec.expected()), "lost_after_race": after_race,
              "lost_after_next_turn": len(rec.lost()), "duplicates": rec.duplicates(),
              "human_saves": len(saves), "human_lost": len(lost_notes), "load": os.getloadavg()[0]}
    shutil.rmtree(tmp, ignore_errors=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hooks", type=int, default=72)
    parser.add_argument("--every", type=float, default=0.1)
    parser.add_argument("--scenarios", default="inplace,rename,stash,pull")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--source", help="run the hooks from this source tree instead of the installed memdown")
    args = parser.parse_args()
    print(f"lost updates: {args.hooks} Stop hooks, a save or git step every {args.every * 1000:.0f} ms"
          f"{', source ' + args.source if args.source else ''}")
    print(f"{'scenario':9} {'entries lost: after race':>25} {'after next turn':>16} {'dupes':>6} "
          f"{'human saves lost':>17} {'load':>5}")
    for kind in args.scenarios.split(","):
        r = scenario(kind, args)
        print(f"{r['scenario']:9} {str(r['lost_after_race']) + '/' + str(r['entries']):>25} "
              f"{str(r['lost_after_next_turn']) + '/' + str(r['entries']):>16} {r['duplicates']:6} "
              f"{str(r['human_lost']) + '/' + str(r['human_saves']):>17} {r['load']:5.1f}", flush=True)


if __name__ == "__main__":
    main()
