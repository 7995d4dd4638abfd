"""The ``rules`` promotion target: ``<project>/.claude/rules/<topic>.md``.

Claude Code loads every ``.claude/rules/*.md``; a ``paths:`` frontmatter list of
globs scopes a file's rules to matching files. A learning that names files of
the project goes to a topic file named after their folder, with those paths
(merged with the file's own); any other learning goes to a file named after its
category. Writing (backup, atomic replace, lock) is ``promote._edit_target``'s.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from .. import fsutil

_PATHISH = re.compile(r"(?<![\w@:/.-])((?:[\w.-]+/)+[\w.*-]*|[\w-][\w.-]*\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|vue|svelte|go|rs"
                      r"|java|kt|rb|php|cs|swift|c|h|cpp|hpp|sql|sh|css|scss|html|md|json|ya?ml|toml|ini|cfg))(?![\w/])")
_SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".memdown", "dist", "build", ".tox"}
_MAX_WALK = 20000


def rules_dir(project: Path) -> Path:
    return Path(project) / ".claude" / "rules"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "learned"


def _find(project: Path, name: str) -> str | None:
    """The project-relative path of the first file called ``name`` (bounded walk)."""
    seen = 0
    for dirpath, dirnames, filenames in os.walk(project):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        seen += len(filenames)
        if name in filenames:
            return (Path(dirpath) / name).relative_to(project).as_posix()
        if seen > _MAX_WALK:
            return None
    return None


def file_globs(project: Path, text: str) -> list[str]:
    """Globs for the project files a rule names (only paths that exist): ``a/b.py``, ``a/dir/**``."""
    project = Path(project)
    globs: list[str] = []
    for token in _PATHISH.findall(text or ""):
        token = token.strip("./") if token.startswith("./") else token.rstrip(".")
        if not token or token.startswith("/") or ".." in token.split("/"):
            continue
        if "*" in token:
            found = token
        elif (project / token).is_dir():
            found = token.rstrip("/") + "/**"
        elif (project / token).is_file():
            found = token
        elif "/" not in token:
            found = _find(project, token)
        else:
            found = None
        if found and found not in globs:
            globs.append(found)
    return globs


def topic_for(globs: list[str], category: str) -> str:
    if globs:
        folders = [g.rsplit("/", 1)[0] if "/" in g else "" for g in globs]
        common = os.path.commonprefix(folders).rstrip("/")
        return slug(common or Path(globs[0]).stem)
    return slug(category or "learned")


def rule_file(project: Path, rule: str, category: str) -> tuple[Path, list[str]]:
    globs = file_globs(project, rule)
    return rules_dir(project) / f"{topic_for(globs, category)}.md", globs


def scoped(change: Callable[[str], str], globs: list[str]) -> Callable[[str], str]:
    """``change`` applied to the body; a new topic file, or one already scoped, gets ``paths:`` for ``globs``.

    A file without ``paths:`` applies everywhere and stays so; its frontmatter is kept byte for byte.
    """
    def apply(text: str) -> str:
        import frontmatter

        from ..store.chunker import split_frontmatter

        metadata, body, _ = split_frontmatter(text)
        new_body = change(body)
        if new_body == body:
            return text
        if globs and not text.strip():
            return frontmatter.dumps(frontmatter.Post(new_body, paths=list(globs))) + "\n"
        paths = metadata.get("paths")
        if globs and paths is not None:
            existing = [paths] if isinstance(paths, str) else list(paths)
            merged = existing + [g for g in globs if g not in existing]
            if merged != existing:
                return frontmatter.dumps(frontmatter.Post(new_body, **{**metadata, "paths": merged})) + "\n"
        return text[: len(text) - len(body)] + new_body

    return apply


def files(project: Path) -> list[Path]:
    try:
        return fsutil.list_files(rules_dir(project), suffix=".md", root=project)  # no link into or out of the repo
    except OSError:
        return []


def files_with(project: Path, tag: str) -> list[Path]:
    out = []
    for path in files(project):
        try:
            if tag in fsutil.read_text(path, errors="replace", root=project):
                out.append(path)
        except OSError:
            continue
    return out
