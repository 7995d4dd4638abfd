"""The on-disk queue of capture jobs (``state/jobs/``): durable first, retried, quarantined.

A hook turns its payload into a job file before anything that can time out
(no lock, no slow import): first the ids and paths needed to recover the turn
(``<id>.tmp``, fsynced), then the full job with its text redacted
(``<id>.json``, atomic). A hook killed in between leaves the ``.tmp``, which
``recover`` promotes once it is older than ``STALE_TMP_SECONDS``.

Each ``.json`` holds its own retry state (``attempts``, ``next_try``,
``done_steps``, ``last_error``). The worker (``services.capture.worker``) claims a job
with a lock on the job file, runs the steps not yet done, then removes it, or
puts it back with exponential backoff. A job that fails with a permanent
error, or ``MAX_ATTEMPTS`` times, moves to ``state/jobs/quarantine/``
(redacted, 0600) and is reported by ``memdown verify`` and the SessionStart
status line (``job_status``). Jobs parked in ``failed/`` by older versions are re-queued.

Standard library only (the Stop hook imports this on its fast path).
"""
from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # not `import typing` (nor pathlib, nor json: ``wirejson``) at run time: every hook pays
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Callable

from ... import fsutil, pathstr
from ...wirejson import dumps, loads
from ...fsutil import append_line, atomic_write_bytes, clean_json, try_lock

VERSION = 1
MAX_ATTEMPTS = 8
BACKOFF_FIRST = 5.0  # seconds before the first retry; doubles each time
BACKOFF_MAX = 600.0
STALE_TMP_SECONDS = 60.0  # a .tmp this old has no writer left: promote or quarantine it
WORKER_SLOTS = 4  # detached workers running at once per memory root
# Kept as they are: what the worker needs to find the turn again.
ID_FIELDS = ("session_id", "transcript_path", "cwd", "hook_event_name", "reason", "trigger",
             "stop_hook_active", "permission_mode", "agent_id", "agent_type")
# Free text from the conversation: redacted before it touches the disk.
TEXT_FIELDS = ("last_assistant_message", "custom_instructions")
KNOWN_JOBS = ("stop", "precompact", "sessionend")


def jobs_dir(root: Path) -> Path:
    from pathlib import Path

    return Path(_jobs_path(root))


def _jobs_path(root: str | os.PathLike[str]) -> str:
    """``jobs_dir`` as a string: what a capture hook uses (no pathlib)."""
    return os.path.join(pathstr.state_dir(root), "jobs")


def quarantine_dir(root: Path) -> Path:
    return jobs_dir(root) / "quarantine"


def _private_dir(folder: str | os.PathLike[str]) -> str | os.PathLike[str]:
    fsutil.make_dirs(folder, mode=0o700)
    return folder


def _durable_fields(payload: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ID_FIELDS:
        value = payload.get(key)
        if isinstance(value, (str, bool, int)) and not isinstance(value, float):
            out[key] = value
    return clean_json(out)  # type: ignore[return-value]


def _write_new(path: str, data: bytes) -> None:
    """Create ``path`` (0600) with ``data`` and fsync it; no rename, no lock."""
    fd, _st = fsutil.open_file(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _dump(record: dict[str, Any]) -> bytes:
    return dumps(record, ensure_ascii=True).encode("ascii")


def enqueue(root: Path, job: str, payload: dict[str, Any]) -> Path:
    """Make a hook's turn durable; return the job file (``<id>.json``)."""
    from pathlib import Path

    return Path(enqueue_file(root, job, payload))


def enqueue_file(root: str | os.PathLike[str], job: str, payload: dict[str, Any],
                 later: list[Callable[[], None]] | None = None) -> str:
    """``enqueue`` with plain strings: what a capture hook calls (no pathlib).

    With ``later``, text that needs the redactor is redacted and written there, for the hook to run after its
    answer: until then the job is its recovery file (ids only, fsynced), which ``recover`` promotes when
    nothing finishes it."""
    folder = os.fspath(_private_dir(_jobs_path(root)))
    name = f"{time.time_ns()}-{os.getpid()}-{job}"
    record: dict[str, Any] = {"v": VERSION, "job": job, "created": time.time(), "attempts": 0,
                              "next_try": 0.0, "done_steps": [], "payload": _durable_fields(payload)}
    final = os.path.join(folder, f"{name}.json")
    texts = {k: payload[k] for k in TEXT_FIELDS if isinstance(payload.get(k), str) and payload[k]}
    if "last_assistant_message" in texts and _in_transcript_tail(payload.get("transcript_path"),
                                                                 texts["last_assistant_message"]):
        del texts["last_assistant_message"]  # the worker reads it from the transcript: no redaction needed here
    if not texts:
        atomic_write_bytes(final, _dump(record), mode=0o600)
        return final
    recovery = os.path.join(folder, f"{name}.tmp")
    _write_new(recovery, _dump(record))  # the turn is recoverable from here on

    def redact_and_write() -> None:
        from ...redact import redact  # the slow part comes after

        record["payload"].update({k: redact(str(clean_json(v))) for k, v in texts.items()})
        atomic_write_bytes(final, _dump(record), mode=0o600)
        fsutil.unlink(recovery)

    if later is not None:
        later.append(redact_and_write)
    else:
        redact_and_write()
    return final


TAIL_BYTES = 256 << 10


def _in_transcript_tail(transcript: object, text: str) -> bool:
    """True when ``text`` already sits in the transcript's last ``TAIL_BYTES`` (as Claude Code writes it).

    Only a regular file is read (a FIFO must not block the hook); any doubt answers False.
    """
    if not isinstance(transcript, str) or not transcript:
        return False
    try:
        fd, info = fsutil.open_file(transcript, os.O_RDONLY, links_ok=True)  # a FIFO must not block the hook
    except OSError:
        return False
    try:
        os.lseek(fd, max(0, info.st_size - TAIL_BYTES), os.SEEK_SET)
        tail = os.read(fd, TAIL_BYTES)
    except OSError:
        return False
    finally:
        os.close(fd)
    escaped = dumps(text)[1:-1].encode("ascii")
    return escaped in tail or dumps(text, ensure_ascii=False)[1:-1].encode("utf-8", "replace") in tail


# --- reading and updating jobs -------------------------------------------------

def read_record(data: bytes) -> dict[str, Any]:
    """Parse a job file's bytes; ValueError when it is not a job (e.g. truncated)."""
    record = loads(data.decode("utf-8", "replace"))
    if not isinstance(record, dict) or not isinstance(record.get("payload"), dict):
        raise ValueError("not a memdown job")
    if "v" not in record:  # written by an older version: {"job", "payload"} only
        record = {"v": VERSION, "job": record.get("job"), "created": time.time(), "attempts": 0,
                  "next_try": 0.0, "done_steps": [], "payload": _legacy_payload(record["payload"])}
    return record


def _legacy_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """An old job's raw payload, reduced and redacted like a new one."""
    from ...redact import redact

    out = _durable_fields(payload)
    out.update({k: redact(str(clean_json(payload[k]))) for k in TEXT_FIELDS if isinstance(payload.get(k), str)})
    return out


def backoff(attempts: int) -> float:
    return min(BACKOFF_FIRST * 2 ** max(0, attempts - 1), BACKOFF_MAX)


def save(path: Path, record: dict[str, Any]) -> None:
    atomic_write_bytes(path, _dump(record), mode=0o600)


def quarantine(root: Path, name: str, record: dict[str, Any] | None, reason: str, raw: bytes = b"") -> Path:
    """Park a job that can never succeed, redacted and private, and log it."""
    from ...redact import redact

    keep = ("session_id", "transcript_path", "cwd")
    if record is not None:
        payload = record.get("payload") if isinstance(record.get("payload"), dict) else {}
        body = {**{k: (redact(v) if isinstance(v, str) else v) for k, v in record.items() if k != "payload"},
                "payload": {k: (v if k in keep or not isinstance(v, str) else redact(v)) for k, v in payload.items()}}
    else:
        body = {"unreadable_job": redact(raw.decode("utf-8", "replace"))}
    body["quarantined"] = time.time()
    body["reason"] = redact(reason)[:2000]
    target = _private_dir(quarantine_dir(root)) / (name if name.endswith(".json") else f"{name}.json")
    import json

    atomic_write_bytes(target, json.dumps(clean_json(body), indent=1).encode("utf-8"), mode=0o600)
    hook_log(root, "worker", f"job {name} quarantined: {body['reason'][:300]}")
    return target


# --- recovery of interrupted and parked jobs -------------------------------------

def recover(root: Path, *, now: float | None = None) -> None:
    """Promote stale ``.tmp`` jobs and re-queue ``failed/`` ones; unreadable ones go to quarantine."""
    now = time.time() if now is None else now
    folder = jobs_dir(root)
    for path in fsutil.list_files(folder, suffix=".tmp", hidden=True):
        try:
            st = fsutil.lstat(path)
            if st is None or now - st.st_mtime < STALE_TMP_SECONDS:
                continue
            raw = fsutil.read_bytes(path)
        except OSError:
            continue
        _requeue(root, path, raw)
    for path in fsutil.list_files(folder / "failed", hidden=True):
        try:
            raw = fsutil.read_bytes(path)
        except OSError:
            continue
        _requeue(root, path, raw)


def _requeue(root: Path, path: Path, raw: bytes) -> None:
    """Turn a leftover (interrupted ``.tmp`` or ``failed/`` job) into a pending job."""
    base = path.name.lstrip(".").split(".")[0]  # "<id>.tmp", ".<id>.json.<pid>.<rand>.tmp", "<id>.json"
    target = jobs_dir(root) / f"{base}.json"
    try:
        record = read_record(raw)
    except (ValueError, UnicodeDecodeError):
        if not target.exists():  # a torn write with no complete copy: keep what we can see
            quarantine(root, base, None, f"interrupted job file {path.name} is unreadable", raw)
    else:
        if not target.exists():
            save(target, record)
            hook_log(root, "worker", f"job {base} recovered from {path.parent.name}/{path.name}")
    fsutil.unlink(path)


# --- claiming -----------------------------------------------------------------------

def pending_jobs(root: Path) -> list[Path]:
    """Pending job files, oldest first (names start with the creation time)."""
    folder = jobs_dir(root)
    return fsutil.list_files(folder, suffix=".json")


class Claim:
    """A job locked by this process: ``fd`` is the lock on its ``.<id>.claim`` file."""

    __slots__ = ("fd", "path", "record", "raw")

    def __init__(self, fd: int, path: Path, record: dict[str, Any] | None, raw: bytes) -> None:
        self.fd = fd
        self.path = path
        self.record = record  # None: the file is not a readable job
        self.raw = raw


def claim_file(path: Path) -> Path:
    """The lock file of one job; separate from the job so the job can be rewritten while held."""
    return path.with_name(f".{path.stem}.claim")


def claim(path: Path, *, now: float | None = None, due_only: bool = True) -> Claim | None:
    """Lock one job for this process; None when it is gone, taken by another worker or not due."""
    fd = try_lock(claim_file(path))
    if fd is None:
        return None
    try:
        raw = fsutil.read_bytes(path)
    except OSError:  # finished by another worker between listing and locking
        release(Claim(fd, path, None, b""), remove=True)
        return None
    try:
        record: dict[str, Any] | None = read_record(raw)
    except (ValueError, UnicodeDecodeError):
        record = None
    if due_only and record is not None and float(record.get("next_try") or 0) > (now or time.time()):
        os.close(fd)
        return None
    return Claim(fd, path, record, raw)


def release(claimed: Claim, *, remove: bool) -> None:
    """Give a claim back; with ``remove`` the job is finished: its file goes first, then the lock file."""
    try:
        if remove:
            for target in (claimed.path, claim_file(claimed.path)):
                fsutil.unlink(target)
    finally:
        os.close(claimed.fd)


def seconds_to_next(root: Path, *, now: float | None = None) -> float | None:
    """Seconds until the earliest pending job is due (0 if one is due now); None when none is pending."""
    now = time.time() if now is None else now
    soonest: float | None = None
    for path in pending_jobs(root):
        try:
            record = read_record(fsutil.read_bytes(path))
            wait = max(0.0, float(record.get("next_try") or 0) - now)
        except (OSError, ValueError, UnicodeDecodeError):
            wait = 0.0
        soonest = wait if soonest is None else min(soonest, wait)
    return soonest


# --- workers ------------------------------------------------------------------------

def worker_slot_file(root: Path, n: int) -> Path:
    return jobs_dir(root) / f".worker-{n}.lock"


def take_worker_slot(root: Path) -> int | None:
    """A free worker slot's lock descriptor, or None when ``WORKER_SLOTS`` workers already run."""
    _private_dir(jobs_dir(root))
    for n in range(WORKER_SLOTS):
        fd = try_lock(worker_slot_file(root, n))
        if fd is not None:
            return fd
    return None


def worker_running(root: Path) -> bool:
    """True when any worker holds a slot (checked by trying each slot's lock)."""
    if not jobs_dir(root).is_dir():
        return False
    for n in range(WORKER_SLOTS):
        slot = worker_slot_file(root, n)
        if not fsutil.is_plain_file(slot):
            continue
        fd = try_lock(slot)
        if fd is None:
            return True
        os.close(fd)
    return False


# --- the hook log -----------------------------------------------------------------------

def hook_log(root: str | os.PathLike[str] | None, event: str, message: str) -> None:
    """One line in ``logs/hooks.log`` (rotated at 1 MB, 0600); never raises."""
    if root is None:
        return
    try:
        if not os.path.isdir(root):
            return
        folder = pathstr.logs_dir(root)
        fsutil.make_dirs(folder, mode=0o700)
        append_line(os.path.join(folder, "hooks.log"), f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {event} {message}\n")
    except Exception:
        pass
