"""One handler per Claude Code event: ``handler(payload, root) -> output dict``.

Synchronous work stays small (reading a few files, a socket round trip);
anything slow goes to a detached worker (see ``detach``).
"""
from __future__ import annotations

import re
from pathlib import Path

from .. import paths
from ..config import load_config

TYPE_CHECKING = False  # not `import typing` at run time: every hook pays for it
if TYPE_CHECKING:
    from typing import Any, Callable

    Handler = Callable[[dict[str, Any], Path | None], dict[str, Any]]


# Words that suggest the user is reaching back in time; the recall hint is
# added for these prompts and for the first prompt of each session.
RECALL_CUES = re.compile(
    r"\b(remember|last time|before|previous(ly)?|earlier|again|we did|did we|why did|how did we|"
    r"decided|decision|yesterday|last week|history|same (error|bug|issue)|used to|recurring|"
    r"wie letztes mal|schon mal|früher|la (última|ultima) vez|antes)\b",
    re.IGNORECASE,
)


# Size bounds of the fenced memory each hook injects (fence.fence never exceeds them).
POINTER_CHARS = 2_000
FIX_CHARS = 2_000


def _context(event: str, text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text[:10_000]}}


def _rel(root: Path) -> str:
    try:
        return str(root.relative_to(Path.cwd()))
    except ValueError:
        return str(root)


# --- SessionStart -------------------------------------------------------------

def session_start(payload: dict[str, Any], root: Path | None) -> dict[str, Any]:
    if root is None:
        return {}
    if not root.is_dir():
        return {"systemMessage": f"memdown: no memory yet here; entries start after the first turn ({root})"}
    from .digest import build_digest, learnings_block

    config = load_config(root)
    digest, _shown = build_digest(root, max_chars=config["hooks.digest_chars"],
                                  max_entries=config["hooks.digest_entries"], where=f"memdown, {_rel(root)}")
    parts: list[str] = [digest] if digest else []
    try:
        from ..learning.counts import pending_counts, recent_learnings

        rules = learnings_block(recent_learnings(root, 5))
        if rules:
            parts.append(rules)
        labels = {"signals": "captured signal(s)", "learnings_pending": "pending learning(s)",
                  "improvements_pending": "pending improvement(s)"}
        pending = {k: v for k, v in pending_counts(root).items() if v}
        if pending:
            parts.append("Waiting for review with /memdown:reflect: "
                         + ", ".join(f"{v} {labels.get(k, k)}" for k, v in pending.items()))
    except Exception as exc:  # the digest must not fail because of the learning files
        from .runner import log_line

        log_line(root, "SessionStart", f"learnings skipped: {type(exc).__name__}: {exc}")
    if parts:
        parts.append("Older work, decisions and fixes can be recalled with the memory-recall skill.")
    days = len(paths.daily_files(root))
    index_state = "indexed" if (paths.index_dir(root) / "meta.json").exists() else "not indexed yet"
    status = f"memdown: {days} day(s) of memory in {_rel(root)}, {index_state}"
    if config["watch.enabled"]:
        from ..daemon.lifecycle import ensure_daemon

        try:
            state = ensure_daemon(root)
            if state in ("running", "started"):
                status += f", live index {state}"
        except Exception as exc:
            from .runner import log_line

            log_line(root, "SessionStart", f"live index not started: {type(exc).__name__}: {exc}")
    try:
        queue = _retry_pending_jobs(root)
        if queue:
            status += f"; {queue}"
    except Exception as exc:
        from .runner import log_line

        log_line(root, "SessionStart", f"job retry not started: {type(exc).__name__}: {exc}")
    out: dict[str, Any] = {"systemMessage": status}
    if parts:
        out.update(_context("SessionStart", "\n\n".join(parts)))
    return out


def _retry_pending_jobs(root: Path) -> str:
    """Start a worker for pending jobs unless one runs; the queue's status clause ('' when empty)."""
    from ..services.jobs import queue_status, worker_running

    queue = queue_status(root)
    if queue.pending and not worker_running(root):
        from .detach import start_worker

        start_worker(root)
    return queue.summary()


# --- UserPromptSubmit ---------------------------------------------------------

def user_prompt(payload: dict[str, Any], root: Path | None) -> dict[str, Any]:
    prompt = payload.get("prompt")
    if root is None or not isinstance(prompt, str) or not paths.daily_dir(root).is_dir():
        return {}
    config = load_config(root)
    text = prompt.strip()
    if not config["hooks.prompt_hint"] or len(text) < config["hooks.prompt_min_chars"] or text.startswith("/"):
        return {}
    if "<memdown:skip>" in text.lower():
        return {}
    first = _first_prompt_of_session(root, str(payload.get("session_id") or ""))
    if not (first or RECALL_CUES.search(text)):
        return {}
    days = paths.daily_files(root)
    if not days:
        return {}
    lines = [
        f"This project has memdown memory: {len(days)} daily log(s) in {_rel(root)}/memory (latest {days[0].stem}). "
        "Past work, decisions and fixes can be recalled with the memory-recall skill "
        "(memdown search → expand → transcript)."
    ]
    pointers = config["hooks.prompt_pointers"]
    found = _pointers(root, text, pointers) if pointers > 0 else []
    if found:
        from ..fence import fence

        lines.append(fence("Possibly relevant memory (search hits; open with `memdown expand ID`).", found,
                           limit=POINTER_CHARS, source="memdown search"))
    return _context("UserPromptSubmit", "\n".join(lines))


def _first_prompt_of_session(root: Path, session_id: str) -> bool:
    if not session_id:
        return False
    marker = paths.session_state_file(root, "prompted", session_id)
    if marker.exists():
        return False
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        return False
    return True


def _pointers(root: Path, prompt: str, k: int) -> list[str]:
    """One-line pointers from the warm daemon only; never wait for a cold index."""
    from ..daemon.client import ask_daemon

    reply = ask_daemon(root, "search", {"query": prompt[:500], "k": k}, timeout=0.05, reply_timeout=0.3)
    if not reply or not reply.get("ok"):
        return []
    out = []
    for hit in reply.get("result") or []:
        first = " ".join(str(hit.get("text", "")).split())[:140]
        out.append(f"{hit.get('source')}:{hit.get('start_line')} ({hit.get('date')}) {first} [id {str(hit.get('id'))[:12]}]")
    return out


# --- Stop, PreCompact, SessionEnd: detached capture ---------------------------

def _capture(job: str) -> Handler:
    from .detach import capture_handler  # the Stop path skips this module: runner calls detach directly

    return capture_handler(job)


# --- PostToolUseFailure -------------------------------------------------------

def tool_failure(payload: dict[str, Any], root: Path | None) -> dict[str, Any]:
    if root is None or payload.get("is_interrupt") or not root.is_dir():
        return {}
    from ..learning.fixes import lookup_fix, record_failure

    tool = str(payload.get("tool_name") or "")
    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    error = str(payload.get("error") or "")
    fix = lookup_fix(root, tool_name=tool, tool_input=tool_input, error=error)
    if load_config(root)["capture.enabled"]:
        record_failure(root, session_id=str(payload.get("session_id") or ""), tool_name=tool, tool_input=tool_input,
               error=error, transcript_path=payload.get("transcript_path"))
    if not fix:
        return {}
    from ..fence import fence

    note = fence("A similar failure was recorded before (memdown).", [fix], limit=FIX_CHARS,
                 source="signals, reflexion, learnings", item_chars=1_500)
    return _context("PostToolUseFailure", note)


# --- PreToolUse (matcher "Skill") ----------------------------------------------

# memdown's own read-only recall skill may run without a permission rule; any
# other skill (and any other tool) is left to the user's settings.
RECALL_SKILL = "memdown:memory-recall"


def pre_tool_use(payload: dict[str, Any], root: Path | None) -> dict[str, Any]:
    tool_input = payload.get("tool_input")
    if payload.get("tool_name") != "Skill" or not isinstance(tool_input, dict) or tool_input.get("skill") != RECALL_SKILL:
        return {}
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                   "permissionDecisionReason": "memdown: read-only memory recall"}}


HANDLERS: dict[str, Handler] = {
    "SessionStart": session_start,
    "UserPromptSubmit": user_prompt,
    "Stop": _capture("stop"),
    "PreCompact": _capture("precompact"),
    "SessionEnd": _capture("sessionend"),
    "PostToolUseFailure": tool_failure,
    "PreToolUse": pre_tool_use,
}
