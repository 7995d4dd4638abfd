"""Rules a person would write: a correction's quote turned into one imperative line for CLAUDE.md.

"I like the names "bootstrap", "backfill", and "delta" syncs for the 3 steps."
becomes "Name the three sync steps bootstrap, backfill and delta." when
``claude -p`` is available (``summarizer.use_claude``; the call is made the
way the summarizer makes it: hooks off, its own working folder), and
"Use the names "bootstrap", "backfill", and "delta" syncs for the 3 steps."
from the deterministic template otherwise. The original quote stays in
``.memdown/learnings.md`` as the learning's evidence, never in CLAUDE.md.

Each quote is phrased once: the result is kept in ``state/rule-phrasing.json``
(machine-local), so ``reflect show`` and ``reflect promote`` give the same
rule, and promote writes exactly the rule it prints.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from .. import fsutil
from .. import paths
from ..committed_config import claude_argv
from ..config import SUMMARIZER_ENV, Config
from ..errors import ConfigError
from ..fsutil import atomic_write_text
from ..redact import redact
from ..signals.text import one_line

MAX_RULE_CHARS = 200
CLAUDE_TIMEOUT = 60.0
INSTRUCTIONS = (
    "Rewrite the user's correction below as ONE short imperative rule for a coding agent's CLAUDE.md, "
    "the way a person would write it (e.g. \"Use pnpm, not npm.\", \"Name the three sync steps bootstrap, "
    "backfill and delta.\"). Keep names, commands, flags and paths exactly as the user wrote them; put "
    "commands in backticks. No preamble, no quotes, no bullet: reply with the rule only, on one line, under "
    f"{MAX_RULE_CHARS} characters. If it is not a lasting rule, reply NONE.\n\n"
)

_FILLER_END = re.compile(r"[\s,;]*(?:please|pls|plz|thanks|thank you|ok|okay)[.!]*$", re.I)
_TEMPLATES: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^(?:i|we)\s+(?:really\s+)?(?:don'?t|do not|never)\s+(?:want|like)\s+(?:you\s+)?to\s+(?P<r>.+)", re.I),
     "Don't {r}"),
    (re.compile(r"^(?:i|we)\s+(?:really\s+)?(?:don'?t|do not)\s+(?:want|like|need)\s+(?P<r>.+)", re.I), "Avoid {r}"),
    (re.compile(r"^(?:i|we)\s+(?:would\s+|'d\s+)?(?:really\s+)?(?:like|love|want|need)\s+(?:you\s+)?to\s+(?P<r>.+)", re.I),
     "{r}"),
    (re.compile(r"^(?:i|we)\s+(?:would\s+|'d\s+)?(?:really\s+)?prefer\s+(?P<r>.+)", re.I), "Prefer {r}"),
    (re.compile(r"^(?:i|we)\s+(?:would\s+|'d\s+)?(?:really\s+)?(?:like|love|want)\s+(?P<r>.+)", re.I), "Use {r}"),
    (re.compile(r"^(?:you\s+)?(?:should\s*n[o']?t|must\s*n[o']?t|shall not|do not|don'?t)\s+(?P<r>.+)", re.I), "Don't {r}"),
    (re.compile(r"^(?:you\s+)?(?:should|must|need to|have to|gotta|ought to)\s+(?P<r>.+)", re.I), "{r}"),
    (re.compile(r"^(?:please|pls|plz|make sure (?:to|you)|be sure to|always make sure to)\s+(?P<r>.+)", re.I), "{r}"),
    (re.compile(r"^we\s+(?:always\s+)?use\s+(?P<r>.+)", re.I), "Use {r}"),
    (re.compile(r"^we\s+(?:don'?t|do not|never)\s+(?P<r>.+)", re.I), "Don't {r}"),
    (re.compile(r"^(?:you|u)\s+(?:forgot|missed)\s+(?:to\s+)?(?P<r>.+)", re.I), "Remember to {r}"),
    (re.compile(r"^(?:why (?:did|do|are|would) you|you)\s+(?:keep\s+|still\s+)?(?:using|use|used)\s+(?P<r>.+?)\??$", re.I),
     "Don't use {r}"),
    (re.compile(r"^it'?s\s+(?P<a>[^,]+?),?\s+not\s+(?P<b>.+)", re.I), "Use {a}, not {b}"),
]


def _finish(text: str) -> str:
    text = one_line(text).strip(" ,;:-")
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    if text[-1] not in ".!?。！？`)\"":
        text += "."
    return text


def template_rule(quote: str) -> str:
    """The imperative rule a fixed template makes of ``quote`` (no model, same input → same rule)."""
    text = _FILLER_END.sub("", one_line(quote).strip()).rstrip(" .!")
    for pattern, form in _TEMPLATES:
        found = pattern.match(text)
        if found:
            text = form.format(**{k: v.strip() for k, v in found.groupdict().items()})
            break
    text = re.sub(r"\byour\b", "the", text, flags=re.I) if text.lower().startswith(("use ", "prefer ")) else text
    return _finish(text)


def claude_rule(quote: str, context: str, *, model: str, timeout: float = CLAUDE_TIMEOUT) -> str | None:
    """The rule ``claude -p`` writes, or None (no CLI, a failure, NONE, or an answer that is not one line)."""
    exe = shutil.which("claude")
    if not exe:
        return None
    workdir = paths.memdown_home() / "summarizer"
    fsutil.make_dirs(workdir)
    prompt = INSTRUCTIONS + (f"What the agent had just done:\n{redact(context)[:1500]}\n\n" if context else "")
    prompt += f"The user's words:\n{redact(quote)[:1500]}\n"
    try:
        proc = subprocess.run(claude_argv(exe, model), input=prompt, capture_output=True, text=True,
                              timeout=timeout, cwd=workdir,
                              env={**os.environ, "MEMDOWN_DISABLE": "1", SUMMARIZER_ENV: "1"})
    except (OSError, subprocess.SubprocessError, ConfigError):
        return None
    lines = [line.strip().lstrip("-*• ").strip().strip('"') for line in proc.stdout.splitlines() if line.strip()]
    if proc.returncode != 0 or len(lines) != 1 or lines[0].upper().startswith("NONE"):
        return None
    rule = _finish(redact(lines[0]))
    return rule if 3 <= len(rule) <= MAX_RULE_CHARS else None


def _cache_file(root: Path) -> Path:
    return paths.state_dir(root) / "rule-phrasing.json"


def _cache_key(quote: str, context: str) -> str:
    return hashlib.sha256(f"{quote}\0{context}".encode("utf-8", "surrogatepass")).hexdigest()[:24]


def rule_for(root: Path, quote: str, context: str, config: Config) -> str:
    """The rule for this quote: as phrased before, else by ``claude -p`` when enabled, else by the template."""
    cache = _cache_file(root)
    try:
        known = json.loads(fsutil.read_text(cache))
    except (OSError, ValueError):
        known = {}
    known = known if isinstance(known, dict) else {}
    key = _cache_key(quote, context)
    if isinstance(known.get(key), str) and known[key]:
        return known[key]
    rule = None
    if config["summarizer.use_claude"]:
        rule = claude_rule(quote, context, model=str(config["summarizer.model"]))
    rule = one_line(redact(rule or template_rule(quote)))
    known[key] = rule
    try:
        atomic_write_text(cache, json.dumps(known, ensure_ascii=False, indent=1) + "\n", mode=paths.PRIVATE_FILE_MODE)
    except OSError:
        pass  # phrased again next time
    return rule
