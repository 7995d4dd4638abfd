"""Merging memory files from two clones, entry by entry (a git merge driver).

Git's built-in ``merge=union`` works line by line: when both clones append to
the same day file, lines the two additions share at their edges are written
once. That drops the last bullet of one entry when both end alike, and moves
one clone's entry under the other's ``## Session`` and ``###`` headings when
both start alike (measured, git 2.39; see docs/teams.md). So memdown merges
whole entries instead:

- each file is cut into units at its headings (a daily entry, a signal, a
  learning, a section heading, the text before the first heading);
- git's own 3-way merge then runs over those units (each encoded as one
  line), keeping both sides' additions; identical units are written once;
- a unit that names an entry (an id like ``SIG-…``/``LRN-…``, or a session
  anchor) and was changed on one side only takes that side's version; changed
  on both sides differently, it is a real conflict and is marked as one.

Nothing is dropped: every unit of either side is in the result, or was
deleted on one side and left untouched on the other; and such a deleted entry
stays deleted (a person's deletion, a revert, ``memdown forget``'s tombstone),
also where ``--union`` kept both sides of a hunk the other side appended to.
"""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from markdown_it import MarkdownIt

from ... import fsutil
from ...store.entries import ID_RE
from ...store.anchors import parse_anchor

_md = MarkdownIt("commonmark", {"html": True})
_SEP = "\x1e"  # joins a unit's lines into one line for git's merge


def units(text: str) -> list[str]:
    """The file cut at every heading; each unit without its trailing blank lines."""
    lines = text.split("\n")
    starts = sorted({t.map[0] for t in _md.parse(text) if t.type == "heading_open" and t.map})
    bounds = ([0] if not starts or starts[0] != 0 else []) + starts + [len(lines)]
    out = []
    for a, b in zip(bounds, bounds[1:]):
        unit = "\n".join(lines[a:b]).rstrip("\n")
        if unit.strip():
            out.append(unit)
    return out


def unit_key(unit: str) -> str | None:
    """What identifies an entry across versions: its id, else its session anchor."""
    first, _, rest = unit.partition("\n")
    match = ID_RE.match(first.lstrip("#").strip()) if first.startswith("#") else None
    if match:
        return match.group(1)
    anchor = parse_anchor(rest) if first.startswith("#") else None
    if anchor and anchor.session and anchor.turn:
        return f"{anchor.session}\x00{anchor.turn}"
    return None


def merge_texts(base: str, ours: str, theirs: str) -> tuple[str, bool]:
    """The merged text and whether a real conflict (one entry changed on both sides) remains."""
    sides = [units(t) for t in (base, ours, theirs)]
    if any(_SEP in u or "\r" in u for side in sides for u in side):
        raise ValueError("unexpected control characters")
    with tempfile.TemporaryDirectory(prefix="memdown-merge-") as tmp:
        names = []
        for label, side in zip(("base", "ours", "theirs"), sides):
            path = Path(tmp) / label
            path.write_text("".join(u.replace("\n", _SEP) + "\n" for u in side), encoding="utf-8")
            names.append(str(path))
        done = subprocess.run(["git", "merge-file", "-p", "--union", names[1], names[0], names[2]],
                              capture_output=True, text=True, encoding="utf-8", check=False)
        if done.returncode < 0 or done.returncode > 127:
            raise RuntimeError(f"git merge-file failed: {done.stderr.strip()[:200]}")
    merged = [line.replace(_SEP, "\n") for line in done.stdout.split("\n") if line]
    text, conflicted = _settle(merged, *sides)
    return text, conflicted


def _settle(merged: list[str], base: list[str], ours: list[str], theirs: list[str]) -> tuple[str, bool]:
    """One version per entry: the side that changed it, or both marked as a conflict."""
    def by_key(side: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for unit in side:
            key = unit_key(unit)
            if key is not None:
                found.setdefault(key, unit)
        return found

    base_k, ours_k, theirs_k = by_key(base), by_key(ours), by_key(theirs)
    room = _unkeyed_room(base, ours, theirs)
    out: list[str] = []
    placed: set[str] = set()
    conflicted = False
    for unit in merged:
        key = unit_key(unit)
        if key is None:
            if unit not in room:
                out.append(unit)
            elif room[unit] > 0:
                out.append(unit)
                room[unit] -= 1
            continue
        if key in placed:
            continue
        placed.add(key)
        mine, other, old = ours_k.get(key), theirs_k.get(key), base_k.get(key)
        if old is not None and (mine is None and other == old or other is None and mine == old):
            continue  # deleted on one side, untouched on the other (--union kept both sides of the hunk)
        if mine is None or other is None or mine == other:
            out.append(unit if mine is None or other is None else mine)
        elif mine == old:
            out.append(other)
        elif other == old:
            out.append(mine)
        else:
            conflicted = True
            out.append(f"<<<<<<< ours\n{mine}\n=======\n{other}\n>>>>>>> theirs")
    return "\n\n".join(out) + "\n", conflicted


def _unkeyed_room(base: list[str], ours: list[str], theirs: list[str]) -> dict[str, int]:
    """How often each unit without a key (a hand-written entry, a tombstone, a heading) may appear, where one
    side deleted copies the base had and the other left their number as in the base: the deleting side's
    number (--union would keep the other side's copies too). Units not limited are absent."""
    from collections import Counter

    counts = [Counter(u for u in side if unit_key(u) is None) for side in (base, ours, theirs)]
    room = {}
    for unit, was in counts[0].items():
        now_ours, now_theirs = counts[1][unit], counts[2][unit]
        if now_ours < was and now_theirs == was:
            room[unit] = now_ours
        elif now_theirs < was and now_ours == was:
            room[unit] = now_theirs
    return room


def is_memory_file(merged_path: str | None, worktree: Path) -> bool:
    """Whether git's %P (relative to the worktree git runs the driver in) is a file memdown merges.

    Only the files ``memdown init`` names in ``.memdown/.gitattributes`` (daily logs, signals,
    learnings, improvements, reflexion) under this worktree's memory root: a repository's own
    ``* merge=memdown`` cannot send code through the entry-by-entry merge. No path (a driver
    registered by an older memdown): refused too; the next capture registers it again with %P.
    """
    if not merged_path:
        return False
    from pathlib import PurePosixPath

    from ... import paths
    from ...store.layout import MERGE_PATTERNS

    try:
        target = (worktree / merged_path).resolve()
        roots = {(worktree / paths.MEMORY_DIR_NAME).resolve(), paths.memory_root(start=worktree).resolve()}
    except (OSError, RuntimeError, ValueError):
        return False
    for root in roots:
        try:
            rel = PurePosixPath(target.relative_to(root).as_posix())
        except ValueError:
            continue
        # match() is anchored at the right only: compare the depth too
        if any(len(rel.parts) == len(PurePosixPath(p).parts) and rel.match(p) for p in MERGE_PATTERNS):
            return True
    return False


def plain_merge(base: Path, ours: Path, theirs: Path) -> bool:
    """git's own line merge into ``ours``, conflicts marked; True when clean."""
    done = subprocess.run(["git", "merge-file", "-L", "ours", "-L", "base", "-L", "theirs",
                           str(ours), str(base), str(theirs)], capture_output=True, check=False)
    return done.returncode == 0


def merge_files(base: Path, ours: Path, theirs: Path) -> bool:
    """git's merge-driver protocol: write the result over ``ours``; True when clean."""
    read = [fsutil.read_text(Path(p), errors="surrogateescape") for p in (base, ours, theirs)]
    try:
        text, conflicted = merge_texts(*read)
    except (ValueError, RuntimeError, OSError, UnicodeError):
        return plain_merge(base, ours, theirs)  # not something we can cut into entries
    Path(ours).write_text(text, encoding="utf-8", errors="surrogateescape")
    return not conflicted
