"""Every path memdown uses is resolved here, and only here.

Environment overrides (checked first):
- ``MEMDOWN_DIR``: the memory root itself (normally ``<project>/.memdown``).
- ``MEMDOWN_HOME``: the per-user data folder (embedding cache, transcript
  archive, cross-repo ledger, model folder). Default ``$XDG_DATA_HOME/memdown``.
- ``MEMDOWN_CONFIG``: the global config file. Default
  ``$XDG_CONFIG_HOME/memdown/config.toml``.

Standard library only: hooks import this on their fast path.
"""
from __future__ import annotations

import os
from pathlib import Path

from . import pathstr
from .pathstr import MEMORY_DIR_NAME, NAMED_ROOTS, private_umask  # noqa: F401  (the public names live here too)

# Files that are never committed (state, caches, ledger, backups, pid file) are written 0600:
# fsutil's atomic write gives new files 0644 whatever the umask (``private_umask`` covers the rest).
PRIVATE_FILE_MODE = 0o600


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def project_root(start: Path | None = None) -> Path:
    """Top of the *main* git worktree containing ``start``, else ``start`` (``pathstr.project_root``)."""
    return Path(pathstr.project_root(start))


def memory_root(explicit: str | os.PathLike[str] | None = None, start: Path | None = None) -> Path:
    """The memory root: ``--dir`` > ``MEMDOWN_DIR`` > ``<project>/.memdown`` (``pathstr.memory_root``).

    A root a person named is remembered in ``NAMED_ROOTS``: the file layer starts its no-symlink walk there.
    """
    return Path(pathstr.memory_root(explicit, start))


def require_root(root: Path) -> None:
    """Raise NotInitializedError (one line, with the fix) when ``root`` is not a memory root."""
    if not Path(root).is_dir():
        from .errors import NotInitializedError

        raise NotInitializedError(f"no memory at {root}", hint="run `memdown init` first, or pass --dir")


def memdown_home() -> Path:
    from .envflags import memdown_home_dir

    return Path(memdown_home_dir())


def global_config_file() -> Path:
    """``MEMDOWN_CONFIG``, else ``$XDG_CONFIG_HOME/memdown/config.toml`` (``pathstr.global_config_file``)."""
    return Path(pathstr.global_config_file())


def claude_home() -> Path:
    """``~/.claude`` (``CLAUDE_CONFIG_DIR`` overrides it, as in Claude Code)."""
    return _env_path("CLAUDE_CONFIG_DIR") or Path.home() / ".claude"


def codex_home() -> Path:
    """``~/.codex`` (``CODEX_HOME`` overrides it, as in Codex CLI): its config, hooks, skills and sessions."""
    return _env_path("CODEX_HOME") or Path.home() / ".codex"


# --- inside the memory root -------------------------------------------------

def daily_dir(root: Path) -> Path:
    return Path(pathstr.daily_dir(root))


def daily_file(root: Path, day: str) -> Path:
    """``day`` is ``YYYY-MM-DD``."""
    return daily_dir(root) / f"{day}.md"


def daily_files(root: Path) -> list[Path]:
    """The daily log files, newest first (names sort by date; ``pathstr.daily_files``)."""
    return [Path(name) for name in pathstr.daily_files(root)]


def signals_dir(root: Path) -> Path:
    return root / "signals"


def signal_files(root: Path) -> list[Path]:
    """The signal files, by name (here, not in ``signals.store``: SessionStart stamps them without its imports)."""
    folder = signals_dir(root)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.md") if not p.name.startswith("."))


def index_dir(root: Path) -> Path:
    return root / "index"


def logs_dir(root: Path) -> Path:
    return root / pathstr.LOGS


def state_dir(root: Path) -> Path:
    """Gitignored machine-local state (hook bookkeeping, mining offsets)."""
    return root / pathstr.STATE


def session_state_file(root: Path, folder: str, session_id: str, suffix: str = "") -> Path:
    """Per-session bookkeeping under ``state/<folder>/``; the id is reduced to a safe file name (``pathstr``)."""
    return Path(pathstr.session_state_file(root, folder, session_id, suffix))


def project_config_file(root: Path) -> Path:
    return Path(pathstr.project_config_file(root))


def lock_file(root: Path, name: str) -> Path:
    return root / f".{name}.lock"


def pid_file(root: Path) -> Path:
    return root / ".watch.pid"


def socket_path(root: Path) -> Path:
    """A short Unix socket path for the root's daemon.

    ``sun_path`` holds ~100 bytes, so deep projects cannot keep the socket
    inside ``.memdown``: it lives in a private 0700 folder under
    ``XDG_RUNTIME_DIR`` (or the temp dir), named by a hash of the root.
    """
    import hashlib

    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return runtime_dir() / f"{digest}.sock"


def runtime_dir() -> Path:
    """``memdown-<uid>`` under ``XDG_RUNTIME_DIR``, else ``TMPDIR``, else ``/tmp``.

    In a shared temp dir another user can create this folder first. The
    client refuses to connect unless :func:`private_dir_problem` finds nothing
    wrong, and when the folder is taken (not ours, or not a folder) both sides
    move to ``MEMDOWN_HOME/run`` instead, so a squatter cannot deny the live
    index either (unless that path is too long for a Unix socket).
    """
    # Not tempfile.gettempdir(): importing tempfile costs the warm CLI ~5 ms.
    base = _env_path("XDG_RUNTIME_DIR") or _env_path("TMPDIR") or Path("/tmp")
    primary = base / f"memdown-{os.getuid()}"
    try:
        st = os.lstat(primary)
    except OSError:
        return primary
    import stat

    if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid():
        return primary
    fallback = memdown_home() / "run"
    return fallback if len(os.fsencode(str(fallback))) + 22 < 104 else primary  # + "/<16 hex>.sock"


def private_dir_problem(folder: Path) -> str | None:
    """Why ``folder`` is not a private folder of ours (lstat: a real folder, our uid, mode 0700), or None."""
    import stat

    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return f"{folder} does not exist"
    except OSError as exc:
        return f"{folder}: {exc.strerror or exc}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{folder} is not a folder (a symlink?)"
    if st.st_uid != os.getuid():
        return f"{folder} is owned by uid {st.st_uid}, not {os.getuid()}"
    if stat.S_IMODE(st.st_mode) & 0o077:
        return f"{folder} has mode {stat.S_IMODE(st.st_mode):04o}, not 0700"
    return None


# --- in the user's data folder ---------------------------------------------

def embedding_cache_file() -> Path:
    return memdown_home() / "cache" / "embeddings.sqlite3"


def models_dir() -> Path:
    return memdown_home() / "models"


def transcript_archive_dir() -> Path:
    return memdown_home() / "transcripts"


def ledger_file() -> Path:
    return memdown_home() / "ledger.json"


def imported_sources_file() -> Path:
    """Transcript files ``memdown import`` recorded on this machine (resolved paths, one a line): the only
    files outside the clients' folders and the archive that ``memdown transcript`` opens (an anchor
    naming a file is repository data; never in the repository)."""
    return memdown_home() / "imported-sources.txt"


def approvals_file() -> Path:
    """Promotions approved on this machine (never in the repository: its memory is untrusted)."""
    return memdown_home() / "approvals.jsonl"


GITIGNORE_LINES = (
    "index/",
    "logs/",
    "state/",
    ".*.lock",
    ".watch.pid",
    "*.sock",
    "*.tmp",
    "backups/",
)


def agent_homes() -> dict[str, Path]:
    """Where Gemini CLI, Copilot CLI, Cursor and OpenCode keep their session logs (each client's own
    override: ``GEMINI_CLI_HOME``, ``COPILOT_HOME``, ``XDG_DATA_HOME`` for OpenCode)."""
    home = Path.home()
    return {
        "gemini": (_env_path("GEMINI_CLI_HOME") or home) / ".gemini",
        "copilot": _env_path("COPILOT_HOME") or home / ".copilot",
        "cursor": home / ".cursor",
        "opencode": (_env_path("XDG_DATA_HOME") or home / ".local" / "share") / "opencode",
    }
