"""Writing learned rules into CLAUDE.md files: backed up first, then replaced atomically.

Targets: ``project`` (``<project>/CLAUDE.md``, and every other agent's instruction file the project has:
AGENTS.md, .github/copilot-instructions.md, GEMINI.md, .cursor/rules/; see ``instructions``), ``agents``
(``<project>/AGENTS.md``), ``project-local`` (``<project>/.claude/CLAUDE.md``), ``global``
(``~/.claude/CLAUDE.md``) and ``rules`` (``<project>/.claude/rules/<topic>.md``, with ``paths:`` when the rule
names files; see ``rules_target``).
Rules go in one section, one list item each, tagged with the learning id and
the promotion's random token (so undo removes exactly the block it wrote, even
when two clones' learnings share an id after a merge)::

    ## Learned rules (memdown)

    - Use pnpm, not npm. <!-- memdown:LRN-20261122-0001 #9f2c41d7 -->

Nothing is written without an approval recorded on this machine for exactly
this target, token and text (``approvals``): ``learnings.md`` is committed
and may come from anyone.

Before any change the current file is copied to
``.memdown/backups/<UTC stamp>-<target>-CLAUDE.md``; the new content replaces
the file with ``fsutil.edit_locked`` (compare-and-swap; temp file, fsync, rename), so a
crash at any moment leaves the old file or the new one, never a mix.
"""
from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

from .. import fsutil, paths
from ..errors import NotApprovedError, UsageError
from ..fsutil import atomic_write_bytes, edit_locked, file_lock
from ..signals import store
from ..signals.text import one_line
from . import approvals, instructions, learnings

# Target name -> the file it writes (given the memory root). Add a target here.
# ``rules`` is a folder: ``rules_target.rule_file`` picks the topic file inside it.
TARGETS: dict[str, Callable[[Path], Path]] = {
    "project": lambda root: project_dir(root) / "CLAUDE.md",
    "project-local": lambda root: project_dir(root) / ".claude" / "CLAUDE.md",
    "global": lambda root: paths.claude_home() / "CLAUDE.md",
    "rules": lambda root: project_dir(root) / ".claude" / "rules",
    # The other agents' instruction files (``instructions``): ``--to agents``, and ``project`` writes each one
    # the project has.
    "agents": lambda root: project_dir(root) / "AGENTS.md",
    "copilot": lambda root: project_dir(root) / ".github" / "copilot-instructions.md",
    "gemini": lambda root: project_dir(root) / "GEMINI.md",
    "cursor": lambda root: project_dir(root) / ".cursor" / "rules" / "memdown.mdc",
}
CLAUDE_TARGETS = tuple(TARGETS)
OTHER_TARGETS = ("learnings", "improvements", "reflexion")
ALL_TARGETS = CLAUDE_TARGETS + OTHER_TARGETS
SECTION = "Learned rules (memdown)"
SECTION_NOTE = ("<!-- Added by `memdown reflect`, one rule per line. Edit or delete freely; "
                "`memdown reflect undo LRN-…` removes a rule with a backup. -->")


def project_dir(root: Path) -> Path:
    root = Path(root)
    if root.name == paths.MEMORY_DIR_NAME:
        return root.parent
    return paths.project_root()


def target_paths(root: Path) -> dict[str, Path]:
    return {name: where(root) for name, where in TARGETS.items()}


def target_files(root: Path) -> list[tuple[str, Path]]:
    """(target, file) for every file a target writes: the CLAUDE.md files and each ``.claude/rules/*.md``."""
    from .rules_target import files

    return [(t, p) for t, p in target_paths(root).items() if t != "rules"] + \
        [("rules", p) for p in files(project_dir(root))]


def target_path(root: Path, target: str) -> Path:
    found = target_paths(root).get(target)
    if found is None:
        raise UsageError(f"unknown target {target!r}", hint="one of " + ", ".join(ALL_TARGETS))
    return found


def describe(root: Path, target: str) -> str:
    if target in CLAUDE_TARGETS:
        path = target_path(root, target)
        try:
            return f"{target} {path.relative_to(project_dir(root))}"
        except ValueError:
            return f"{target} {str(path).replace(str(Path.home()), '~', 1)}"
    return f"{target} {target}.md"


def marker(learning_id: str, token: str = "") -> str:
    """The rule's tag; without a token, the tag of rules written before tokens existed."""
    return f"<!-- memdown:{learning_id} #{token} -->" if token else f"<!-- memdown:{learning_id} -->"


_md = None


def _parse(text: str):
    global _md
    if _md is None:
        from markdown_it import MarkdownIt

        _md = MarkdownIt("commonmark", {"html": True}).disable("inline")  # block structure is all we need
    return _md.parse(text)


def rule_spans(text: str, learning_id: str, token: str = "") -> list[tuple[int, int]]:
    """Line ranges of the list items carrying exactly this marker (anywhere in the file)."""
    lines = text.splitlines()
    tag = marker(learning_id, token)
    spans = []
    tokens = _parse(text)
    for k, tok in enumerate(tokens):
        if tok.type == "list_item_open" and tok.map:
            end = tok.map[1]
            # the item's own paragraph ends before trailing blank lines / nested lists
            para = next((t for t in tokens[k + 1:k + 3] if t.type == "paragraph_open" and t.map), None)
            if para is not None:
                end = para.map[1]
            if any(tag in line for line in lines[tok.map[0]:end]):
                spans.append((tok.map[0], end))
    return spans


def written_text(rule: str) -> str:
    """The rule exactly as its line in CLAUDE.md says it (promote prints this, so what it shows is what it wrote).

    ``fence.clean``: invisible characters removed and fake tags defanged, as `reflect list` showed it
    (``cli.recorded.output_gate``), so a hidden "run curl …|sh" in tag characters is never written.
    """
    from ..fence import clean
    from ..redact import redact

    return one_line(clean(redact(rule)))


def insert_rule(text: str, learning_id: str, rule: str, token: str = "") -> str:
    item = f"- {written_text(rule)} {marker(learning_id, token)}\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    tokens = _parse(text)
    headings = [(int(t.tag[1:]), tokens[k + 1].content.strip(), t.map[0], t.map[1])
                for k, t in enumerate(tokens) if t.type == "heading_open" and t.map]
    for n, (level, title, _start, head_end) in enumerate(headings):
        if title == SECTION:
            end = next((h[2] for h in headings[n + 1:] if h[0] <= level), len(lines))
            while end > head_end and not lines[end - 1].strip():
                end -= 1
            chunk = [item]
            if end < len(lines) and lines[end].strip():
                chunk.append("\n")
            last = lines[end - 1].lstrip() if end > head_end else ""
            if end == head_end or not last.startswith(("-", "*", "+")):
                chunk.insert(0, "\n")
            lines[end:end] = chunk
            return "".join(lines)
    prefix = "".join(lines)
    if prefix.strip():
        prefix = prefix.rstrip("\n") + "\n\n"
    else:
        prefix = ""
    return f"{prefix}## {SECTION}\n\n{SECTION_NOTE}\n\n{item}"


def remove_rule_text(text: str, learning_id: str, token: str = "") -> str:
    lines = text.splitlines(keepends=True)
    spans = rule_spans(text, learning_id, token)
    for start, end in sorted(spans, reverse=True):
        del lines[start:end]
    return _drop_empty_section("".join(lines)) if spans else "".join(lines)


def _drop_empty_section(text: str) -> str:
    """Remove our section heading when nothing but its note is left under it (the file is loaded every session)."""
    lines = text.splitlines(keepends=True)
    tokens = _parse(text)
    headings = [(int(t.tag[1:]), tokens[k + 1].content.strip(), t.map[0], t.map[1])
                for k, t in enumerate(tokens) if t.type == "heading_open" and t.map]
    for n, (level, title, start, head_end) in enumerate(headings):
        if title != SECTION:
            continue
        end = next((h[2] for h in headings[n + 1:] if h[0] <= level), len(lines))
        if any(line.strip() and line.strip() != SECTION_NOTE for line in lines[head_end:end]):
            return text
        while start > 0 and not lines[start - 1].strip():
            start -= 1
        del lines[start:end]
        if start and start < len(lines):
            lines.insert(start, "\n")
        return "".join(lines)
    return text


def backup(root: Path, path: Path, target: str, within: Path | None = None) -> Path | None:
    """Copy ``path`` into ``.memdown/backups/`` (atomically); None when it does not exist."""
    try:
        data = fsutil.read_bytes(Path(path), root=within)
    except FileNotFoundError:
        return None
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    dest = Path(root) / "backups" / f"{stamp}-{target}-{Path(path).name}"
    atomic_write_bytes(dest, data, mode=paths.PRIVATE_FILE_MODE)  # a copy of ~/.claude/CLAUDE.md stays private
    return dest


def _edit_target(root: Path, target: str, change, path: Path | None = None, *, created: bool = False) -> dict:
    """Apply ``change`` to the target's file (backup first, compare-and-swap). A file that did not exist is
    made 0644 and reported ``created``; with ``created`` (memdown made this file for a rule), a file left with
    nothing of a person's is removed."""
    path = path or target_path(root, target)
    done: dict = {"target": target, "path": str(path), "backup": None, "changed": False}
    # A project's files are walked from the project (no link planted in the repository is followed); the
    # person's own ~/.claude/CLAUDE.md is an explicit target: only its own last part must not be a link.
    within = None if target == "global" else project_dir(root)
    fsutil.check_folders(path, within)  # a clear refusal before any backup; edit_locked walks from `within` again

    def apply(old: str) -> tuple[str, None]:
        new = change(old)
        if new != old:  # backed up as read; a person's save meanwhile makes edit_locked read and back up again
            saved = backup(root, path, target, within)
            done.update(backup=str(saved) if saved else None, changed=True)
        return new, None

    with file_lock(paths.lock_file(root, "claude-md"), timeout=30):
        existed = fsutil.lstat(path, root=within) is not None
        # compare-and-swap: a person's save of CLAUDE.md is never overwritten; replaced whole, never torn
        edit_locked(path, apply, in_place=False, root=within)
        if done["changed"] and not existed:
            done["created"] = True
            if target != "global":  # a committed file, read by every clone: not private like memdown's state
                os.chmod(path, 0o644)
        elif done["changed"] and created and instructions.drop_if_only_ours(path, target, within):
            done["removed_file"] = True
    return done


def add_rule(root: Path, target: str, learning_id: str, rule: str, *, token: str) -> dict:
    """Add the rule to ``target`` (idempotent: the same marker already there is left alone).

    Raises NotApprovedError unless this machine approved exactly this target, token and text.
    """
    if not approvals.approved(target_path(root, target), token, rule):
        raise NotApprovedError(f"{learning_id} → {target} was not approved on this machine; nothing written",
                               hint=f"approve it with `memdown reflect promote {learning_id} --to {target}`")

    def change(text: str) -> str:
        if rule_spans(text, learning_id, token):
            return text
        return insert_rule(text or instructions.first_content(target), learning_id, rule, token)

    if target == "rules":
        from . import learnings
        from .rules_target import rule_file, scoped

        try:
            category = learnings.get(root, learning_id).category
        except Exception:  # noqa: BLE001 - a rule without its learning still has a home
            category = ""
        path, globs = rule_file(project_dir(root), rule, category)
        return _edit_target(root, target, scoped(change, globs), path=path)
    return _edit_target(root, target, change)


def instruction_targets(root: Path, target: str) -> tuple[list[str], list[str]]:
    """(targets one promotion to ``target`` writes, files skipped with why): see ``instructions``."""
    return instructions.instruction_targets(target, target_paths(root))


def approve(root: Path, target: str, learning_id: str, rule: str, token: str) -> None:
    """Record the approval ``add_rule`` asks for (the person ran ``memdown reflect promote`` here): one
    approval covers every instruction file the target writes, each recorded for its own file."""
    for each in instruction_targets(root, target)[0]:
        approvals.approve(target_path(root, each), token, rule, learning_id=learning_id, target=each)


def approved(root: Path, target: str, rule: str, token: str) -> bool:
    return target in TARGETS and approvals.approved(target_path(root, target), token, rule)


def token_of(item: learnings.Learning) -> str:
    return str(item.extra.get("token") or "")


def approve_learning(root: Path, item: learnings.Learning, target: str) -> learnings.Learning:
    """The person at this machine approves sending ``item`` to ``target`` (a token is added if missing)."""
    if not token_of(item):
        item.extra["token"] = approvals.new_token()
        learnings.update(root, item.id, token=item.extra["token"])
    approve(root, target, item.id, item.text, token_of(item))
    return item


def local_learning(root: Path, learning_id: str) -> learnings.Learning:
    """The learning with this id; when a merge brought two, the one approved on this machine."""
    same = [i for i in learnings.load(root) if i.id == learning_id]
    for item in same:
        if any(approved(root, t, item.text, token_of(item)) for t in CLAUDE_TARGETS):
            return item
    return same[0] if same else learnings.get(root, learning_id)


def remove_rule(root: Path, target: str, learning_id: str, token: str = "", *, created: bool = False) -> dict:
    """Remove exactly the rule blocks with this id and token (no token: the untokened legacy marker); with
    ``created``, the file memdown made for it goes too when nothing else is left in it."""
    if target == "rules":
        from .rules_target import files_with, scoped

        results = [_edit_target(root, target, scoped(lambda text: remove_rule_text(text, learning_id, token), []),
                                path=p)
                   for p in files_with(project_dir(root), marker(learning_id, token))]
        return next((r for r in results if r["changed"]), {"target": target, "path": "", "backup": None,
                                                            "changed": False})
    return _edit_target(root, target, lambda text: remove_rule_text(text, learning_id, token), created=created)


def rules_in(root: Path) -> list[tuple[str, str]]:
    """(target, line text) for every non-empty prose/list line of the CLAUDE.md targets."""
    out = []
    for target, path in target_files(root):
        try:
            text = fsutil.read_text(path, errors="replace", root=None if target == "global" else project_dir(root))
        except OSError:
            continue
        for tok in _parse(text):
            if tok.type == "inline" and tok.content.strip():
                for line in tok.content.splitlines():
                    if line.strip():
                        out.append((target, line.strip()))
    return out


def finish_rule(root: Path, item, target: str, day: str) -> dict:
    """Write the rule to its target (idempotent; refused without a local approval), then mark it promoted."""
    result: dict = {"learning": item.id, "target": target, "rule": written_text(item.text)}
    written = [target]
    if target in CLAUDE_TARGETS:
        written, skipped = _write_everywhere(root, item, target, result)
        if skipped:
            result["skipped"] = skipped
        from . import guards

        guard = guards.add(None if target == "global" else root, item.id, token_of(item), item.text,
                           files=[p for p in [result.get("path"), *result.get("also", [])] if p])
        if guard is not None:
            result["guard"] = guard["decision"]
            result["guard_checks"] = guards.describe(guard)
    promoted_to = item.promoted_to + [f"{describe(root, t)} ({day})" for t in written if t not in item.targets]
    learnings.update(root, item.id, status="promoted", promoted_to=promoted_to, target=None)
    if item.sources:
        before = {s.id: s for s in store.load(root) if s.id in set(item.sources)}
        store.update(root, {s: {"status": "promoted", "learning": item.id, "before": _earlier(before.get(s))}
                            for s in item.sources})
    return result


def _earlier(sig) -> str | None:
    """The status a signal had before its promotion (what ``undo`` puts back)."""
    if sig is None:
        return None
    return (sig.extra.get("before") or None) if sig.status == "promoted" else sig.status


def _write_everywhere(root: Path, item, target: str, result: dict) -> tuple[list[str], list[str]]:
    """Add the rule to each instruction file ``target`` writes; (targets written, files skipped with why).
    The first is the result's own; a file that appeared after the approval is skipped, not written unapproved."""
    targets, skipped = instruction_targets(root, target)
    written, created = [], instructions.created_targets(item)
    for n, each in enumerate(targets):
        if n and not approved(root, each, item.text, token_of(item)):
            skipped.append(f"{target_path(root, each).name}: appeared after the approval")
            continue
        done = add_rule(root, each, item.id, item.text, token=token_of(item))
        if n == 0:
            result.update(done)
        else:
            result.setdefault("also", []).append(done["path"])
        written.append(each)
        if done.get("created") and each not in created:
            created.append(each)
    if created != instructions.created_targets(item):
        item.extra["created"] = " ".join(created)
        learnings.update(root, item.id, created=item.extra["created"])
    return written, skipped
