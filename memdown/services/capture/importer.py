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
import time
from datetime import datetime
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ... import fsutil
from ... import paths
from ...config import Config
from ...errors import LockTimeoutError, MemdownError
from ...transcript.layout import last_timestamp, session_id_of
from .import_sources import Survey, find_transcripts, history_dirs, project_key, survey

__all__ = ["ImportReport", "Survey", "find_transcripts", "history_dirs", "import_transcripts", "project_key",
           "survey"]

# A transcript written to this recently may belong to a running session: its last turn may be
# unfinished, so it is left to that session's own Stop (or the next import), and the report says so.
LIVE_SECONDS = 600
OPTED_OUT = "opted out (a no-memory marker in a prompt)"
NO_PROMPTS = "no prompts (nothing typed in it)"

Progress = Callable[[str, int, int, str], None]  # (stage, done, total, what)


@dataclass
class ImportReport:
    files: int = 0             # files looked at: imported + already_imported + skipped_sessions
    sessions: int = 0          # transcripts read (imported or already imported)
    imported: int = 0          # transcripts that brought in turns not recorded before
    already_imported: int = 0  # transcripts whose every turn was recorded before (by this or another session)
    turns: int = 0             # turns not recorded before this run
    entries: int = 0           # entries written
    signals: int = 0           # signals written
    skipped: int = 0           # turns already recorded (this or another session) or client-only
    skipped_sessions: int = 0  # files looked at and not imported (each in ``skipped_files`` with its reason)
    skipped_files: list[dict] = field(default_factory=list)   # {"path", "reason"}
    held_back: list[dict] = field(default_factory=list)       # {"path", "turns", "reason"}: possibly live
    looked_in: list[str] = field(default_factory=list)        # the folders searched
    model_calls: int = 0
    archiving: int = 0         # transcripts handed to the detached archiver (``archive_later``)
    indexed_files: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)  # prompts a client's reader left out, by reason

    def to_dict(self) -> dict:
        return asdict(self)

    def skip(self, path: Path, reason: str) -> None:
        self.skipped_files.append({"path": str(path), "reason": reason})
        self.skipped_sessions += 1
        self.files += 1

    def reasons(self) -> dict[str, int]:
        """How many files were skipped for each reason (most first)."""
        counts: dict[str, int] = {}
        for item in self.skipped_files:
            counts[item["reason"]] = counts.get(item["reason"], 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def session_of(path: Path) -> str:
    from .import_clients import client_session_id
    from .import_codex import codex_session_id

    return codex_session_id(path) or client_session_id(path) or session_id_of(path)


def _written_ago(path: Path, now: float) -> float | None:
    """Seconds since ``path`` was last written when that may be a running session's, else None.

    A file written in the last ``LIVE_SECONDS`` whose last entry is older than that was copied or
    touched, not written by a session: its last turn is finished."""
    try:
        age = now - path.stat().st_mtime
    except OSError:
        return None
    if age >= LIVE_SECONDS:
        return None
    said = last_timestamp(path)
    try:
        last = datetime.fromisoformat(said.replace("Z", "+00:00")).timestamp() if said else None
    except ValueError:
        last = None
    return None if last is not None and now - last >= LIVE_SECONDS else age


def import_settings(config: Config, use_claude: bool) -> Config:
    """A copy of ``config`` for the import: the model only when asked, archiving left to ``archive_later``."""
    values = {section: dict(keys) for section, keys in config.values.items()}
    values["summarizer"]["use_claude"] = bool(use_claude)
    values["archive"]["enabled"] = False
    return Config(values, dict(config.sources))


def pending_units(root: Path, transcripts: Sequence[Path]) -> int:
    """How many entries (model calls with ``--summarize claude``) an import would write."""
    from .record import pending_unit_count

    return sum(pending_unit_count(root, path, session_of(path)) for path in transcripts)


def import_transcripts(root: Path, transcripts: Sequence[Path] | Survey, *, config: Config,
                       use_claude: bool = False, progress: Progress | None = None, index: bool = True,
                       index_progress: Callable[[str, int, int], None] | None = None) -> ImportReport:
    """Record every transcript's unrecorded turns and signals, then update the index once.

    Given a ``Survey``, the files it skipped are in the report too, each with its reason."""
    started = time.monotonic()
    settings = import_settings(config, use_claude)
    report = ImportReport()
    if isinstance(transcripts, Survey):
        report.looked_in = [str(p) for p in transcripts.looked_in]
        for path, reason in transcripts.skipped:
            report.skip(path, reason)
        transcripts = transcripts.transcripts
    now = time.time()
    for n, path in enumerate(transcripts):
        if progress is not None:
            progress("importing sessions", n, len(transcripts), path.name)
        _import_one(root, path, settings, use_claude, now, report)
    if progress is not None:
        progress("importing sessions", len(transcripts), len(transcripts), "")
    if config["archive.enabled"] and report.sessions:
        report.archiving = archive_later(root, transcripts)
    if index:
        report.indexed_files = update_index(root, config, index_progress)
    report.seconds = round(time.monotonic() - started, 2)
    return report


def _import_one(root: Path, path: Path, settings: Config, use_claude: bool, now: float,
                report: ImportReport) -> None:
    """One transcript into ``report``: imported, already imported, or skipped with its reason."""
    from .record import record_session
    from ..recall.drilldown import note_imported
    from .signal_mining import mine_session

    session = session_of(path)
    age = _written_ago(path, now)
    live = age is not None
    try:
        captured = record_session(root, path, session, config=settings, include_last_turn=not live,
                                  final=not live, model_summaries=10**9 if use_claude else 0)
        mined = mine_session(root, path, session, config=settings)
    except MemdownError as exc:  # one unreadable transcript never stops the rest
        report.skip(path, f"unreadable ({exc.one_line()})")
        report.errors.append(f"{path}: {exc}")
        return
    if captured.skipped_session or not captured.prompts:
        report.skip(path, OPTED_OUT if captured.skipped_session else NO_PROMPTS)
        return
    note_imported(path)  # memdown transcript may open it by this memory's anchors (drilldown)
    report.files += 1
    report.sessions += 1
    if captured.turns > captured.copied:
        report.imported += 1
    else:
        report.already_imported += 1
    if live and (captured.held_back or captured.waiting):
        report.held_back.append({
            "path": str(path), "turns": captured.held_back + captured.waiting,
            "reason": f"possibly live (written {int(age or 0) // 60} min ago): its last turn waits for the "
                      "session's Stop or the next import"})
    report.turns += captured.turns
    for reason, count in captured.left_out.items():
        report.left_out[reason] = report.left_out.get(reason, 0) + count
    report.entries += captured.written
    report.skipped += captured.duplicates + captured.copied + captured.client_only
    report.model_calls += captured.methods.get("claude", 0)
    report.signals += len(mined)


def update_index(root: Path, config: Config, progress: Callable[[str, int, int], None] | None) -> int:
    from ..upkeep.memory import Memory

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
    from ...fsutil import atomic_write_text, file_lock
    from .spawn import spawn_detached

    listing = _archive_list(root)
    with file_lock(listing.with_suffix(".lock"), timeout=30):
        waiting = _read_list(listing)
        waiting.update({str(p): session_of(p) for p in transcripts})
        atomic_write_text(listing, json.dumps(waiting), mode=paths.PRIVATE_FILE_MODE)
    spawn_detached(root, ["-m", "memdown.services.capture.importer", "archive", str(root)], "import-archive.log")
    return len(waiting)


def _read_list(listing: Path) -> dict[str, str]:
    try:
        data = json.loads(fsutil.read_text(listing))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def archive_queued(root: Path) -> int:
    """Archive every queued transcript, dropping each from the list once archived (one archiver at a time)."""
    from ...fsutil import atomic_write_text, file_lock
    from ...store import forgetting
    from ...transcript.archive import archive_transcript

    listing = _archive_list(root)
    done = 0
    with file_lock(paths.lock_file(root, "import-archive"), timeout=0):
        while waiting := _read_list(listing):  # names queued meanwhile are taken too
            path, session = next(iter(waiting.items()))
            try:
                if Path(path).is_file():
                    archive_transcript(Path(path), session, forgotten=forgetting.load(root))
            except (OSError, MemdownError) as exc:  # dropped from the list: never a loop on one bad file
                print(f"not archived: {path}: {exc}", flush=True)
            with file_lock(listing.with_suffix(".lock"), timeout=30):
                waiting = _read_list(listing)
                waiting.pop(path, None)
                atomic_write_text(listing, json.dumps(waiting), mode=paths.PRIVATE_FILE_MODE)
            done += 1
    return done


def main(argv: list[str]) -> int:
    """``python -m memdown.services.capture.importer archive ROOT`` (started by ``archive_later``)."""
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
