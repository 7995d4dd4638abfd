"""Whether ``Skill("memdown:memory-recall")`` will load the plugin's own SKILL.md: grant by identity, not by name.

The PreToolUse payload names the skill only (``{"skill": "memdown:memory-recall", "args": …}``), not the
file the client will load, and in Claude Code 2.1.328 a project's or the user's skill or command of the
same name wins over the plugin's (measured with ``--debug-file``: ``.claude/skills/memdown:memory-recall/``
by its folder name whatever its frontmatter says, ``.claude/commands/memdown:memory-recall.md`` and
``.claude/commands/memdown/memory-recall.md``, in the project, the user's config folder and every
``--add-dir`` folder). So the allow is answered only when

- the hook runs from a plugin folder (``hooks/memdown-hook`` exports its own path as ``MEMDOWN_PLUGIN_HOOK``)
  whose ``.claude-plugin/plugin.json`` is named ``memdown`` and that holds ``skills/memory-recall/SKILL.md``,
- no other memdown plugin is installed or passed with ``--plugin-dir``, and
- no folder the client reads skills or commands from holds anything in the ``memdown`` namespace: any entry
  of ``.claude/skills`` or ``.claude/commands`` whose name starts with ``memdown`` (any case), in the cwd and
  every folder above it, the user's config folder, the managed folders, ``additionalDirectories`` of every
  settings file and the ``--add-dir`` folders of the client's command line.

A whole class, not a list of file names: whatever the client resolves such an entry to, it is not ours, and
the client asks as usual. Anything unreadable counts as a shadow. Standard library only (``os``, and ``json``'s C codec through ``wirejson``).
"""
from __future__ import annotations

import os

from ..wirejson import loads  # json's own C codec without `import json`: this runs before every Skill call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PLUGIN_NAME = "memdown"
OWN_SKILL = ("skills", "memory-recall", "SKILL.md")
HOOK_ENV = "MEMDOWN_PLUGIN_HOOK"  # set by hooks/memdown-hook to its own path ($0), whatever the environment said
MANAGED = ("/etc/claude-code", "/Library/Application Support/ClaudeCode")
DIR_FLAGS = ("--add-dir", "--plugin-dir", "--settings")
MAX_ANCESTORS = 8


def recall_is_ours(payload: dict[str, Any]) -> bool:
    """True only when the recall skill the client will load is the plugin's own file."""
    return not why_not_ours(payload)


def why_not_ours(payload: dict[str, Any]) -> str:
    """'' when the recall skill is the plugin's own; else why not (for the hooks log: never silent)."""
    root = plugin_root()
    if not root:
        return "the hook does not run from memdown's plugin folder"
    config = _config_dir()
    cli_dirs = client_arguments()
    if cli_dirs is None:
        return "the client's command line cannot be read"
    add_dirs, plugin_dirs, settings_args = cli_dirs
    if _other_memdown_plugin(root, config, plugin_dirs):
        return "another plugin named memdown is installed or passed with --plugin-dir"
    projects = _project_dirs(payload)
    folders = [os.path.join(d, ".claude") for p in projects for d in _upwards(p)]
    folders.append(config)
    folders += [os.path.join(m, ".claude") for m in MANAGED]
    extra = add_dirs + _settings_dirs(config, projects, settings_args)
    folders += [os.path.join(d, ".claude") for d in extra]
    for folder in dict.fromkeys(folders):
        if _shadowed(folder):
            return f"{folder} has a skill or command in the memdown namespace that the client may load instead"
    return ""


def plugin_root() -> str:
    """The plugin folder the hook runs from, when it holds memdown's recall skill; '' otherwise."""
    hook = os.environ.get(HOOK_ENV, "")
    if not hook:
        return ""
    root = os.path.dirname(os.path.dirname(os.path.realpath(hook)))
    if not os.path.isfile(os.path.join(root, *OWN_SKILL)) or _plugin_name(root) != PLUGIN_NAME:
        return ""
    return root


def _plugin_name(root: str) -> str:
    try:
        with open(os.path.join(root, ".claude-plugin", "plugin.json"), "rb") as handle:
            data = loads(handle.read(1 << 20))
    except (OSError, ValueError):
        return ""
    return str(data.get("name") or "") if isinstance(data, dict) else ""


def _config_dir() -> str:
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return os.path.expanduser(configured) if configured else os.path.join(os.path.expanduser("~"), ".claude")


def _project_dirs(payload: dict[str, Any]) -> list[str]:
    found = [payload.get("cwd"), os.environ.get("CLAUDE_PROJECT_DIR")]
    try:
        found.append(os.getcwd())
    except OSError:
        pass
    return [os.path.realpath(d) for d in found if isinstance(d, str) and d]


def _upwards(folder: str) -> list[str]:
    out = [folder]
    while True:
        parent = os.path.dirname(folder)
        if parent == folder:
            return out
        out.append(parent)
        folder = parent


def _shadowed(claude_folder: str) -> bool:
    """Whether ``<folder>/skills`` or ``<folder>/commands`` holds anything in the memdown namespace."""
    for kind in ("skills", "commands"):
        try:
            with os.scandir(os.path.join(claude_folder, kind)) as entries:
                if any(entry.name.casefold().startswith(PLUGIN_NAME) for entry in entries):
                    return True
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:  # there but unreadable: the client may read it, we cannot tell
            return True
    return False


def _other_memdown_plugin(root: str, config: str, plugin_dirs: list[str]) -> bool:
    """Another plugin named memdown (installed, or passed with --plugin-dir) could own the name."""
    for folder in plugin_dirs:
        real = os.path.realpath(folder)
        if real != root and _plugin_name(real) == PLUGIN_NAME:
            return True
    try:
        with open(os.path.join(config, "plugins", "installed_plugins.json"), "rb") as handle:
            data = loads(handle.read(8 << 20))
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True
    plugins = data.get("plugins", data) if isinstance(data, dict) else {}
    for key, installs in (plugins.items() if isinstance(plugins, dict) else []):
        if not str(key).split("@")[0] == PLUGIN_NAME:
            continue
        for install in installs if isinstance(installs, list) else [installs]:
            path = install.get("installPath") if isinstance(install, dict) else None
            if not isinstance(path, str) or os.path.realpath(path) != root:
                return True
    return False


def _settings_dirs(config: str, projects: list[str], settings_args: list[str]) -> list[str]:
    """``permissions.additionalDirectories`` of every settings file the client reads (and --settings)."""
    files = [os.path.join(config, "settings.json"), os.path.join(config, "settings.local.json")]
    files += [os.path.join(m, "managed-settings.json") for m in MANAGED]
    for project in projects:
        for folder in _upwards(project):
            files += [os.path.join(folder, ".claude", "settings.json"),
                      os.path.join(folder, ".claude", "settings.local.json")]
    texts = []
    for path in dict.fromkeys(files):
        try:
            with open(path, "rb") as handle:
                texts.append((os.path.dirname(os.path.dirname(path)), handle.read(8 << 20)))
        except OSError:
            continue
    for value in settings_args:
        texts.append(("", value.encode() if value.lstrip().startswith("{") else _read(value)))
    found: list[str] = []
    for base, raw in texts:
        try:
            data = loads(raw or b"{}")
        except ValueError:
            continue
        perms = data.get("permissions") if isinstance(data, dict) else None
        dirs = perms.get("additionalDirectories") if isinstance(perms, dict) else None
        for folder in dirs if isinstance(dirs, list) else []:
            if isinstance(folder, str) and folder:
                folder = os.path.expanduser(folder)
                found.append(os.path.realpath(os.path.join(base or os.sep, folder)))
    return found


def _read(path: str) -> bytes:
    try:
        with open(os.path.expanduser(path), "rb") as handle:
            return handle.read(8 << 20)
    except OSError:
        return b""


def client_arguments() -> tuple[list[str], list[str], list[str]] | None:
    """(--add-dir folders, --plugin-dir folders, --settings values) of the processes this hook runs under.

    Read from ``/proc`` (Linux); elsewhere from one ``ps`` call. None when they cannot be read (no allow).
    """
    if not os.path.isdir("/proc/self"):
        return _arguments_from_ps()
    out: tuple[list[str], list[str], list[str]] = ([], [], [])
    pid = os.getppid()
    for _ in range(MAX_ANCESTORS):
        if pid <= 1:
            break
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                argv = handle.read().decode("utf-8", "surrogateescape").split("\0")
            with open(f"/proc/{pid}/stat", "rb") as handle:
                stat = handle.read().decode("ascii", "replace")
            cwd = os.readlink(f"/proc/{pid}/cwd") if any(a.startswith(DIR_FLAGS) for a in argv) else ""
        except OSError:
            return None
        _collect(argv, cwd, out)
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def _collect(argv: list[str], cwd: str, out: tuple[list[str], list[str], list[str]]) -> None:
    """The values of --add-dir (variadic), --plugin-dir and --settings, relative ones against ``cwd``."""
    current = ""
    for arg in argv:
        flag, eq, inline = arg.partition("=")
        if flag in DIR_FLAGS:
            current = flag
            if eq:
                _keep(flag, inline, cwd, out)
                current = ""
            continue
        if arg.startswith("-") or not current:
            current = ""
            continue
        _keep(current, arg, cwd, out)
        if current != "--add-dir":  # only --add-dir takes several folders
            current = ""


def _keep(flag: str, value: str, cwd: str, out: tuple[list[str], list[str], list[str]]) -> None:
    if flag == "--settings":
        out[2].append(value if value.lstrip().startswith("{") else os.path.join(cwd, os.path.expanduser(value)))
        return
    folder = os.path.realpath(os.path.join(cwd or os.sep, os.path.expanduser(value)))
    (out[0] if flag == "--add-dir" else out[1]).append(folder)


def _arguments_from_ps() -> tuple[list[str], list[str], list[str]] | None:
    """Without /proc (macOS): the ancestors' command lines from ``ps``; any folder flag there means no allow."""
    import subprocess

    try:
        listing = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,args="], capture_output=True, text=True,
                                 timeout=2, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    parents: dict[int, tuple[int, str]] = {}
    for line in listing.splitlines():
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
            parents[int(parts[0])] = (int(parts[1]), parts[2] if len(parts) > 2 else "")
    pid = os.getppid()
    for _ in range(MAX_ANCESTORS):
        if pid <= 1 or pid not in parents:
            break
        pid, args = parents[pid]
        if any(flag in args for flag in DIR_FLAGS):  # folder names with spaces cannot be split back out of ps
            return None
    return ([], [], [])
