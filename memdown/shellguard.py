"""Guards: approved corrections checked at the moment a tool is about to run (the PreToolUse hook).

``memdown reflect promote`` compiles a learning that names a command or a path
(``learning.guards``) into ``guards.json`` under ``paths.memdown_home()``: per
user, never in a repository, written only for approvals made on this machine.
The hook reads that one small JSON file and matches the tool call here:

- Bash: the line is parsed with the shell's grammar (``shellparse``: compound commands,
  groups, ``!``, substitutions, heredocs whatever their quoting, ``bash -c``); each simple
  command loses its env assignments and wrappers with their own options (``sudo -u x``,
  ``time -p``, ``nice -n 5``…) and runners (``npx``, ``uv run``, ``python -m``…) are peeled
  off one by one (``shellcmd``). Options are compared by meaning (``rm -fr``, ``rm -r -f``,
  ``rm --recursive --force`` are ``rm -rf``; ``git push origin +main`` is a force push); a
  scope ("on the data folder") matches whole path components.
- Path guards: the file of an Edit / Write / MultiEdit / NotebookEdit call, and every file a
  Bash command writes (redirections, ``tee``, ``sed -i``, ``cp``/``mv``/``ln`` onto it,
  ``truncate``…), as given and with links resolved, by whole path components.

Standard library only, no markdown, nothing compiled at import: this runs
before every command the agent executes. Any error means "no guard applies".
"""
from __future__ import annotations

import os

TYPE_CHECKING = False  # not `import typing` at run time: every hook pays for it
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator

GUARD_FILE = "guards.json"
FORMAT = 1
BASH_TOOLS = ("Bash",)
EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
PATH_KEYS = ("file_path", "notebook_path")


def guard_path(home: str) -> str:
    return os.path.join(home, GUARD_FILE)


def _read_plain(path: str, limit: int) -> bytes:
    """The file's first ``limit`` bytes, as the file layer would read them (no link, no FIFO), without
    importing it: fsutil pulls in pathlib, which the PreToolUse short path must not pay for."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        return os.read(fd, limit)
    finally:
        os.close(fd)


def load(home: str) -> list[dict[str, Any]]:
    """The compiled guards ([] when there are none or the file is unreadable)."""
    from .wirejson import loads  # json's own C codec without `import json`; a session without guards loads neither

    try:
        data = loads(_read_plain(guard_path(home), 1 << 20))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("guards"), list):
        return []
    return [g for g in data["guards"] if isinstance(g, dict)]


# --- matching ---------------------------------------------------------------------------

def _argv_matches(pattern: list[str], words: list[str]) -> bool:
    """The command runs the pattern's program, its plain words in order, and every option it names
    (by meaning: ``rm -fr`` and ``rm --recursive --force`` are ``rm -rf``)."""
    from . import shellcmd  # here: a session without guards never loads the parser
    if not words or shellcmd.program(words[0]).casefold() != pattern[0].casefold():  # macOS, Windows: NPM is npm
        return False
    plain = [w for w in pattern[1:] if not w.startswith("-")]
    at = 1
    for want in plain:
        while at < len(words) and words[at] != want:
            at += 1
        if at >= len(words):
            return False
        at += 1
    wanted = [w for w in pattern[1:] if w.startswith("-")]
    if not wanted:
        return True
    key = shellcmd.subcommand_key(words)
    return shellcmd.canonical_flags(pattern, key) <= shellcmd.canonical_flags(words, key)


def _within(where: str, words: list[str]) -> bool:
    """An argument names the scope ``where`` by whole path components (``data`` in ``./data/x``, not in
    ``build/metadata``); ``--namespace=prod`` by its value."""
    want = [part for part in where.strip("/").split("/") if part]
    if not want:
        return False
    for word in words:
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        parts = [part for part in value.split("/") if part]
        if any(parts[k:k + len(want)] == want for k in range(len(parts) - len(want) + 1)):
            return True
    return False


def command_views(command: str) -> list[tuple[tuple[str, ...], list[str]]]:
    """Every view of every simple command in the line (parsed once for all guards)."""
    from . import shellcmd  # here: a session without guards never loads the parser
    return shellcmd.command_views(command)


def _bash_hit(guard: dict[str, Any], seen_views: list[tuple[tuple[str, ...], list[str]]]) -> str | None:
    """The suggested command when the line does what the guard forbids, '' without one; None: no hit."""
    from . import shellcmd  # here: a session without guards never loads the parser
    from .shellparse import join  # shlex.join without shlex (it imports re)
    for chain, seen in seen_views:
        for rule in guard.get("forbid") or ():
            pattern = rule.get("argv") or []
            within = rule.get("within") or ""
            if pattern and _argv_matches(pattern, seen) and (not within or _within(within, seen[1:])):
                instead = rule.get("instead") or []
                prefix = len(pattern) if seen[1:len(pattern)] == pattern[1:] else 0
                return join(instead + seen[prefix:]) if instead and prefix else ""
        for rule in guard.get("require") or ():
            via = rule.get("via") or ""
            if seen and shellcmd.program(seen[0]).casefold() == str(rule.get("program")).casefold() and via not in chain:
                return join([*via.split(), *seen])
    return None


def _path_hit(guard: dict[str, Any], file_path: str, project: str) -> bool:
    """The path, as given and with its links resolved, matches one of the guard's patterns by whole
    path components (``migrations/`` in ``db/migrations/x``, not in ``db/migrations_old/x``)."""
    real = os.path.realpath(file_path)
    for candidate in dict.fromkeys((os.path.normpath(file_path), real)):
        if _one_path_hit(guard, candidate, project):
            return True
    return False


def _one_path_hit(guard: dict[str, Any], file_path: str, project: str) -> bool:
    rel = file_path
    for base in dict.fromkeys((project, os.path.realpath(project))) if project else ():
        if file_path.startswith(base + os.sep):
            rel = file_path[len(base) + 1:]
            break
    rel = rel.replace(os.sep, "/")
    for pattern in guard.get("paths") or ():
        if pattern.endswith("/"):
            if ("/" + rel + "/").find("/" + pattern) >= 0:
                return True
        elif any(c in pattern for c in "*?["):
            from fnmatch import fnmatchcase

            if fnmatchcase(rel, pattern) or fnmatchcase(os.path.basename(rel), pattern):
                return True
        elif rel == pattern or rel.endswith("/" + pattern):
            return True
    return False


def _bash_writes(command: str, cwd: str) -> list[str]:
    """Absolute paths of the files a command line writes (``cd`` followed along the line)."""
    from . import shellcmd, shellparse  # here: a session without guards never loads the parser
    found: list[str] = []
    here = cwd or os.getcwd()
    for simple in shellparse.parse(command):
        argv = simple.argv
        if argv and argv[0] == "cd" and len(argv) == 2:
            here = os.path.join(here, os.path.expanduser(argv[1]))
            continue
        found += [os.path.join(here, os.path.expanduser(p)) for p in shellcmd.written_files(simple, here) if p]
    return found


def applies(guard: dict[str, Any], root: str) -> bool:
    """A global guard applies everywhere; a project's only under its own memory root."""
    where = guard.get("root") or ""
    return not where or where == root


def _edited_paths(tool: str, tool_input: dict[str, Any], cwd: str) -> list[str]:
    paths = [tool_input[k] for k in PATH_KEYS if isinstance(tool_input.get(k), str) and tool_input[k]]
    return [p if os.path.isabs(p) else os.path.join(cwd or os.getcwd(), p) for p in paths]


def check(guards: list[dict[str, Any]], tool: str, tool_input: dict[str, Any],  # long: one pass over the guards
          root: str | Callable[[], str], cwd: str = "",
          live: Callable[[dict[str, Any]], bool] | None = None) -> tuple[str, str] | None:
    """(decision, reason) for the first guard this call breaks (a deny before an ask), or None.

    ``root`` (the session's memory root, real path) may be a function: it is then called only when a
    project's guard matches, so the usual call (nothing matches) never looks for the project.
    ``cwd`` is the session's working folder (where a Bash command's relative paths point).
    ``live(guard)``, asked only of a guard this call breaks, says whether its rule still stands.
    """
    found: list[tuple[str, str]] = []
    seen_views = None
    written: list[str] | None = None
    is_bash = tool in BASH_TOOLS and isinstance(tool_input.get("command"), str)
    for guard in guards:
        scoped = bool(guard.get("root"))
        suggestion: str | None = None
        if guard.get("paths"):
            if is_bash:
                if written is None:
                    written = _bash_writes(tool_input["command"], cwd)
                targets = written
            elif tool in EDIT_TOOLS:
                targets = _edited_paths(tool, tool_input, cwd)
            else:
                targets = []
            if targets and scoped and callable(root):
                root = root()  # a path is matched against the project's own paths
            project = os.path.dirname(root) if scoped and isinstance(root, str) and root else ""
            if any(_path_hit(guard, target, project) for target in targets):
                suggestion = ""
        if suggestion is None and is_bash and (guard.get("forbid") or guard.get("require")):
            if seen_views is None:
                seen_views = command_views(tool_input["command"])
            suggestion = _bash_hit(guard, seen_views)
        if suggestion is None:
            continue
        if scoped:
            root = root() if callable(root) else root
            if not applies(guard, root):
                continue
        if live is not None and not live(guard):
            continue
        found.append((guard.get("decision") == "ask" and "ask" or "deny", reason(guard, suggestion)))
    found.sort(key=lambda hit: hit[0] != "deny")
    return found[0] if found else None


def person_command(command: str) -> str:
    """The PERSON command (``agentcommands``: ``reflect promote``, ``install``, ``config approve``…) this shell
    line runs memdown with, however it is wrapped (``env -u CLAUDECODE``, ``bash -c``, ``uv run``); '' for none."""
    if "memdown" not in command:
        return ""
    from .agentcommands import COMMANDS, needs_person

    for _chain, words in command_views(command):
        if not words or program(words[0]) != "memdown":
            continue
        plain = [w for w in words[1:] if not w.startswith("-")]
        # the first known command word (an option's value, `--dir x`, comes before it); none: the CLI decides
        at = next((k for k, w in enumerate(plain) if w in COMMANDS), None)
        if at is None:
            continue
        path = " ".join(plain[at:at + 2]) if " ".join(plain[at:at + 2]) in COMMANDS else plain[at]
        rest = plain[at + len(path.split()):]
        params = {"state": rest[0] if rest else None, "remove_id": "--remove" in words or None}
        if needs_person(path, params):
            return path
    return ""


def program(word: str) -> str:
    from . import shellcmd

    return shellcmd.program(word)


def reason(guard: dict[str, Any], suggestion: str) -> str:
    """What the user sees when asked, and the model's tool result when the call is stopped. An ask reads
    as a preference with a way out: under ``claude -p`` nobody can answer, so the client answers no and
    the model gets only this text (tests/e2e/test_guards_client.py)."""
    ask = guard.get("decision") == "ask"
    kind = "a preference the user approved" if ask else "a rule you were corrected on and the user approved"
    text = f"memdown guard {guard.get('id', '')}: {kind}: {guard.get('rule', '')}"
    if suggestion:
        text += f" Instead run: {suggestion}"
    elif guard.get("advice"):
        text += f" {guard['advice']}"
    if ask:
        text += " (if this case is a fair exception, say why and let the user decide)"
    return text + f" (remove with `memdown reflect undo {guard.get('id', '')}`)"


# --- destructive commands (never learned or injected as a fix) ---------------------------------

DESTRUCTIVE: tuple[tuple[str, list[str]], ...] = (
    ("force push", ["git", "push", "-f"]), ("git reset --hard", ["git", "reset", "--hard"]),
    ("git clean -f", ["git", "clean", "-f"]), ("git checkout --force", ["git", "checkout", "-f"]),
    ("git branch -D", ["git", "branch", "-D"]), ("git stash clear", ["git", "stash", "clear"]),
    ("git stash drop", ["git", "stash", "drop"]), ("git filter-branch", ["git", "filter-branch"]),
    ("skipped hooks (--no-verify)", ["git", "commit", "--no-verify"]),
    ("skipped hooks (--no-verify)", ["git", "push", "--no-verify"]), ("rm -rf", ["rm", "-rf"]),
    ("chmod 777", ["chmod", "777"]), ("chmod 777", ["chmod", "a+rwx"]), ("TLS checks off", ["curl", "-k"]),
    ("TLS checks off", ["curl", "--insecure"]), ("TLS checks off", ["wget", "--no-check-certificate"]),
    ("TLS checks off", ["npm", "config", "set", "strict-ssl", "false"]),
    ("TLS checks off", ["pip", "install", "--trusted-host"]), ("terraform destroy", ["terraform", "destroy"]),
    ("database dropped", ["dropdb"]), ("docker prune", ["docker", "system", "prune"]),
    ("volumes removed", ["docker", "compose", "down", "-v"]), ("kubectl delete", ["kubectl", "delete"]),
    ("disk overwritten", ["mkfs"]), ("redis flushed", ["redis-cli", "flushall"]),
)
_TLS_OFF_ENV = {"NODE_TLS_REJECT_UNAUTHORIZED": "0", "GIT_SSL_NO_VERIFY": "", "PYTHONHTTPSVERIFY": "0"}
_SQL_WORDS = ("drop table", "drop database", "drop schema", "truncate table", "truncate ")


def destructive(text: str) -> str:
    """Why a command (or a fix that quotes commands in backticks) is destructive or irreversible, or ''.

    Judged with the shell parser and the guards' matcher, not a substring: ``git push -u origin main
    --force`` and ``git push origin +main`` are force pushes, ``echo "rm -rf"`` is not; SQL that drops
    or truncates is judged in the words a command passes (``psql -c "DROP TABLE x"``) or the text itself.

    What is judged is what is read: a recorded fix reaches the model through the fence and a person
    through ``reflect list``, both without invisible characters, so ``git push --for\u00adce`` (a soft
    hyphen, a zero-width space, full-width or look-alike letters) is judged as the ``--force`` it shows.
    """
    from .fence import normalized

    for form in dict.fromkeys((text, normalized(text))):  # the raw text, then its normalized form if it differs
        why = _destructive(form)
        if why:
            return why
    return ""


def _destructive(text: str) -> str:
    from . import shellcmd

    spans = text.split("`")[1::2] if text.count("`") >= 2 else [text]
    for span in spans:
        try:
            seen = command_views(span)
        except Exception:  # noqa: BLE001 - not a command: nothing to judge
            continue
        for _, words in seen:
            for why, pattern in DESTRUCTIVE:
                if _argv_matches(pattern, words):
                    return why
            if any(w.lower() == "http.sslverify=false" for w in words) or \
                    (shellcmd.program(words[0]) == "git" and "http.sslVerify" in words and "false" in words):
                return "TLS checks off"
        for command in _parsed(span):
            for word in command.argv:
                name, eq, value = word.partition("=")
                if eq and name in _TLS_OFF_ENV and (value == _TLS_OFF_ENV[name] or not _TLS_OFF_ENV[name]):
                    return "TLS checks off"
                low = " ".join(word.lower().split())
                if any(sql in low for sql in _SQL_WORDS) and any(c.isspace() for c in word):
                    return "SQL that drops or truncates data"
    low = " ".join(text.lower().split())
    if any(f"{sql.strip()} " in low for sql in _SQL_WORDS[:3]):
        return "SQL that drops or truncates data"
    return ""


def _parsed(span: str) -> list:
    from . import shellparse

    try:
        return shellparse.parse(span)
    except Exception:  # noqa: BLE001 - not a command
        return []



def still_written(guard: dict[str, Any]) -> bool:
    """Is the rule this guard was compiled from still in an instruction file it was written to, as approved?

    A guard stands for a rule a person approved into a CLAUDE.md (or another instruction file): the person who
    deletes that line by hand, or rewrites it, took the rule back, and the guard goes with it (deleted by a
    person means deleted everywhere). Read only when the guard would stop a call. The rule's line is found by
    its marker (``promote.marker``: learning id and token) in the files ``promote`` wrote (``files``) and must
    say the guard's rule. A guard that names no files (compiled before they were recorded) stands, and so
    does one whose file exists but cannot be read (the person's approval stands)."""
    files = [f for f in guard.get("files") or () if isinstance(f, str) and f]
    if not files:
        return True
    from . import fsutil  # with a string path: pathlib stays out of the guard hook
    from .fence import clean

    learning_id, token = str(guard.get("id") or ""), str(guard.get("token") or "")
    tag = f"<!-- memdown:{learning_id} #{token} -->" if token else f"<!-- memdown:{learning_id} -->"
    rule = " ".join(str(guard.get("rule") or "").split())
    for name in files:
        try:
            text = fsutil.read_text(name, errors="replace")
        except FileNotFoundError:
            continue
        except OSError:
            return True
        for line in text.splitlines():
            if tag in line:
                said = line.split(tag, 1)[0].strip().lstrip("-*+").strip()
                if " ".join(clean(said).split()) == rule:
                    return True
    return False
