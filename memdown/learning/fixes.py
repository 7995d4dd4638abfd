"""PostToolUseFailure: record the failure, and look up a known fix for a similar one.

Known fixes come from adopted reflexion entries, failure signals whose fix
was found by mining (a later successful retry), and promoted "Gotchas"
learnings. Lookup is lexical (keyword overlap), over a small per-file cache in
``state/fix-index.json`` that only re-reads files whose mtime or size
changed. Standard library (+ markdown-it-py when a file changed): never
lancedb or fastembed on this path.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .. import fsutil
from .. import paths
from ..config import Config, memdown_disabled
from ..fsutil import atomic_write_text
from ..signals.store import Signal
from ..signals.text import GENERIC, content_tokens, jaccard, one_line, strip_ansi

MAX_CONTEXT = 1500
INDEX_VERSION = 4
EXCERPT = 300


def _input_summary(tool_name: str, tool_input: dict) -> str:
    if not isinstance(tool_input, dict):
        return tool_name
    if isinstance(tool_input.get("command"), str):
        from ..redact.commands import redact_command  # values that are not a safe shape: never recorded

        return f"{tool_name} `{one_line(redact_command(tool_input['command']), 200)}`"
    for key in ("file_path", "notebook_path", "path", "pattern", "url", "query"):
        if isinstance(tool_input.get(key), str) and tool_input[key].strip():
            return f"{tool_name} {one_line(tool_input[key], 200)}"
    return tool_name


def _action(text: str) -> str:
    """The command or target of "Bash `cmd`" / "Bash: cmd" / "Edit a.py", whitespace-normalized."""
    text = (text or "").strip()
    if "`" in text:
        text = text.split("`")[1] if text.count("`") >= 2 else text
    elif ":" in text.split(" ", 1)[0]:
        text = text.split(":", 1)[1]
    return " ".join(text.split())


def is_same_action(fix: str, failing: str) -> bool:
    """A recorded "fix" that is only the failing call itself: no fix (a retry that changed nothing)."""
    return bool(fix) and "then" not in fix and _action(fix) == _action(failing)


def _excerpt(error: str) -> str:
    lines = [line for line in strip_ansi(error or "").splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].lower().startswith("exit code"):
        lines = lines[1:] + lines[:1]  # the message first, the exit code last
    return one_line(" | ".join(lines), EXCERPT) or "(no output)"


def record_failure(root: Path, config: Config, *, session_id: str, tool_name: str, tool_input: dict, error: str,
                   transcript_path: str | None = None) -> Signal | None:
    """Append a ``failure`` signal (redacted); None when signal mining is off or the text opts out."""
    from ..signals.tool_patterns import own_call

    if memdown_disabled() or not config["mining.enabled"] or own_call(tool_name, tool_input):
        return None  # memdown's own failed command (say a search before its index) is not the user's failure
    from ..redact import should_skip
    from ..signals import store

    summary = _input_summary(tool_name, tool_input)
    if should_skip(error or "") or should_skip(json.dumps(tool_input, default=str)):
        return None
    transcript = ""
    if transcript_path:
        try:
            from ..transcript.archive import portable_path

            transcript = portable_path(Path(transcript_path))
        except Exception:  # noqa: BLE001
            transcript = str(transcript_path)
    head = ""
    if isinstance(tool_input, dict) and isinstance(tool_input.get("command"), str) and tool_input["command"].split():
        head = tool_input["command"].split()[0]
    if isinstance(tool_input, dict) and isinstance(tool_input.get("command"), str):
        from ..redact.commands import redact_echoes  # a failure that echoes the command echoes its values too

        error = redact_echoes(error or "", tool_input["command"])
    from ..redact import redact_lines  # the same reading as every recorded text, before the lines are joined

    sig = Signal("failure", _excerpt(redact_lines(error or "", EXCERPT)), 1, session=session_id, transcript=transcript,
                 pattern="hook.tool-failure", tags=[t for t in (tool_name, head) if t],
                 extra={"tool": tool_name, "input": summary})
    return store.append(root, [sig])[0]


# --- lookup -----------------------------------------------------------------------

def _cache_path(root: Path) -> Path:
    return paths.state_dir(root) / "fix-index.json"


def _sources(root: Path) -> list[Path]:
    out = [Path(root) / "reflexion.md", Path(root) / "learnings.md"]
    folder = paths.signals_dir(root)
    try:
        out.extend(sorted(Path(e.path) for e in os.scandir(folder) if e.name.endswith(".md")
                          and not e.name.startswith(".")))
    except OSError:
        pass
    return out


def _entries_for(root: Path, path: Path) -> list[dict]:
    if path.name == "reflexion.md":
        from .mistakes import load

        return [{"id": r.id, "tool": r.tool, "text": " ".join([r.evidence, " ".join(r.tags)]), "input": r.mistake,
                 "excerpt": one_line(r.evidence or r.mistake, 200), "fix": r.fix, "rule": r.rule, "date": r.created}
                for r in load(root) if r.status == "adopted" and (r.fix or r.rule)]
    if path.name == "learnings.md":
        from .learnings import load

        return [{"id": item.id, "tool": "", "text": item.text, "input": "", "excerpt": "", "fix": "", "rule": item.text,
                 "date": item.last_seen} for item in load(root)
                if item.status == "promoted" and item.category == "Gotchas"]
    from ..signals.store import read_file

    return [{"id": s.id, "tool": s.extra.get("tool", ""), "text": s.text, "input": s.extra.get("input", ""),
             "excerpt": one_line(s.text, 200), "fix": s.extra["fix"], "rule": "", "date": s.day}
            for s in read_file(path)
            if s.type in ("failure", "repeated_failure") and s.extra.get("fix") and s.status != "dismissed"
            and not is_same_action(s.extra["fix"], s.extra.get("input", ""))]  # (older miners recorded those)


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def _index(root: Path) -> list[dict]:
    cache_path = _cache_path(root)
    try:
        cache = json.loads(fsutil.read_text(cache_path))
        files = cache.get("files", {}) if isinstance(cache, dict) and cache.get("version") == INDEX_VERSION else {}
    except (OSError, ValueError):
        files = {}
    fresh: dict[str, dict] = {}
    changed = False
    for path in _sources(root):
        try:
            st = path.stat()
        except OSError:
            continue
        stamp = [st.st_mtime_ns, st.st_size]
        key = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        old = files.get(key)
        if old and old.get("stamp") == stamp:
            fresh[key] = old
            continue
        changed = True
        try:
            data = fsutil.read_bytes(path)
        except OSError:
            continue
        size = int(old.get("size", -1)) if old else -1
        if old and 0 <= size <= len(data) and old.get("digest") == _digest(data[:size]) \
                and b"- fix:" not in data[size:]:
            # appended entries only (the hook path), none with a fix: nothing new to index
            fresh[key] = {**old, "stamp": stamp, "size": len(data), "digest": _digest(data)}
            continue
        fresh[key] = {"stamp": stamp, "size": len(data), "digest": _digest(data), "entries": _entries_for(root, path)}
    if changed or set(fresh) != set(files):
        try:
            atomic_write_text(cache_path, json.dumps({"version": INDEX_VERSION, "files": fresh}),
                              mode=paths.PRIVATE_FILE_MODE)
        except OSError:
            pass
    return [e for item in fresh.values() for e in item.get("entries", [])]


def lookup_fix(root: Path, *, tool_name: str, tool_input: dict, error: str) -> str | None:
    """A short note naming a past fix for a similar failure, or None."""
    root = Path(root)
    if not root.is_dir():
        return None
    q_err = content_tokens(_excerpt(error)) - GENERIC
    q_in = content_tokens(_input_summary(tool_name, tool_input)) - GENERIC
    if len(q_err) < 2:
        return None  # "Exit code 1" alone says too little to match anything
    failing = _input_summary(tool_name, tool_input)
    best, best_score = None, 0.0
    for entry in _index(root):
        if entry["tool"] and entry["tool"] != tool_name:
            continue
        if not entry.get("rule") and is_same_action(entry.get("fix", ""), failing):
            continue  # "what fixed it" would be the very call that just failed
        e_err = content_tokens(entry["text"]) - GENERIC
        shared = len(q_err & e_err)
        if shared < 2:
            continue
        score = jaccard(q_err, e_err)
        if score < 0.3 and shared / max(1, len(e_err)) < 0.6:
            continue
        score += 0.3 * jaccard(q_in, content_tokens(entry.get("input", "")) - GENERIC)
        score += 0.1 if entry["id"].startswith("RFX-") else 0.0
        if score > best_score:
            best, best_score = entry, score
    if best is None:
        return None
    parts = [f"memdown: a similar {tool_name} failure was seen before ({best['id']}"
             + (f", {best['date']}" if best.get("date") else "") + ")"]
    if best.get("excerpt"):
        parts[0] += f': "{best["excerpt"]}"'
    parts[0] += "."
    from ..shellguard import destructive

    harm = destructive(best["fix"]) if best.get("fix") else ""
    if harm:  # never "what fixed it": the agent would repeat it (#27: a force push learned as the fix)
        parts.append(f"A past session got past it with a destructive command ({harm}); it is not a fix to repeat: "
                     "find the cause, and ask the user before anything irreversible.")
    elif best.get("fix"):
        parts.append(f"What fixed it: {best['fix']}.")
    if best.get("rule"):
        parts.append(f"Rule: {best['rule']}")
    return one_line(" ".join(parts), MAX_CONTEXT)
