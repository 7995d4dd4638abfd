"""Which files ``memdown import`` looks at, and why each one is, or is not, a session to import.

A file is taken by its content (``transcript.layout.sniff``), never by its first line's type. Every
file looked at ends up in ``Survey.transcripts`` or in ``Survey.skipped`` with a reason, so the
report can account for all of them.

This project's own history (no targets) is the Claude Code folders whose key matches the project
or one of its git worktrees. Claude Code's key maps every non-alphanumeric character to ``-``, so
``…/my-app`` and ``…/my_app`` share a folder: a transcript is this project's only when the cwd
its session started in is the project, a worktree of it, or a folder inside one of them. Files
and folders a person names are taken as named (they chose them).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath

from ... import paths
from ...errors import InputFileError
from ...store.automemory import project_key
from ...transcript.layout import Sniff, is_agent_file, sniff
from .import_clients import NO_CWD, client_sniff, is_client_head, project_folders, shared_folders
from .import_codex import codex_folders, codex_sniff

SUBAGENT_LOG = "subagent log, not a session (its work is in the session that started it)"


@dataclass
class Survey:
    transcripts: list[Path] = field(default_factory=list)      # to import, oldest first
    skipped: list[tuple[Path, str]] = field(default_factory=list)  # looked at, not imported: why
    looked_in: list[Path] = field(default_factory=list)          # the folders searched (existing or not)

    @property
    def files(self) -> int:
        return len(self.transcripts) + len(self.skipped)


def project_places(cwd: Path, root: Path | None = None) -> list[Path]:
    """The folders that are this project: the working folder's project, the memory's, their worktrees."""
    places: dict[Path, None] = {}
    for start in [Path(cwd)] + ([Path(root).parent] if root is not None else []):
        top = paths.project_root(start) if start.is_dir() else start
        for place in (start, top, *_worktrees(top)):
            places.setdefault(Path(os.path.abspath(place)), None)
    return list(places)


def _worktrees(top: Path) -> list[Path]:
    """Every worktree of the repository at ``top`` (one memory serves them all), [] without git."""
    if not (top / ".git").exists():
        return []
    try:
        proc = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=top, capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return []
    if proc.returncode != 0:
        return []
    return [Path(line[len("worktree "):]) for line in proc.stdout.splitlines() if line.startswith("worktree ")]


def history_dirs(cwd: Path, root: Path | None = None, *, existing: bool = True) -> list[Path]:
    """This project's folders under ``claude_home()/projects`` (the cwd's, the project's, its worktrees')."""
    found: dict[Path, None] = {}
    for place in project_places(cwd, root):
        folder = paths.claude_home() / "projects" / project_key(place)
        if folder.is_dir() or not existing:
            found.setdefault(folder, None)
    return list(found)


CLAUDE_PATTERNS = ("*.jsonl", "*.jsonl.gz")
# Other clients write .json documents, Cursor .txt transcripts, OpenCode a .db (skipped with its reason).
ALL_PATTERNS = CLAUDE_PATTERNS + ("*.json", "*.txt", "*.db")


def _files_under(folder: Path, patterns: Sequence[str] = CLAUDE_PATTERNS) -> Iterable[Path]:
    for pattern in patterns:
        for path in sorted(folder.rglob(pattern)):
            if path.is_file():
                yield path


def _is_subagent_log(path: Path, folder: Path) -> bool:
    return is_agent_file(path) or "subagents" in path.relative_to(folder).parts


def started_in(session_cwd: str, places: Sequence[Path]) -> bool:
    """Whether a session that started in ``session_cwd`` belongs to the project at ``places``."""
    flavour = PureWindowsPath if re.match(r"^[A-Za-z]:[\\/]", session_cwd) else PurePosixPath
    cwd = flavour(session_cwd)
    for place in places:
        base = flavour(str(place))
        if flavour is PureWindowsPath:
            same = str(cwd).lower() == str(base).lower() or str(cwd).lower().startswith(str(base).lower() + "\\")
        else:
            same = cwd == base or cwd.is_relative_to(base)
        if same:
            return True
    return False


def _judge(path: Path, places: Sequence[Path] | None) -> tuple[Sniff, str]:
    """(what the head says, why it is skipped or '')."""
    head = sniff(path)
    if head.problem:  # a Codex CLI rollout (import_codex), another client's session (import_clients)
        head = codex_sniff(path) or client_sniff(path) or head
    if head.problem:
        return head, head.problem
    if places is not None and not head.cwd and is_client_head(head):
        return head, NO_CWD
    if places is not None and head.cwd and not started_in(head.cwd, places):
        return head, f"another project (cwd {_one_line(head.cwd)})"
    return head, ""


def _one_line(text: str) -> str:
    """``text`` as it reads, or JSON-escaped when a character in it would break or drive the report's line."""
    return text if text.isprintable() else json.dumps(text)[1:-1]


def survey(targets: Sequence[Path], *, cwd: Path, root: Path | None = None) -> Survey:
    """Every file ``memdown import`` looks at: the transcripts to import (oldest first), the rest with why.

    No ``targets``: this project's history (sessions started in it). A named file must be a
    transcript (InputFileError otherwise); a named folder contributes every file under it."""
    result = Survey()
    candidates: dict[Path, Sequence[Path] | None] = {}
    if not targets:
        places = project_places(cwd, root)
        result.looked_in = history_dirs(cwd, root, existing=False) + codex_folders()
        for folder in result.looked_in:
            if folder.is_dir():
                _collect(folder, candidates, result, places)
        ours, shared = project_folders(places), shared_folders()  # Gemini/Cursor by folder, others by cwd
        result.looked_in += ours + shared
        for folder in ours + shared:
            if folder.is_dir():
                _collect(folder, candidates, result, None if folder in ours else places, ALL_PATTERNS)
    for target in targets:
        target = Path(target).expanduser()
        if target.is_dir():
            result.looked_in.append(target)
            _collect(target, candidates, result, None, ALL_PATTERNS)
        elif target.is_file():
            problem = sniff(target).problem and (codex_sniff(target) or client_sniff(target) or sniff(target)).problem
            if problem:
                said = problem if problem.startswith("not a Claude Code") else f"not a Claude Code transcript: {problem}"
                raise InputFileError(f"{target} is {said}")
            candidates.setdefault(target, None)
        else:
            raise InputFileError(f"{target} does not exist")
    dated: list[tuple[str, str, Path]] = []
    skipped = {path for path, _ in result.skipped}
    for path, places in candidates.items():
        if path in skipped:
            continue
        head, reason = _judge(path, places)
        if reason:
            result.skipped.append((path, reason))
        else:
            dated.append((head.timestamp or "9999", str(path), path))
    result.transcripts = [path for _when, _name, path in sorted(dated)]
    return result


def _collect(folder: Path, candidates: dict[Path, Sequence[Path] | None], result: Survey,
             places: Sequence[Path] | None, patterns: Sequence[str] = CLAUDE_PATTERNS) -> None:
    for path in _files_under(folder, patterns):
        if path in candidates:
            continue
        if _is_subagent_log(path, folder):
            candidates[path] = places
            result.skipped.append((path, SUBAGENT_LOG))
        else:
            candidates[path] = places


def find_transcripts(targets: Sequence[Path], *, cwd: Path, root: Path | None = None) -> list[Path]:
    """The transcripts to import, oldest first (``survey`` without the files it skips)."""
    return survey(targets, cwd=cwd, root=root).transcripts
