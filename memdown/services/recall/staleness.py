"""Is a recalled fact still true of the code? Citations recorded at write time, judged at recall.

At write time (:func:`record`) an entry's citations (store/citations.py) get the fingerprint of the
cited lines as they are on disk, and the anchor the repository's HEAD. At recall (:func:`judge`) each
citation is compared with the working tree:

- ``fresh``: the cited symbol's (or file's) lines are what they were;
- ``changed``: they differ, or the symbol is no longer defined in the file;
- ``moved``: the file was renamed (git's rename detection from the recorded commit): ``moved_to``;
- ``gone``: the file was deleted;
- ``unknown``: nothing to compare (no citation, not a git repository, no recorded state).

An entry without fingerprints (imported from an old transcript, written by hand) is judged from git:
its lines at the last commit before the entry's time against the working tree.

Results are cached by HEAD and each file's stat in ``state/citations.json``, so a warm search over
ten hits costs file stats, not git calls. git runs as a subprocess with a short timeout; any failure
reads ``unknown``, never an error.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from ... import fsutil, paths
from ...store.citations import Citation, cited_in_text, cited_lines, fingerprint, parse_cites, render_cites

STATES = ("fresh", "changed", "moved", "gone", "unknown")
_WORST = {"gone": 4, "moved": 3, "changed": 2, "fresh": 1, "unknown": 0}
GIT_TIMEOUT = 5.0
CACHE_ENTRIES = 2000


_OBJECT_NAME = re.compile(r"[0-9a-f]{4,40}")


def git(repo: Path, *args: str) -> str | None:
    """git's stdout, or None on any failure (not a repository, no git, a timeout)."""
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              timeout=GIT_TIMEOUT, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


@lru_cache(maxsize=16)
def repository_of(root: Path) -> Path | None:
    """The git work tree the memory root belongs to (the project), or None."""
    top = git(root.parent if root.name == ".memdown" else root, "rev-parse", "--show-toplevel")
    return Path(top.strip()) if top and top.strip() else None


@lru_cache(maxsize=4096)
def _commit_before(repo: Path, moment: str) -> str:
    return (git(repo, "rev-list", "-1", f"--before={moment}", "HEAD") or "").strip()[:12]


def _relative(repo: Path, path: str, cwd: str = "") -> str | None:
    candidate = Path(path) if os.path.isabs(path) else Path(cwd or repo) / path
    try:
        return candidate.resolve().relative_to(repo.resolve()).as_posix()
    except (ValueError, OSError):
        return None


def object_name(value: str) -> str:
    """``value`` when it is a commit's object name (hex), else "": an anchor's ``commit:`` is whatever its
    last committer wrote, and anything else (``--output=FILE``, ``-c…``, ``@{-1}``) would reach git as an
    option or a revision expression."""
    return value if _OBJECT_NAME.fullmatch(value or "") else ""


def _read(repo: Path, rel: str) -> str | None:
    """A cited file's text, only from inside the repository (an absolute, ``..`` or linked path is
    refused by the file layer: a cited path comes from a committed anchor or recorded text)."""
    try:
        return fsutil.read_text(repo / rel, root=repo, errors="replace")
    except (OSError, ValueError):
        return None


def record(repo: Path | None, text: str, turn_files: list[str], when: datetime, *, live: bool,
           cwd: str = "") -> tuple[str, str]:
    """(commit, cites) for a new entry's anchor: ("", "") outside a git repository.

    ``live``: the turn just happened, so the working tree holds its result: fingerprint it. A turn
    imported later only records the commit before its time (the tree has moved on since).
    """
    if repo is None:
        return "", ""
    if live:
        commit = (git(repo, "rev-parse", "HEAD") or "").strip()[:12]
    else:
        commit = _commit_before(repo, when.isoformat(timespec="minutes"))
    pairs = cited_in_text(text)
    for path in turn_files:
        rel = _relative(repo, path, cwd)
        if rel and not any(p == rel for p, _ in pairs):
            pairs.append((rel, ""))
    citations = []
    for path, symbol in pairs:
        rel = _relative(repo, path, cwd) if path not in turn_files else path
        if rel is None or not (repo / rel).is_file():
            continue
        mark = ""
        if live:
            source = _read(repo, rel)
            lines = cited_lines(source, symbol) if source is not None else None
            if lines is None:
                continue  # a symbol the file does not define: not a citation we can check
            mark = fingerprint(lines)
        citations.append(Citation(rel, symbol, mark))
    return commit, render_cites(citations)


class Judge:
    """Judges citations against one repository's working tree, with the cache of earlier answers."""

    def __init__(self, root: Path, repo: Path | None) -> None:
        self.root, self.repo = root, repo
        self.head = ((git(repo, "rev-parse", "HEAD") or "").strip() if repo else "")
        self.cache_path = paths.state_dir(root) / "citations.json"
        self.cache: dict[str, Any] = {}
        self.dirty = False
        self._renames: dict[str, dict[str, str]] = {}
        self._pending: list[tuple[dict[str, Any], str, str]] = []  # results waiting for their git details
        if self.head:
            try:
                loaded = json.loads(fsutil.read_text(self.cache_path))
                self.cache = loaded.get("entries", {}) if loaded.get("head") == self.head else {}
            except (OSError, ValueError, AttributeError):
                self.cache = {}

    def save(self) -> None:
        """Fill in the git details of every result judged so far (one batch), then keep the cache."""
        self._fill_details()
        if not self.dirty or not self.head:
            return
        entries = dict(list(self.cache.items())[-CACHE_ENTRIES:])
        try:
            fsutil.atomic_write_text(self.cache_path, json.dumps({"head": self.head, "entries": entries}),
                                     mode=paths.PRIVATE_FILE_MODE, durable=False)  # a cache: whole, not durable
        except OSError:
            pass  # a cache: the next search judges again

    def judge(self, anchor_commit: str, cites: str, text: str, date: str) -> dict[str, Any]:
        """``{state, cited: [...]}`` for one entry (its anchor's commit and cites, else its text and date)."""
        if self.repo is None or not self.head:
            return {"state": "unknown", "cited": []}
        citations = parse_cites(cites) if cites else [Citation(p, s) for p, s in cited_in_text(text)]
        base = object_name(anchor_commit) or self._commit_at(date)
        cited = [self._one(c, base) for c in citations]
        cited = [c for c in cited if c is not None]
        state = max((c["state"] for c in cited), key=_WORST.__getitem__, default="unknown")
        return {"state": state, "cited": cited}

    def _commit_at(self, date: str) -> str:
        if not date:
            return ""
        key = f"date:{date}"
        if key not in self.cache:
            found = git(self.repo, "rev-list", "-1", f"--before={date}T23:59:59", "HEAD")  # type: ignore[arg-type]
            self.cache[key], self.dirty = (found or "").strip()[:12], True
        return str(self.cache[key])

    def _stat(self, rel: str) -> str:
        try:
            st = (self.repo / rel).stat()  # type: ignore[operator]
            return f"{st.st_mtime_ns}:{st.st_size}"
        except OSError:
            return "missing"

    def _one(self, cite: Citation, base: str) -> dict[str, Any] | None:
        key = "|".join((cite.path, cite.symbol, cite.fingerprint, base, self._stat(cite.path)))
        if key not in self.cache:
            self.cache[key], self.dirty = self._judge_one(cite, base), True
        return self.cache[key]

    # long: the five states in order, each with what it needs from git
    def _judge_one(self, cite: Citation, base: str) -> dict[str, Any] | None:
        repo = self.repo
        assert repo is not None
        result: dict[str, Any] = {"path": cite.path, "symbol": cite.symbol, "state": "unknown",
                                  "commits_since": None, "last_change": None, "moved_to": None}
        source = _read(repo, cite.path)
        if source is None:
            if not base:
                return None if not cite.fingerprint else {**result, "state": "gone"}
            if git(repo, "cat-file", "-e", "--end-of-options", f"{base}:{cite.path}") is None:
                return None  # never in the repository: a word that looked like a path
            moved_to = self._renamed(base).get(cite.path)
            result.update(state="moved" if moved_to else "gone", moved_to=moved_to)
            self._pending.append((result, base, moved_to or cite.path))
            return result
        now = cited_lines(source, cite.symbol)
        if cite.fingerprint:
            then = cite.fingerprint
        elif base:
            old = git(repo, "show", "--end-of-options", f"{base}:{cite.path}")
            old_lines = cited_lines(old, cite.symbol) if old is not None else None
            if old_lines is None:
                return None if old is None or not cite.symbol else result  # not there then: nothing to compare
            then = fingerprint(old_lines)
        else:
            return result
        result["state"] = "fresh" if now is not None and fingerprint(now) == then else "changed"
        if result["state"] == "changed":
            self._pending.append((result, base, cite.path))
        return result

    def _renamed(self, base: str) -> dict[str, str]:
        if base not in self._renames:
            out = git(self.repo, "diff", "-M", "--name-status", "--end-of-options", base, "--") or ""  # type: ignore[arg-type]
            self._renames[base] = {parts[1]: parts[2] for parts in (line.split("\t") for line in out.splitlines())
                                   if len(parts) == 3 and parts[0].startswith("R")}
        return self._renames[base]

    def _fill_details(self) -> None:
        """commits_since and last_change for every result judged not fresh: one ``git log`` over their paths,
        and one ``rev-list`` per recorded commit, whatever the number of hits (cold searches stay cheap)."""
        pending, self._pending = self._pending, []
        if not pending:
            return
        repo = self.repo
        out = git(repo, "log", "-n", "300", "--format=%x1e%H%x1f%cs%x1f%s", "--name-only", "HEAD", "--",  # type: ignore[arg-type]
                  *sorted({path for _, _, path in pending})) or ""
        commits = []
        for record_ in out.split("\x1e")[1:]:
            head, _, names = record_.partition("\n")
            fields = head.split("\x1f")
            if len(fields) == 3:
                commits.append((fields[0], fields[1], fields[2], set(names.split())))
        since = {base: set((git(repo, "rev-list", "--end-of-options", f"{base}..HEAD") or "").split())  # type: ignore[arg-type]
                 for base in {base for _, base, _ in pending if base}}
        for result, base, path in pending:
            touching = [c for c in commits if path in c[3]]
            if touching:
                result["last_change"] = {"date": touching[0][1], "subject": touching[0][2][:120]}
            if base:
                result["commits_since"] = sum(1 for c in touching if c[0] in since[base])
        self.dirty = True


def annotate(root: Path, hits: list[Any]) -> None:
    """Set ``freshness`` on each search hit (reads each hit's anchor from its file; one git repository)."""
    from ...store.anchors import parse_anchor

    judge = Judge(root, repository_of(root))
    texts: dict[str, list[str]] = {}
    for hit in hits:
        if hit.source not in texts:
            try:
                texts[hit.source] = fsutil.read_text(root / hit.source, errors="replace").split("\n")
            except (OSError, ValueError):
                texts[hit.source] = []
        lines = texts[hit.source]
        start, end = (hit.section_start or hit.start_line), (hit.section_end or hit.end_line)
        section = "\n".join(lines[max(0, start - 1):end])
        anchor = parse_anchor(section)
        hit.freshness = judge.judge(anchor.commit if anchor else "", anchor.cites if anchor else "", section, hit.date)
    judge.save()


def judge_section(root: Path, section: str, date: str) -> dict[str, Any]:
    """Freshness of one section's text (its anchor's citations, else what its text names)."""
    from ...store.anchors import parse_anchor

    judge = Judge(root, repository_of(root))
    anchor = parse_anchor(section)
    try:
        return judge.judge(anchor.commit if anchor else "", anchor.cites if anchor else "", section, date)
    finally:
        judge.save()


def _cited_keys(hit: Any) -> set[tuple[str, str]]:
    return {(c["path"], c["symbol"]) for c in (hit.freshness or {}).get("cited", [])}


def newer_first(hits: list[Any]) -> list[Any]:
    """A newer entry about the same citation outranks an older one whose citation no longer holds.

    Each hit whose state is not fresh is moved below the first later-ranked, newer hit that cites one of
    the same (path, symbol) pairs and reads fresh; nothing else moves.
    """
    ordered = list(hits)
    for hit in list(ordered):
        if (hit.freshness or {}).get("state") not in ("changed", "moved", "gone"):
            continue
        keys = _cited_keys(hit)
        at = ordered.index(hit)
        for later in ordered[at + 1:]:
            if later.date > hit.date and (later.freshness or {}).get("state") == "fresh" and keys & _cited_keys(later):
                ordered.remove(hit)
                ordered.insert(ordered.index(later) + 1, hit)
                break
    return ordered


def stale_entries(root: Path, *, include_fresh: bool = False) -> list[dict[str, Any]]:
    """Every day-file entry whose citations no longer hold (newest day first), for a person to update or
    retire: ``{source, day, time, session, turn, freshness, text}``."""
    from ...store.dayread import read_entries

    judge = Judge(root, repository_of(root))
    found = []
    for path in paths.daily_files(root):
        for entry in reversed(read_entries(path)):
            anchor = entry.anchor
            verdict = judge.judge(anchor.commit if anchor else "", anchor.cites if anchor else "", entry.body, entry.day)
            if verdict["state"] in ("changed", "moved", "gone") or (include_fresh and verdict["cited"]):
                found.append({"source": path.relative_to(root).as_posix(), "day": entry.day, "time": entry.time,
                              "session": anchor.session if anchor else "", "turn": anchor.turn if anchor else "",
                              "freshness": verdict, "text": entry.body})
    judge.save()
    return found
