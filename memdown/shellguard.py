"""Guards: approved corrections checked at the moment a tool is about to run (the PreToolUse hook).

``memdown reflect promote`` compiles a learning that names a command or a path
(``learning.guards``) into ``guards.json`` under ``paths.memdown_home()``: per
user, never in a repository, written only for approvals made on this machine.
The hook reads that one small JSON file and matches the tool call here:

- Bash: the command is split into simple commands (``&&``, ``||``, ``;``,
  pipes, subshells, ``bash -c '…'``, heredoc bodies skipped) with ``shlex``;
  each loses its env assignments and wrappers (``sudo``, ``env``, ``time``…),
  and runners (``npx``, ``pnpm dlx``, ``uv run``, ``python -m``…) are peeled
  off one by one, so ``sudo FOO=1 npx x`` is seen as ``npx x`` and as ``x``.
- Edit / Write / MultiEdit: the file path against the guard's path patterns.

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
EDIT_TOOLS = ("Edit", "Write", "MultiEdit")
SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "|&", ";;", "(", ")", "\n", ";&", ";;&"})
# Words that run the command after them (their own options are skipped).
WRAPPERS = frozenset({"sudo", "doas", "env", "time", "nohup", "exec", "command", "nice", "builtin", "stdbuf",
                      "timeout", "xargs", "caffeinate", "chronic", "unbuffer"})
WRAPPER_OPTS_WITH_ARG = frozenset({"-u", "-g", "-n", "-C", "-p", "-s", "-k", "-L", "-P", "-I", "--user", "--group"})
# Runners: the program they start is the next plain word. Two-word runners by their first word.
RUNNERS_ONE = frozenset({"npx", "bunx", "uvx", "pnpx", "pipx"})
RUNNERS_TWO = {"pnpm": ("dlx", "exec"), "yarn": ("dlx", "exec"), "npm": ("exec",), "uv": ("run", "tool"),
               "poetry": ("run",), "pipenv": ("run",), "bundle": ("exec",), "hatch": ("run",), "pdm": ("run",),
               "rye": ("run",), "pipx": ("run",), "bun": ("x",)}
RUNNER_OPTS_WITH_ARG = frozenset({"--with", "-w", "--package", "-p", "--python", "--directory", "--project",
                                  "--extra", "--group", "--from", "--env-file", "-c", "--spec"})
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "eval"})


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
    import json  # here, not at the top: a session without guards never pays for json, re and shlex

    try:
        data = json.loads(_read_plain(guard_path(home), 1 << 20))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("guards"), list):
        return []
    return [g for g in data["guards"] if isinstance(g, dict)]


# --- shell commands -------------------------------------------------------------------

def _without_heredocs(command: str) -> str:
    """Drop heredoc bodies (text, not commands): ``cat <<EOF … EOF``."""
    if "<<" not in command:
        return command
    out: list[str] = []
    lines = command.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        at = line.find("<<")
        if at < 0 or line[at:at + 3] == "<<<":
            continue
        word = line[at + 2:].lstrip("-").strip().split(" ")[0].strip("'\")")
        if not word:
            continue
        while i < len(lines) and lines[i].strip() != word:
            i += 1
        i += 1
    return "\n".join(out)


def simple_commands(command: str, depth: int = 0) -> list[list[str]]:
    """The simple commands in a shell line, each as its words (``bash -c '…'`` looked into)."""
    import shlex

    lexer = shlex.shlex(_without_heredocs(command.replace("\\\n", " ")), posix=True,
                        punctuation_chars="();<>|&\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: the shell would refuse it too
        return []
    found: list[list[str]] = []
    current: list[str] = []
    skip_next = False
    for token in tokens:
        if skip_next:
            skip_next = False
            continue
        if token in SEPARATORS:
            if current:
                found.append(current)
            current = []
        elif token and set(token) <= set("<>&") and ("<" in token or ">" in token):
            skip_next = not token.endswith("&") or token == "<&"  # a redirection's target is not a word
        else:
            current.append(token)
    if current:
        found.append(current)
    if depth < 3:
        for words in list(found):
            inner = _shell_script(words)
            if inner is not None:
                found.extend(simple_commands(inner, depth + 1))
    return found


def _shell_script(words: list[str]) -> str | None:
    stripped = strip_wrappers(words)
    if not stripped or os.path.basename(stripped[0]) not in SHELLS:
        return None
    if stripped[0] == "eval":
        return " ".join(stripped[1:])
    for k, word in enumerate(stripped[1:-1], 1):
        if word.startswith("-") and not word.startswith("--") and "c" in word:
            return stripped[k + 1]
    return None


def is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def strip_wrappers(words: list[str]) -> list[str]:
    """``sudo -u x FOO=1 time npm i`` → ``npm i``."""
    i = 0
    while i < len(words):
        word = words[i]
        if is_assignment(word):
            i += 1
        elif os.path.basename(word) in WRAPPERS:
            i += 1
            while i < len(words) and (words[i].startswith("-") or is_assignment(words[i])
                                      or words[i].replace(".", "").rstrip("smhd").isdigit()):
                i += 2 if words[i] in WRAPPER_OPTS_WITH_ARG else 1
        else:
            break
    return words[i:]


def _runner_rest(words: list[str]) -> tuple[str, list[str]] | None:
    """(runner, the command it runs) when ``words`` starts with a runner."""
    program = os.path.basename(words[0])
    if program.startswith("python") and len(words) > 2 and words[1] == "-m":
        return "python -m", words[2:]
    if program in RUNNERS_ONE:
        name, i = program, 1
    elif len(words) > 1 and words[1] in RUNNERS_TWO.get(program, ()):
        name, i = f"{program} {words[1]}", 2
    else:
        return None
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i].split("=")[0] in RUNNER_OPTS_WITH_ARG and "=" not in words[i] else 1
    return (name, words[i:]) if i < len(words) else None


def views(words: list[str]) -> Iterator[tuple[tuple[str, ...], list[str]]]:
    """The command as typed, then as each runner in front of it sees it: (runners so far, words)."""
    chain: tuple[str, ...] = ()
    rest = strip_wrappers(words)
    while rest:
        yield chain, rest
        peeled = _runner_rest(rest)
        if peeled is None:
            return
        chain, rest = (*chain, peeled[0]), strip_wrappers(peeled[1])


# --- matching ---------------------------------------------------------------------------

def _word_matches(pattern: str, word: str) -> bool:
    if word == pattern:
        return True
    if pattern.startswith("--"):
        return word.startswith(pattern + "=")
    if len(pattern) == 2 and pattern[0] == "-" and word.startswith("-") and not word.startswith("--"):
        return word[1:].isalpha() and pattern[1] in word[1:]  # -f inside -fu
    return False


def _argv_matches(pattern: list[str], words: list[str]) -> bool:
    if not words or os.path.basename(words[0]) != pattern[0]:
        return False
    at = 1
    for want in pattern[1:]:
        while at < len(words) and not _word_matches(want, words[at]):
            at += 1
        if at >= len(words):
            return False
        at += 1
    return True


def command_views(command: str) -> list[tuple[tuple[str, ...], list[str]]]:
    """Every view of every simple command in the line (parsed once for all guards)."""
    return [view for words in simple_commands(command) for view in views(words)]


def _bash_hit(guard: dict[str, Any], seen_views: list[tuple[tuple[str, ...], list[str]]]) -> str | None:
    """The suggested command when the line does what the guard forbids, '' without one; None: no hit."""
    from shlex import join
    for chain, seen in seen_views:
        for rule in guard.get("forbid") or ():
            pattern = rule.get("argv") or []
            within = rule.get("within") or ""
            if pattern and _argv_matches(pattern, seen) and (not within or any(within in w for w in seen[1:])):
                instead = rule.get("instead") or []
                prefix = len(pattern) if seen[1:len(pattern)] == pattern[1:] else 0
                return join(instead + seen[prefix:]) if instead and prefix else ""
        for rule in guard.get("require") or ():
            via = rule.get("via") or ""
            if seen and os.path.basename(seen[0]) == rule.get("program") and via not in chain:
                return join([*via.split(), *seen])
    return None


def _path_hit(guard: dict[str, Any], file_path: str, project: str) -> bool:
    rel = os.path.relpath(file_path, project) if project and file_path.startswith(project + os.sep) else file_path
    rel = rel.replace(os.sep, "/")
    for pattern in guard.get("paths") or ():
        if pattern.endswith("/"):
            if ("/" + rel).find("/" + pattern) >= 0:
                return True
        elif any(c in pattern for c in "*?["):
            from fnmatch import fnmatchcase

            if fnmatchcase(rel, pattern) or fnmatchcase(os.path.basename(rel), pattern):
                return True
        elif rel == pattern or rel.endswith("/" + pattern):
            return True
    return False


def applies(guard: dict[str, Any], root: str) -> bool:
    """A global guard applies everywhere; a project's only under its own memory root."""
    where = guard.get("root") or ""
    return not where or where == root


def check(guards: list[dict[str, Any]], tool: str, tool_input: dict[str, Any],
          root: str | Callable[[], str]) -> tuple[str, str] | None:
    """(decision, reason) for the first guard this call breaks (a deny before an ask), or None.

    ``root`` (the session's memory root, real path) may be a function: it is then called only when a
    project's guard matches, so the usual call (nothing matches) never looks for the project.
    """
    found: list[tuple[str, str]] = []
    seen_views = None
    for guard in guards:
        scoped = bool(guard.get("root"))
        if scoped and callable(root) and tool in EDIT_TOOLS:
            root = root()  # an edit is matched against the project's own paths
        if tool in BASH_TOOLS and isinstance(tool_input.get("command"), str):
            if seen_views is None:
                seen_views = command_views(tool_input["command"])
            suggestion = _bash_hit(guard, seen_views)
            if suggestion is None:
                continue
        elif tool in EDIT_TOOLS and isinstance(tool_input.get("file_path"), str):
            project = os.path.dirname(root) if scoped and isinstance(root, str) else ""
            if not _path_hit(guard, tool_input["file_path"], project):
                continue
            suggestion = ""
        else:
            continue
        if scoped:
            root = root() if callable(root) else root
            if not applies(guard, root):
                continue
        found.append((guard.get("decision") == "ask" and "ask" or "deny", reason(guard, suggestion)))
    found.sort(key=lambda hit: hit[0] != "deny")
    return found[0] if found else None


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
