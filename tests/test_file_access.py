"""One owner of file access: only ``memdown/fsutil/`` opens, reads, writes, links or chmods files.

Everything else goes through the file layer (no symlinks followed, no FIFOs opened, size-bounded reads,
atomic writes). The scan is ``ast``-based over every module: builtin ``open``, ``os.open``/``mkdir``/
``chmod``/``replace``/``unlink``…, ``io``/``gzip``/``bz2``/``lzma``/``tarfile``.``open``, ``shutil``
copies and moves, and the ``pathlib`` methods (``read_text``, ``write_bytes``, ``mkdir``, ``touch``,
``unlink``, ``chmod``, ``open(<mode>)``…).

ALLOWED below is the complete list of exceptions, each a file that is *not* a memory file or a folder
another library owns, with the reason. Adding to it needs the same kind of reason.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "memdown"
LAYER = "fsutil/"

MODULE_CALLS = {
    "os": {"open", "mkdir", "makedirs", "chmod", "lchmod", "chown", "replace", "rename", "renames", "unlink",
           "remove", "rmdir", "removedirs", "link", "symlink", "mkfifo", "mknod", "truncate"},
    "io": {"open"}, "gzip": {"open"}, "bz2": {"open"}, "lzma": {"open"}, "tarfile": {"open"}, "codecs": {"open"},
    "shutil": {"copy", "copy2", "copyfile", "copyfileobj", "copytree", "move", "rmtree", "copymode", "copystat"},
}
PATH_METHODS = {"read_text", "read_bytes", "write_text", "write_bytes", "touch", "mkdir", "chmod", "lchmod",
                "unlink", "rmdir", "symlink_to", "hardlink_to", "link_to"}
MODES = {"r", "rb", "w", "wb", "a", "ab", "r+", "rb+", "r+b", "w+", "wb+", "x", "xb", "rt", "wt", "at"}

# (module relative to memdown/, call) -> why it is not a memory file, or why another owner is right.
ALLOWED: dict[tuple[str, str], str] = {
    # The Skill allow's origin check runs on the hook's short path (os and json only, no pathlib): it reads the
    # client's settings files and /proc/<pid>/cmdline, read-only; never a memory file.
    ("hooks/skillorigin.py", "open"): "client settings files and /proc cmdline, read-only, on the hook path",
    # OpenCode's SQLite database is read from a private copy (the client may hold it open and write its WAL).
    ("clients/opencode.py", "shutil.copyfile"): "a private read copy of a client's SQLite database",
    # A CLAUDE.md/AGENTS.md memdown created is committed and read by every clone: 0644, set after the CAS write.
    ("learning/promote.py", "os.chmod"): "an instruction file memdown created, made readable to the team",
    # forget --session: the archived session's subagent folder in MEMDOWN_HOME (link checked just before).
    ("services/upkeep/forget.py", "shutil.rmtree"): "a forgotten session's archive folder in MEMDOWN_HOME",
    # LanceDB owns the index folder's files; memdown only removes or replaces the folder as a whole, after
    # fsutil.make_dirs proved no link on the way (ChunkTable.reset / the snapshot swap).
    ("index/table.py", "shutil.rmtree"): "the LanceDB folder, replaced whole",
    ("index/table.py", "Path.unlink"): "a stray file where the LanceDB folder belongs",
    ("index/table.py", "Path.mkdir"): "the LanceDB folder, created after the no-link check",
    # SQLite owns the embedding cache file; these move a damaged one aside (MEMDOWN_HOME, never a memory file).
    ("index/cache.py", "shutil.rmtree"): "a folder squatting where the SQLite cache belongs",
    ("index/cache.py", "os.unlink"): "SQLite's -wal/-shm files of a damaged cache",
    ("index/cache.py", "os.replace"): "moving a damaged SQLite cache aside",
    ("index/cache.py", "open"): "the first 100 bytes of the SQLite header, read-only",
    ("index/cache.py", "Path.mkdir"): "the cache's folder in MEMDOWN_HOME",
    # The packaged embedding model (read-only files shipped in the wheel) and the link to it fastembed wants.
    **{("index/embedder.py", call): "the packaged model files and fastembed's model folder" for call in (
        "open", "Path.mkdir", "Path.read_text", "Path.write_text", "Path.symlink_to", "os.replace", "Path.unlink")},
    # Index snapshots: tar files at paths a person names (export/import) and the swap of the whole LanceDB folder.
    **{("services/upkeep/snapshot.py", call): "index snapshot archives and the LanceDB folder swap" for call in (
        "open", "tarfile.open", "Path.mkdir", "Path.write_text", "os.replace", "shutil.rmtree",
        "Path.unlink")},
    # git's merge-driver protocol: git's own temp files (%O %A %B) and a private tempfile.TemporaryDirectory.
    ("services/upkeep/merge.py", "Path.write_text"): "git's merge files and a private temp folder",
    # The daemon's socket folder in XDG_RUNTIME_DIR: its own owner/mode/link checks (tests/attack/test_local_isolation).
    **{("daemon/transport.py", call): "the daemon's private socket folder (own checks)" for call in (
        "Path.mkdir", "os.chmod", "Path.unlink")},
    ("daemon/server.py", "Path.touch"): "Server.touch(): resets the idle clock, not a file",
    # concurrent-log-handler owns rotation of the big logs (its lock file, renames); appends are fsutil.append_line.
    ("logfiles.py", "Path.mkdir"): "the rotating log handler's folder",
    ("logfiles.py", "os.open"): "re-pointing stdout/stderr at the rotated log",
    ("cli/failure.py", "os.open"): "/dev/null, to silence a closed stdout",
    ("hooks/runner.py", "os.open"): "/dev/null over a hook's stdio once its answer is out (before its redaction and worker)",
    # PreToolUse's short path may not import pathlib (fsutil does): the guard file in MEMDOWN_HOME is read the
    # layer's way by hand (O_NOFOLLOW | O_NONBLOCK, fstat: regular files only, 1 MB).
    ("shellguard.py", "os.open"): "guards.json on the PreToolUse short path, opened the layer's way by hand",
}


def _calls(tree: ast.AST) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            found.append(("open", node.lineno))
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else None
            if owner == "fsutil":
                continue
            if owner in MODULE_CALLS and func.attr in MODULE_CALLS[owner]:
                found.append((f"{owner}.{func.attr}", node.lineno))
            elif owner not in MODULE_CALLS and func.attr in PATH_METHODS:
                found.append((f"Path.{func.attr}", node.lineno))
            elif func.attr == "open" and owner not in MODULE_CALLS and _has_mode(node):
                found.append(("Path.open", node.lineno))
    return found


def _has_mode(call: ast.Call) -> bool:
    values = list(call.args) + [kw.value for kw in call.keywords if kw.arg == "mode"]
    return any(isinstance(v, ast.Constant) and v.value in MODES for v in values)


def stray_file_access(package: Path = PACKAGE) -> list[str]:
    bad = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel.startswith(LAYER):
            continue
        for call, line in _calls(ast.parse(path.read_text(encoding="utf-8"))):
            if (rel, call) not in ALLOWED:
                bad.append(f"memdown/{rel}:{line}: {call} outside the file layer (use memdown.fsutil)")
    return bad


def test_only_the_file_layer_touches_files() -> None:
    assert stray_file_access() == []


def test_every_allowance_is_still_needed() -> None:
    """An allow-list entry whose call is gone is deleted, so the list stays the real list of exceptions."""
    used = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        used.update((rel, call) for call, _ in _calls(ast.parse(path.read_text(encoding="utf-8"))))
    assert sorted(set(ALLOWED) - used) == []


def test_the_scan_sees_a_stray_open(tmp_path: Path) -> None:
    """The check can fail: one builtin open() or Path.read_text() in a module is caught."""
    pkg = tmp_path / "memdown"
    (pkg / "store").mkdir(parents=True)
    (pkg / "store" / "sneaky.py").write_text(
        "from pathlib import Path\nimport os, gzip\n\n"
        "def a(p):\n    return open(p).read()\n\n"
        "def b(p):\n    return Path(p).read_text()\n\n"
        "def c(p):\n    return gzip.open(p)\n\n"
        "def d(p):\n    return Path(p).open('rb')\n\n"
        "def e(p):\n    os.chmod(p, 0o600)\n")
    found = sorted(stray_file_access(pkg), key=lambda line: int(line.split(":")[1]))
    assert [line.split(": ")[1].split()[0] for line in found] == [
        "open", "Path.read_text", "gzip.open", "Path.open", "os.chmod"]
