"""``memdown install gemini`` / ``uninstall gemini``: memdown's hooks in Gemini CLI's settings.json.

Gemini CLI (0.61.0 checked, its bundled source and geminicli.com/docs/hooks/reference) reads hooks from
the ``hooks`` object of ``settings.json``: the user's (``~/.gemini``; ``GEMINI_CLI_HOME`` moves it) or a
repository's ``.gemini/``, in the shape Codex's hooks.json has (``codex_setup`` does the merge), with
timeouts in milliseconds. Installed, each as ``memdown hook EVENT gemini`` (the runner answers in
Gemini's terms): SessionStart (the digest), BeforeAgent (recall pointers), BeforeTool on
``run_shell_command``, ``write_file`` and ``replace`` (guards: deny), AfterAgent and SessionEnd
(capture from the chat file the payload's ``transcript_path`` names). Recall: the ``memory-recall`` skill
(Codex's text, naming Gemini CLI) in ``skills/`` beside the settings file, where Gemini CLI discovers skills
(``~/.gemini/skills``; a repository's ``.gemini/skills`` in a trusted folder); its steps run
``memdown search`` → ``expand`` through the shell tool. Or memdown's MCP server (docs/clients/gemini.md).

Only memdown's own handlers are touched (``codex_setup.is_ours``): every other hook, group and setting
is kept. Installing twice changes nothing; uninstalling removes what install wrote (and the file, when
install created it and nothing else is in it). Gemini CLI runs a project's hooks only in a folder the
person trusts; memdown never writes that trust. A settings.json with comments (Gemini allows them) is
refused whole: memdown would drop them.
"""
from __future__ import annotations

from pathlib import Path

from ... import fsutil, paths
from .codex_setup import (SKILL_NAME, SetupReport, edit_settings, hook_command, in_project, install_hooks, recall_skill,
                          remove_hooks, remove_skill, write_skill)

SETTINGS_FILE = "settings.json"
SKILL, SKILL_MARK = recall_skill("Gemini CLI", "gemini")
CLIENT = " gemini"  # `memdown hook EVENT gemini`: hooks/runner.py answers in Gemini CLI's terms
# event -> (matcher or None, timeout in milliseconds)
EVENTS: dict[str, tuple[str | None, int]] = {
    "SessionStart": (None, 15_000),
    "BeforeAgent": (None, 10_000),
    "BeforeTool": ("^(run_shell_command|write_file|replace)$", 10_000),
    "AfterAgent": (None, 30_000),
    "SessionEnd": (None, 5_000),
}
# Not PreCompress: 0.61.0 fires it at every compression check, before each model request that has history,
# whether it then compresses or not (ChatCompressionService.compress; twice in a one-prompt headless session
# of tests/e2e/test_gemini.py), and each would queue a capture job. AfterAgent captures every prompt's turn
# as it ends, so nothing waits for a compression.


def settings_file(project: bool, start: Path | None = None) -> Path:
    """The repository's ``.gemini/settings.json``, or the user's (``$GEMINI_CLI_HOME/.gemini``)."""
    return in_project(start, ".gemini", SETTINGS_FILE) if project else paths.agent_homes()["gemini"] / SETTINGS_FILE


def skill_file(project: bool, start: Path | None = None) -> Path:
    """Where Gemini CLI finds skills: ``skills/`` beside the settings file (a repository's: trusted folders only)."""
    if project:
        return in_project(start, ".gemini", "skills", SKILL_NAME, "SKILL.md")
    return settings_file(project, start).parent / "skills" / SKILL_NAME / "SKILL.md"


def install(project: bool = False, start: Path | None = None) -> SetupReport:
    """memdown's hooks and recall skill in Gemini CLI's user (or project) settings; idempotent."""
    target = settings_file(project, start)
    report = SetupReport(target, skill_file(project, start))
    changed, _ = edit_settings(target, lambda data: install_hooks(data, EVENTS, lambda event: hook_command(project, event, CLIENT)))
    if changed:
        report.changes.append(f"hooks for {', '.join(changed)} in {target}")
    write_skill(report, SKILL, SKILL_MARK)
    return report


def uninstall(project: bool = False, start: Path | None = None) -> SetupReport:
    """Remove exactly what ``install`` wrote: memdown's handlers (every other setting stays), its unedited skill."""
    target = settings_file(project, start)
    report = SetupReport(target, skill_file(project, start))
    removed, data = edit_settings(target, lambda data: remove_hooks(data, EVENTS))
    if removed and data == {"hooks": {}}:  # the file install created, nothing of anyone else's in it
        fsutil.unlink(target)
        report.changes.append(f"removed {target} (memdown's hooks were all it held)")
    elif removed:
        report.changes.append(f"removed hooks for {', '.join(removed)} from {target}")
    remove_skill(report, SKILL)
    return report
