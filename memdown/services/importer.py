"""``memdown import``: bring a project's existing Claude Code history into memory.

The same pipeline as a live session, run once per transcript: ``capture.record_session``
writes each turn's entry on the day the turn happened (with its anchor) and
archives the transcript; ``signal_mining.mine_session`` files each signal on
the day it was said. Both keep their progress in the state the hooks use
(per-session done-state, the cross-session ``recorded_turns`` registry, mining
offsets), so

- a second import adds nothing, and a live session's later Stop never writes
  an imported turn again (nor a fork's copy of one);
- an import stopped anywhere (Ctrl-C, ``kill -9``) resumes where it stopped:
  every entry is written atomically and marked done right after.

The index is brought up to date once, at the end. Summaries are extractive
(no model calls) unless ``use_claude`` is set; ``pending_units`` counts the
calls that would make, so the CLI can say so before it starts.
"""
from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import fsutil
from .. import paths
from ..config import Config
from ..errors import InputFileError, LockTimeoutError, MemdownError
from ..transcript.layout import first_session_id, is_agent_file, looks_like_transcript, session_stem

# A transcript written to this recently may belong to a running session: its
# last turn may be unfinished, so it is left to that session's own Stop.
LIVE_SECONDS = 600

Progress = Callable[[str, int, int, str], None]  # (stage, done, total, what)


@dataclass
class ImportReport:
    sessions: int = 0          # transcripts read
    turns: int = 0             # turns not recorded before this run
    entries: int = 0           # entries written
    signals: int = 0           # signals written
    skipped: int = 0           # turns already recorded (this or another session) or client-only
    skipped_sessions: int = 0  # opted out (a "no memory" marker) or unreadable
    model_calls: int = 0
    archiving: int = 0         # transcripts handed to the detached archiver (``archive_later``)
    indexed_files: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def project_key(cwd: Path) -> str:
    """Claude Code's folder name for a project: the cwd with every non-alphanumeric character as "-"."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def history_dirs(cwd: Path, root: Path | None = None) -> list[Path]:
    """This project's folders under ``claude_home()/projects`` (the cwd's, and the project root's)."""
    places = [Path(cwd)] + ([Path(root).parent] if root is not None else [])
    found: dict[Path, None] = {}
    for place in places:
        folder = paths.claude_home() / "projects" / project_key(place)
        if folder.is_dir():
            found.setdefault(folder, None)
    return list(found)


def has_history(folder: Path, *, besides: str = "") -> bool:
    """A directory listing only (SessionStart's fast path): any session transcript but ``besides``."""
    import os

    try:
        with os.scandir(folder) as entries:
            return any(e.name.endswith(".jsonl") and not e.name.startswith("agent-")
                       and e.name != f"{besides}.jsonl" for e in entries)
    except OSError:
        return False


def _session_files(folder: Path) -> Iterable[Path]:
    """Main-session transcripts under ``folder``: never subagent logs (``agent-*``, ``subagents/``)."""
    for pattern in ("*.jsonl", "*.jsonl.gz"):
        for path in folder.rglob(pattern):
            rel = path.relative_to(folder).parts
            if is_agent_file(path) or "subagents" in rel or not path.is_file():
                continue
            yield path


def find_transcripts(targets: Sequence[Path], *, cwd: Path, root: Path | None = None) -> list[Path]:
    """The transcripts to import, oldest first (a fork after its parent).

    No ``targets``: this project's history. A named file must be a transcript;
    a folder contributes every main-session transcript under it."""
    chosen: dict[Path, None] = {}
    if not targets:
        for folder in history_dirs(cwd, root):
            for path in _session_files(folder):
                chosen.setdefault(path, None)
    for target in targets:
        target = Path(target).expanduser()
        if target.is_dir():
            for path in _session_files(target):
                chosen.setdefault(path, None)
        elif target.is_file():
            if not looks_like_transcript(target):
                raise InputFileError(f"{target} is not a Claude Code transcript")
            chosen.setdefault(target, None)
        else:
            raise InputFileError(f"{target} does not exist")
    found = [p for p in chosen if looks_like_transcript(p)]
    return sorted(found, key=lambda p: (_first_timestamp(p), str(p)))


def _first_timestamp(path: Path) -> str:
    from ..transcript.reader import iter_entries

    try:
        for n, (_offset, entry) in enumerate(iter_entries(path)):
            if isinstance(entry.get("timestamp"), str):
                return entry["timestamp"]
            if n > 50:
                break
    except MemdownError:
        pass
    return "9999"


def session_of(path: Path) -> str:
    return first_session_id(path) or session_stem(path)


def _may_be_live(path: Path, now: float) -> bool:
    try:
        return now - path.stat().st_mtime < LIVE_SECONDS
    except OSError:
        return False


def import_settings(config: Config, use_claude: bool) -> Config:
    """A copy of ``config`` for the import: the model only when asked, archiving left to ``archive_later``."""
    values = {section: dict(keys) for section, keys in config.values.items()}
    values["summarizer"]["use_claude"] = bool(use_claude)
    values["archive"]["enabled"] = False
    return Config(values, dict(config.sources))


def pending_units(root: Path, transcripts: Sequence[Path]) -> int:
    """How many entries (model calls with ``--summarize claude``) an import would write."""
    from .capture import pending_unit_count

    return sum(pending_unit_count(root, path, session_of(path)) for path in transcripts)


def import_transcripts(root: Path, transcripts: Sequence[Path], *, config: Config, use_claude: bool = False,
                       progress: Progress | None = None, index: bool = True,
                       index_progress: Callable[[str, int, int], None] | None = None) -> ImportReport:
    """Record every transcript's unrecorded turns and signals, then update the index once."""
    from .capture import record_session
    from .signal_mining import mine_session

    started = time.monotonic()
    settings = import_settings(config, use_claude)
    report = ImportReport()
    now = time.time()
    for n, path in enumerate(transcripts):
        if progress is not None:
            progress("importing sessions", n, len(transcripts), path.name)
        session = session_of(path)
        live = _may_be_live(path, now)
        try:
            captured = record_session(root, path, session, config=settings, include_last_turn=not live,
                                      final=not live, model_summaries=10**9 if use_claude else 0)
            mined = mine_session(root, path, session, config=settings)
        except MemdownError as exc:  # one unreadable transcript never stops the rest
            report.skipped_sessions += 1
            report.errors.append(f"{path}: {exc}")
            continue
        report.sessions += 1
        if captured.skipped_session:
            report.skipped_sessions += 1
        report.turns += captured.turns
        report.entries += captured.written
        report.skipped += captured.duplicates + captured.copied + captured.client_only
        report.model_calls += captured.methods.get("claude", 0)
        report.signals += len(mined)
    if progress is not None:
        progress("importing sessions", len(transcripts), len(transcripts), "")
    if config["archive.enabled"] and report.sessions:
        report.archiving = archive_later(root, transcripts)
    if index:
        report.indexed_files = update_index(root, config, index_progress)
    report.seconds = round(time.monotonic() - started, 2)
    return report


def update_index(root: Path, config: Config, progress: Callable[[str, int, int], None] | None) -> int:
    from .memory import Memory

    result = Memory.open(root, config=config).index(progress=progress)
    return int(getattr(result, "files_indexed", 0) or 0)


# --- the transcript archive, detached -------------------------------------------
# Redacting and compressing months of transcripts costs more than importing them,
# and nothing in memory waits for it (anchors name the original path, which stays
# readable for 30 days): a detached process archives them, resumable from its list.

def _archive_list(root: Path) -> Path:
    return paths.state_dir(root) / "import-archive.json"


def archive_later(root: Path, transcripts: Sequence[Path]) -> int:
    """Queue ``transcripts`` for the archive and start the detached archiver; returns how many wait."""
    from ..fsutil import atomic_write_text, file_lock
    from .spawn import spawn_detached

    listing = _archive_list(root)
    with file_lock(listing.with_suffix(".lock"), timeout=30):
        waiting = _read_list(listing)
        waiting.update({str(p): session_of(p) for p in transcripts})
        atomic_write_text(listing, json.dumps(waiting), mode=paths.PRIVATE_FILE_MODE)
    spawn_detached(root, ["-m", "memdown.services.importer", "archive", str(root)], "import-archive.log")
    return len(waiting)


def _read_list(listing: Path) -> dict[str, str]:
    try:
        data = json.loads(fsutil.read_text(listing))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def archive_queued(root: Path) -> int:
    """Archive every queued transcript, dropping each from the list once archived (one archiver at a time)."""
    from ..fsutil import atomic_write_text, file_lock
    from ..transcript.archive import archive_transcript

    listing = _archive_list(root)
    done = 0
    with file_lock(paths.lock_file(root, "import-archive"), timeout=0):
        while waiting := _read_list(listing):  # names queued meanwhile are taken too
            path, session = next(iter(waiting.items()))
            try:
                if Path(path).is_file():
                    archive_transcript(Path(path), session)
            except (OSError, MemdownError) as exc:  # dropped from the list: never a loop on one bad file
                print(f"not archived: {path}: {exc}", flush=True)
            with file_lock(listing.with_suffix(".lock"), timeout=30):
                waiting = _read_list(listing)
                waiting.pop(path, None)
                atomic_write_text(listing, json.dumps(waiting), mode=paths.PRIVATE_FILE_MODE)
            done += 1
    return done


def main(argv: list[str]) -> int:
    """``python -m memdown.services.importer archive ROOT`` (started by ``archive_later``)."""
    if len(argv) != 2 or argv[0] != "archive":
        return 2
    paths.private_umask()
    try:
        archive_queued(Path(argv[1]))
    except LockTimeoutError:
        return 0  # another archiver holds the list: it takes the new names too
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
