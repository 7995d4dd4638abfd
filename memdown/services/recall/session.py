"""What memdown tells a coding session: the start brief and the note after a failure (the hint on a
prompt, which runs on every prompt, is ``prompt``).

The hooks call one function per event (``hooks.events``); the CLI may call
them too. Each takes the memory root and the already loaded ``Config``.
Everything here is cheap (a few files, a stat, a socket round trip); slow
work is left to the detached worker. Standard library only at import time.

Memory from a repository is untrusted: whatever comes from the daily logs,
learnings.md or signals is fenced (``memdown.fence``) before it is returned.
"""
from __future__ import annotations

from pathlib import Path

from ... import fsutil, paths
from ...fence import Gated, join, own_line
from ..capture.jobs import hook_log

TYPE_CHECKING = False  # not `import typing` at run time: every hook pays for it
if TYPE_CHECKING:
    from typing import Any

    from ...config import Config

# Size bound of the fenced fix returned (fence.fence never exceeds it).
FIX_CHARS = 2_000
PENDING_LABELS = {"signals": "captured signal(s)", "learnings_pending": "pending learning(s)",
                  "improvements_pending": "pending improvement(s)"}


class SessionBrief:
    """The SessionStart answer: a one-line ``status`` for the user, ``context`` ('' or fenced memory) for the model.

    A plain class, not a dataclass: importing dataclasses costs every hook several ms.
    """

    __slots__ = ("status", "context")

    def __init__(self, status: str, context: str = "") -> None:
        self.status = status
        self.context = context

    def __repr__(self) -> str:
        return f"SessionBrief(status={self.status!r}, context={self.context!r})"


# --- SessionStart -------------------------------------------------------------

RECALL_BY_SKILL = "Older work, decisions and fixes can be recalled with the memdown:memory-recall skill."
# Clients memdown gives no skill (Copilot CLI, Cursor): the shell command is there wherever memdown is.
RECALL_BY_COMMAND = ("Older work, decisions and fixes can be recalled with `memdown search \"<a few words>\"` "
                     "in the shell (then `memdown expand <id>`).")


def session_brief(root: Path, config: Config, *, shown_as: str, transcript_path: str = "",
                  session_id: str = "", recall_line: str = RECALL_BY_SKILL) -> SessionBrief:
    """Digest, learnings and review counts; starts the live index and retries stale jobs.

    ``shown_as`` is how the root is named to the user (relative to the session's folder);
    ``transcript_path`` and ``session_id`` locate the project's earlier sessions (``import_notice``);
    ``recall_line`` tells the model how it recalls more in this client.
    """
    if not root.is_dir():
        status = first_run_notice(root) or f"memdown: no memory yet here; entries start after the first turn ({root})"
        offer = import_notice(root, transcript_path, session_id)
        return SessionBrief(f"{status} {offer}" if offer else status)
    from .digest import build_digest

    digest, _shown = build_digest(root, max_chars=config["hooks.digest_chars"],
                                  max_entries=config["hooks.digest_entries"], where=f"memdown, {shown_as}")
    parts: list[Gated] = [digest] if digest else []
    try:
        parts.extend(_review_lines(root))
    except Exception as exc:  # the digest must not fail because of the learning files
        hook_log(root, "SessionStart", f"learnings skipped: {type(exc).__name__}: {exc}")
    if parts:
        parts.append(own_line(recall_line))
    days = len(paths.daily_files(root))
    index_state = "indexed" if (paths.index_dir(root) / "meta.json").exists() else "not indexed yet"
    status = f"memdown: {days} day(s) of memory in {shown_as}, {index_state}"
    offer = "" if days else import_notice(root, transcript_path, session_id)
    if offer:
        status += f". {offer}"
    status += _live_index_clause(root, config)
    for notice in config.notices:  # the committed config had something ignored or waiting for approval
        status += "; " + notice.removeprefix("memdown: ")
    try:
        from ..capture.detached import retry_pending_jobs

        queue = retry_pending_jobs(root)
        if queue:
            status += f"; {queue}"
    except Exception as exc:
        hook_log(root, "SessionStart", f"job retry not started: {type(exc).__name__}: {exc}")
    try:
        from ..upkeep.text_first import ensure_filler, pending_vectors

        if pending_vectors(root):  # a text-first build's vectors: resume a filler that died
            ensure_filler(root)
            status += f"; {pending_vectors(root)} vectors still being filled in"
    except Exception as exc:
        hook_log(root, "SessionStart", f"vector filler not started: {type(exc).__name__}: {exc}")
    return SessionBrief(status, join(parts))


def _review_lines(root: Path) -> list[Gated]:
    """Recently promoted learnings (fenced) and what waits for review."""
    from .digest import learnings_block
    from ...learning.counts import pending_counts, recent_learnings

    out: list[Gated] = []
    rules = learnings_block(recent_learnings(root, 5))
    if rules:
        out.append(rules)
    pending = {k: v for k, v in pending_counts(root).items() if v}
    if pending:
        out.append(own_line("Waiting for review with /memdown:reflect: "
                            + ", ".join(f"{v} {PENDING_LABELS.get(k, k)}" for k, v in pending.items())))
    return out


def _live_index_clause(root: Path, config: Config) -> str:
    if not config["watch.enabled"]:
        return ""
    try:
        from ...live.lifecycle import ensure_daemon

        state = ensure_daemon(root, config)
    except Exception as exc:
        hook_log(root, "SessionStart", f"live index not started: {type(exc).__name__}: {exc}")
        return ""
    return f", live index {state}" if state in ("running", "started") else ""


# --- the one-time notice where a project's memory lives ----------------------

def first_run_notice(root: Path) -> str:
    """Where memory will live and how to turn memdown off, once per memory root ('' after that).

    The first Stop in a git repository creates ``.memdown/`` without asking, so
    the first session there says so. The "said" marker lives under
    ``MEMDOWN_HOME`` (the project folder does not exist yet).
    """
    import hashlib

    key = hashlib.sha256(str(root).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    marker = paths.memdown_home() / "notices" / f"memory-location-{key}"
    if marker.exists():
        return ""
    try:
        fsutil.make_dirs(marker.parent, mode=0o700)
        fsutil.atomic_write_bytes(marker, f"{root}\n".encode("utf-8", "surrogateescape"))
    except OSError:
        return ""  # cannot remember it: better quiet than the same notice every session
    return (f"memdown: this project's memory will be kept in {root} (markdown daily logs, written after each "
            "turn; commit them or add the folder to .gitignore). To turn memdown off: set MEMDOWN_DISABLE=1, "
            "or remove memdown from the agent (/plugin in Claude Code, `memdown uninstall CLIENT` for the others).")


def import_notice(root: Path, transcript_path: str, session_id: str) -> str:
    """Once per memory root with no memory yet: earlier sessions of this project can be imported.

    A directory listing of the session's transcript folder, nothing parsed (SessionStart's fast path)."""
    import os

    if not transcript_path:
        return ""
    folder, own = os.path.split(transcript_path)
    try:  # not this session's own file, whatever the client names it (Gemini CLI: session-<time>-<id8>.jsonl)
        with os.scandir(folder) as entries:
            earlier = sum(1 for e in entries if e.name.endswith(".jsonl") and not e.name.startswith("agent-")
                          and e.name not in (own, f"{session_id}.jsonl"))
    except OSError:
        return ""
    if not earlier or not _say_once(root, "import-offer"):
        return ""
    return (f"memdown: {earlier} earlier session(s) of this project are not in memory; "
            "run `memdown import` to bring them in (extractive summaries, no model calls).")


def _say_once(root: Path, notice: str) -> bool:
    """True the first time ``notice`` is asked for this root (a marker under ``MEMDOWN_HOME``)."""
    import hashlib

    key = hashlib.sha256(str(root).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    marker = paths.memdown_home() / "notices" / f"{notice}-{key}"
    if marker.exists():
        return False
    try:
        fsutil.make_dirs(marker.parent, mode=0o700)
        fsutil.atomic_write_bytes(marker, f"{root}\n".encode("utf-8", "surrogateescape"))
    except OSError:
        return False  # cannot remember it: better quiet than the same notice every session
    return True


# --- PostToolUseFailure -------------------------------------------------------

def failure_note(root: Path, config: Config, payload: dict[str, Any]) -> Gated | str:
    """Record the failure as a signal (when signal mining is on); the fenced fix seen before ('' for none)."""
    from ...learning.fixes import lookup_fix, record_failure

    tool = str(payload.get("tool_name") or "")
    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    error = str(payload.get("error") or "")
    fix = lookup_fix(root, tool_name=tool, tool_input=tool_input, error=error)
    record_failure(root, config, session_id=str(payload.get("session_id") or ""), tool_name=tool,
                   tool_input=tool_input, error=error, transcript_path=payload.get("transcript_path"))
    if not fix:
        return ""
    from ...fence import fence

    return fence("A similar failure was recorded before (memdown).", [fix], limit=FIX_CHARS,
                 source="signals, reflexion, learnings", item_chars=1_500)
