"""Every instruction file a project's agents read: one approved rule goes to each (issue 28, item 6).

Claude Code reads ``CLAUDE.md`` (2.1.277+ reads ``AGENTS.md`` only when there is no CLAUDE.md); Codex,
Cursor, Copilot, Windsurf, Cline, Amp, opencode, Jules, Roo and Qwen read ``AGENTS.md``; Copilot also
``.github/copilot-instructions.md``, Gemini CLI ``GEMINI.md``, Cursor ``.cursor/rules/*.mdc``. The
``project`` target (the default for a project's rules) writes the rule to CLAUDE.md and to each of the
others the project already has, under one approval (one recorded per file), each line with the learning's
token, so ``reflect undo`` removes every copy. When the project has AGENTS.md and no CLAUDE.md, CLAUDE.md
is not created: Claude Code would stop reading AGENTS.md. A file that is a link is left alone and said so.

A file memdown created for a rule is removed by ``undo`` when nothing but that rule was in it
(``drop_if_only_ours``); which files it created is recorded in the learning (``created``).
"""
from __future__ import annotations

from pathlib import Path

from .. import fsutil

# The other instruction files, written by the ``project`` target when the project has them.
COMPANIONS = ("agents", "copilot", "gemini", "cursor")
CURSOR_HEADER = "---\ndescription: Rules learned by memdown\nalwaysApply: true\n---\n\n"


def _present(path: Path, target: str) -> bool:
    """The project has this instruction file (for Cursor: its rules folder)."""
    where = path.parent if target == "cursor" else path
    return where.is_dir() if target == "cursor" else where.is_file()


def instruction_targets(target: str, paths_by_target: dict[str, Path]) -> tuple[list[str], list[str]]:
    """(targets to write, files skipped with why) for ``target``: itself, or for ``project`` CLAUDE.md and
    every other instruction file present."""
    if target != "project":
        return [target], []
    chosen, skipped = [], []
    for name in COMPANIONS:
        path = paths_by_target[name]
        if path.is_symlink() or (name != "cursor" and path.parent.is_symlink()):
            skipped.append(f"{path.name}: a link (not followed)")
        elif _present(path, name):
            chosen.append(name)
    if "agents" in chosen and not paths_by_target["project"].exists():
        return chosen, skipped  # Claude Code reads AGENTS.md only while there is no CLAUDE.md
    return ["project", *chosen], skipped


def first_content(target: str) -> str:
    """What a file memdown creates for ``target`` starts with (Cursor's rule files need frontmatter)."""
    return CURSOR_HEADER if target == "cursor" else ""


def only_scaffolding(text: str, target: str) -> bool:
    """Nothing but what memdown itself puts in a file it created (after the rule was removed)."""
    return text.strip() in ("", first_content(target).strip())


def created_targets(item) -> list[str]:
    return [t for t in str(item.extra.get("created") or "").replace(",", " ").split() if t]


def drop_if_only_ours(path: Path, target: str, within: Path | None) -> bool:
    """Remove ``path`` (a file memdown created for a rule) when nothing else is in it; True when removed."""
    try:
        text = fsutil.read_text(path, root=within)
    except OSError:
        return False
    if not only_scaffolding(text, target):
        return False
    fsutil.unlink(path, root=within)
    return True
