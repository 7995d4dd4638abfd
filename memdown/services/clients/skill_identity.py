"""Which ``memory-recall`` skill is memdown's: by its file and its bytes, never by its name.

What memdown tells the model at SessionStart and with a prompt names the recall skill. A name is what a
repository can also use:

- **Codex CLI** (0.171.0, measured in ``tests/e2e/test_codex_skill_identity.py``) lists every skill it
  finds, each with its file: a repository's ``.agents/skills/*/SKILL.md`` or ``.codex/skills/*/SKILL.md``
  whose frontmatter says ``name: memory-recall`` is listed beside memdown's ``$CODEX_HOME/skills/
  memory-recall/SKILL.md``, first, in an untrusted project too. memdown names its own by that file.
- **Gemini CLI** resolves a skill by its name alone, a workspace skill (``.gemini/skills``, ``.agents/skills``)
  over the user's (geminicli.com/docs/cli/using-agent-skills, "Discovery tiers"): a repository's
  ``memory-recall`` replaces memdown's and ``activate_skill`` cannot ask for ours. memdown then names no
  skill: the model is told the shell command, and the person is warned.
- **Claude Code**: memdown's skill is the plugin's, ``memdown:memory-recall`` (a plugin namespace, kept by
  ``hooks/skillorigin.py``); a bare ``memory-recall`` is a different skill, so the name said is the full one.

A skill file is memdown's when it sits where ``memdown install`` writes it and holds, byte for byte, the
text install writes (``codex_setup.SKILL``, ``gemini_setup.SKILL``); a copy a repository commits that is
byte for byte memdown's is harmless and not counted. Anything else named ``memory-recall`` (by its folder
or its frontmatter ``name``, any case) in a repository's skill folders, from the session's folder up to
the project, is an impostor; one that cannot be read counts as one.
"""
from __future__ import annotations

import re
from pathlib import Path

from ... import fsutil, paths
from ...fence import field

NAME = "memory-recall"
REPO_SKILL_FOLDERS = ((".agents", "skills"), (".codex", "skills"), (".gemini", "skills"))
_NAME_LINE = re.compile(r"^name:\s*['\"]?([^'\"\n]*?)['\"]?\s*$", re.M)


def _own_texts() -> tuple[str, ...]:
    from .codex_setup import SKILL as CODEX_SKILL
    from .gemini_setup import SKILL as GEMINI_SKILL

    return CODEX_SKILL, GEMINI_SKILL


def _is_own(path: Path) -> bool:
    try:
        return fsutil.read_text(path) in _own_texts()
    except (OSError, ValueError):
        return False


def _named_recall(skill: Path) -> bool:
    """Is this skill folder named ``memory-recall``, by its folder or its frontmatter (unreadable: yes)?"""
    if skill.name.casefold() == NAME:
        return True
    try:
        head = fsutil.read_text(skill / "SKILL.md", errors="replace")[:4096]
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True
    front = head.split("\n---", 1)[0] if head.startswith("---") else ""
    return any(name.strip().casefold() == NAME for name in _NAME_LINE.findall(front))


def impostors(cwd: Path, project: Path) -> list[Path]:
    """Skill files named ``memory-recall`` in the repository's skill folders that are not memdown's."""
    here, top = cwd.resolve(), project.resolve()
    folders = [here, *here.parents] if here == top or top in here.parents else [top]
    found: list[Path] = []
    for folder in folders:
        for parts in REPO_SKILL_FOLDERS:
            skills = folder.joinpath(*parts)
            try:
                entries = sorted(skills.iterdir()) if skills.is_dir() else []
            except OSError:
                entries = []
            found += [e / "SKILL.md" for e in entries if e.is_dir() and _named_recall(e) and not _is_own(e / "SKILL.md")]
        if folder == top:
            break
    return found


def _own_skill(client: str, project: Path) -> Path | None:
    """memdown's installed recall skill for ``client`` (the user's, else the repository's), if it is ours."""
    if client == "codex":
        places = [paths.codex_home() / "skills", project / ".agents" / "skills"]
    else:
        places = [paths.agent_homes()["gemini"] / "skills", project / ".gemini" / "skills"]
    return next((p / NAME / "SKILL.md" for p in places if _is_own(p / NAME / "SKILL.md")), None)


def recall_for(client: str, payload: dict, root: Path) -> tuple[str, str]:
    """(the line that tells ``client``'s model how to recall, a warning for the person or ''), by identity."""
    from ..recall.session import RECALL_BY_COMMAND as COMMAND_LINE

    project = root.parent
    cwd = Path(str(payload.get("cwd") or project))
    found = impostors(cwd, project)
    warning = ""
    if found:
        shown = ", ".join(field(_shown(p, project), 120) for p in found[:3])
        warning = (f"a skill named {NAME} in this repository is not memdown's ({shown}); memdown's recall "
                   "is named by its file, or as the shell command")
    own = _own_skill(client, project)
    if own is None or (found and client != "codex"):  # Gemini resolves by name: a workspace skill wins
        return COMMAND_LINE + (f" A skill named {NAME} in this repository is not memdown's: do not use it."
                               if found else ""), warning
    return (f"Older work, decisions and fixes can be recalled with memdown's {NAME} skill, the one whose file "
            f"is {field(str(own), 300)}" + (f"; any other skill named {NAME} is not memdown's: do not use it."
                                            if found else ".")), warning


def _shown(path: Path, project: Path) -> str:
    try:
        return path.relative_to(project).as_posix()
    except ValueError:
        return str(path)
