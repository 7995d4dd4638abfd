"""What a simple command does: the program that really runs, its options by meaning, the files it writes.

Built on ``shellparse`` (the grammar). Used by the guards (``shellguard``), the redaction of recorded
commands and the learning loop's "destructive command" check, so all three read a command the same way:

- wrappers are peeled with their own options (``sudo -u x``, ``time -p``, ``nice -n 10``, ``env -u X``,
  ``timeout -s KILL 60``, ``xargs -I{}``, ``command``, ``nohup``…), and so are runners (``npx``,
  ``uv run``, ``python -m``…); ``bash -c '…'``, ``eval …`` and ``find … -exec …;`` are parsed as scripts;
- options are compared by meaning: short flags split (``-rf`` is ``-r -f``), long ones mapped to their
  short names per program (``--force`` is ``-f``, ``rm -R`` is ``-r``, ``git commit --no-verify`` is
  ``-n``), ``--x=v`` is ``--x``; a ``+refspec`` makes ``git push`` a force push;
- the files a command writes: redirection targets, ``tee``, ``sed -i``/``perl -i``, the destination of
  ``cp``/``mv``/``ln``/``install`` (``-t DIR`` too), ``truncate``, ``dd of=``.
"""
from __future__ import annotations

import os

from . import shellparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator

# Wrappers: the command after their options runs. Value: the options that take a value.
WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-p", "-h", "-U", "-r", "-t", "-D", "-R", "-T", "--user", "--group", "--prompt",
                       "--host", "--chdir", "--close-from", "--role", "--type", "--other-user", "--chroot",
                       "--command-timeout"}),
    "doas": frozenset({"-u", "-C"}), "env": frozenset({"-u", "-C", "-S", "-P", "--unset", "--chdir", "--split-string"}),
    "time": frozenset({"-f", "-o", "--format", "--output"}), "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "xargs": frozenset({"-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--max-args", "--max-procs", "--delimiter",
                        "--arg-file", "--replace", "--max-lines", "--eof", "--process-slot-var", "--max-chars"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), "exec": frozenset({"-a"}),
    "nohup": frozenset(), "command": frozenset(), "builtin": frozenset(), "caffeinate": frozenset({"-t", "-w"}),
    "chronic": frozenset(), "unbuffer": frozenset(), "setsid": frozenset(), "watch": frozenset({"-n", "--interval"}),
    "runuser": frozenset({"-u", "-g", "--user", "--group"}), "flock": frozenset({"-w", "-E", "--timeout"}),
    "wsl": frozenset({"-d", "-u", "--distribution", "--user", "--cd", "--shell-type"}),  # Windows: wsl -e git …
}
POSITIONAL_WRAPPERS = {"timeout": 1, "flock": 1, "taskset": 1}  # words before the command (a duration, a lock file)
RUNNERS_ONE = frozenset({"npx", "bunx", "uvx", "pnpx", "pipx"})
RUNNERS_TWO = {"pnpm": ("dlx", "exec"), "yarn": ("dlx", "exec"), "npm": ("exec",), "uv": ("run", "tool"),
               "poetry": ("run",), "pipenv": ("run",), "bundle": ("exec",), "hatch": ("run",), "pdm": ("run",),
               "rye": ("run",), "pipx": ("run",), "bun": ("x",)}
RUNNER_OPTS_WITH_ARG = frozenset({"--with", "-w", "--package", "-p", "--python", "--directory", "--project",
                                  "--extra", "--group", "--from", "--env-file", "-c", "--spec"})
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish"})
# Windows clients (Copilot CLI's powershell tool, Cursor's Shell in the real logs) wrap commands in these.
WINDOWS_SUFFIXES = (".exe", ".cmd", ".bat", ".com")
POWERSHELLS = frozenset({"powershell", "pwsh"})
# Long options by their short name, per program ("" = any program); subcommands as "git push".
LONG_TO_SHORT: dict[str, dict[str, str]] = {
    "": {"--force": "-f", "--recursive": "-r"},
    "rm": {"--interactive": "-i", "--verbose": "-v", "--dir": "-d"},
    "git commit": {"--no-verify": "-n", "--all": "-a", "--message": "-m", "--file": "-F", "--quiet": "-q"},
    "git push": {"--set-upstream": "-u", "--dry-run": "-n", "--quiet": "-q", "--verbose": "-v"},
    "git clean": {"--dry-run": "-n", "--quiet": "-q", "--interactive": "-i"},
    "git reset": {"--quiet": "-q"}, "git checkout": {"--quiet": "-q"},
    "kubectl": {"--namespace": "-n", "--filename": "-f", "--selector": "-l", "--output": "-o"},
    "chmod": {"--recursive": "-R"}, "chown": {"--recursive": "-R"},
}
SAME_SHORT = {"rm": {"-R": "-r"}, "cp": {"-R": "-r"}, "scp": {"-R": "-r"}}
# Short options that take a value (so ``-mfix`` is -m with "fix", not -m -f -i -x).
SHORT_WITH_VALUE = {"git commit": "mFCct", "git push": "o", "kubectl": "nflocs", "grep": "efmABC", "rg": "efmABCgt",
                    "sed": "ef", "perl": "eEIMl", "tar": "fCT", "docker": "evpwu", "ssh": "ibcDEeFIiJLlmOopQRSWw",
                    "curl": "ouHdXAeEbcKrTwxyYzm", "chmod": "", "git clean": "e"}
GIT_GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                                   "--config-env"})


def is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and bool(name) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def program(word: str) -> str:
    """The program a command word names: ``/usr/bin/git`` and ``C:\\Program Files\\Git\\cmd\\git.exe`` are ``git``
    (a Windows name loses its suffix and its case: Windows runs ``Git.EXE`` as ``git``)."""
    name = word.replace("\\", "/").rsplit("/", 1)[-1]
    if name.lower().endswith(WINDOWS_SUFFIXES):
        return name[:-4].lower()
    return name


def _skip_options(words: list[str], i: int, with_value: frozenset[str]) -> int:
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        word = words[i]
        i += 1
        if word == "--":
            break
        if word.startswith("--"):
            i += word in with_value  # --user=x carries its value
        elif len(word) == 2:
            i += word in with_value
        else:  # a cluster: -Eu deploy, -n10
            for k, flag in enumerate(word[1:], 1):
                if "-" + flag in with_value:
                    i += k == len(word) - 1
                    break
    return i


def strip_wrappers(words: list[str]) -> list[str]:
    """``sudo -u x FOO=1 time -p nice -n 5 npm i`` -> ``npm i``."""
    i = 0
    while i < len(words):
        word = words[i]
        name = program(word)
        if is_assignment(word):
            i += 1
        elif name in WRAPPERS:
            i = _skip_options(words, i + 1, WRAPPERS[name])
            while name == "env" and i < len(words) and is_assignment(words[i]):
                i += 1
            i += min(POSITIONAL_WRAPPERS.get(name, 0), max(0, len(words) - i - 1))
        else:
            break
    return words[i:]


def _runner_rest(words: list[str]) -> tuple[str, list[str]] | None:
    """(runner, the command it runs) when ``words`` starts with a runner."""
    name = program(words[0])
    if name.startswith("python") and len(words) > 2 and words[1] == "-m":
        return "python -m", words[2:]
    if name in RUNNERS_ONE:
        runner, i = name, 1
    elif len(words) > 1 and words[1] in RUNNERS_TWO.get(name, ()):
        runner, i = f"{name} {words[1]}", 2
    else:
        return None
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i].split("=")[0] in RUNNER_OPTS_WITH_ARG and "=" not in words[i] else 1
    return (runner, words[i:]) if i < len(words) else None


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


def _scripts_run_by(words: list[str]) -> Iterator[str | list[str]]:
    """Scripts (text) or commands (words) that this command runs: ``bash -c``, ``eval``, ``find -exec``."""
    name = program(words[0])
    if name == "eval" or name.lower() in ("iex", "invoke-expression"):
        yield " ".join(words[1:])
    elif name.lower() in ("cmd", *POWERSHELLS):
        yield from _windows_shell_script(name.lower(), words)
    elif name in SHELLS:
        for k, word in enumerate(words[1:-1], 1):
            if word.startswith("-") and not word.startswith("--") and "c" in word:
                yield words[k + 1]
                return
    elif name == "find":
        for k, word in enumerate(words):
            if word in ("-exec", "-execdir", "-ok", "-okdir"):
                end = next((j for j in range(k + 1, len(words)) if words[j] in (";", "+")), len(words))
                if end > k + 1:
                    yield words[k + 1:end]
    elif name == "env":
        for k, word in enumerate(words[1:-1], 1):
            if word in ("-S", "--split-string"):
                yield words[k + 1]


def _windows_shell_script(name: str, words: list[str]) -> Iterator[str]:
    """What ``cmd /c …`` or ``powershell -Command …`` / ``-EncodedCommand <base64>`` runs (PowerShell takes any
    prefix of a parameter's name, and ``-c``/``-e``/``-ec``)."""
    for k, word in enumerate(words[1:], 1):
        flag = word.lower().lstrip("-/") if word[:1] in "-/" else ""
        if name == "cmd" and flag in ("c", "k", "r"):
            yield " ".join(words[k + 1:])
            return
        if name != "cmd" and flag and "command".startswith(flag):
            yield " ".join(words[k + 1:])
            return
        if name != "cmd" and flag and (flag == "ec" or "encodedcommand".startswith(flag)) and k + 1 < len(words):
            import base64
            import binascii

            try:
                yield base64.b64decode(words[k + 1], validate=True).decode("utf-16-le")
            except (binascii.Error, ValueError):
                pass
            return


def command_views(text: str, depth: int = 0) -> list[tuple[tuple[str, ...], list[str]]]:
    """Every view of every simple command in ``text`` (scripts they run included)."""
    found: list[tuple[tuple[str, ...], list[str]]] = []
    for command in shellparse.parse(text):
        argv = command.argv
        _add_views(argv, found, depth)
    return found


def _add_views(argv: list[str], found: list, depth: int) -> None:
    for chain, words in views(argv):
        found.append((chain, words))
        if depth >= shellparse.MAX_DEPTH:
            continue
        for inner in _scripts_run_by(words):
            if isinstance(inner, str):
                found.extend(command_views(inner, depth + 1))
            else:
                _add_views(inner, found, depth + 1)


# --- options by meaning ----------------------------------------------------------------

def subcommand_key(words: list[str]) -> str:
    """``git push`` for ``git -C x push -f``; the program alone for others."""
    name = program(words[0]) if words else ""
    if name != "git":
        return name
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 1 + (words[i] in GIT_GLOBAL_WITH_VALUE)
    return f"git {words[i]}" if i < len(words) else "git"


def canonical_flags(words: list[str], key: str = "") -> set[str]:
    """The options of a command by meaning: short names, clusters split, long ones mapped per program."""
    key = key or subcommand_key(words)
    name = key.split(" ")[0]
    longs = {**LONG_TO_SHORT[""], **LONG_TO_SHORT.get(name, {}), **LONG_TO_SHORT.get(key, {})}
    same = SAME_SHORT.get(name, {})
    valued = SHORT_WITH_VALUE.get(key, SHORT_WITH_VALUE.get(name, ""))
    flags: set[str] = set()
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        if word == "--":
            break
        if word.startswith("--"):
            flag = word.split("=", 1)[0]
            flags.add(longs.get(flag, flag))
        elif word.startswith("-") and len(word) > 1 and not word[1].isdigit():
            for k, letter in enumerate(word[1:], 1):
                flags.add(same.get("-" + letter, "-" + letter))
                if letter in valued:
                    skip = k == len(word) - 1
                    break
        elif key == "git push" and word.startswith("+") and len(word) > 1:
            flags.add("-f")  # git push origin +main: a forced update of that ref
    return flags


# --- files a command writes -------------------------------------------------------------

def _positionals(words: list[str], with_value: str = "") -> list[str]:
    out, skip, ended = [], False, False
    for word in words[1:]:
        if skip:
            skip = False
        elif ended or not word.startswith("-") or word == "-":
            out.append(word)
        elif word == "--":
            ended = True
        elif not word.startswith("--") and word[-1] in with_value:
            skip = True
    return out


def written_files(command: shellparse.Command, cwd: str = "") -> list[str]:
    """The files (as written, relative to ``cwd``) that this command writes."""
    found = [w.value for op, w in command.redirects if op in shellparse.WRITES and not w.value.isdigit()
             and w.value != "-"]
    words = strip_wrappers(command.argv)
    if not words:
        return found
    name = program(words[0])
    if name == "tee":
        found += _positionals(words)
    elif name in ("sed", "perl") and any(w.startswith("--in-place") or (w.startswith("-") and not w.startswith("--")
                                                                           and "i" in w.split(".")[0]) for w in words[1:]):
        args = _positionals(words, "ef" if name == "sed" else "eE")
        scripted = any(w in ("-e", "-f", "-E") or w.startswith("--expression") for w in words[1:]) or (
            name == "perl" and any(w.startswith("-") and "e" in w for w in words[1:]))
        found += args if scripted else args[1:]
    elif name in ("cp", "mv", "ln", "install", "rsync"):
        found += _destinations(words, cwd)
    elif name == "truncate":
        found += _positionals(words, "sr")
    elif name == "dd":
        found += [w[3:] for w in words[1:] if w.startswith("of=")]
    return found


def _destinations(words: list[str], cwd: str) -> list[str]:
    """Where ``cp``/``mv``/``ln``/``install`` write: the target, and inside it when it is a folder."""
    target = next((words[k + 1] for k, w in enumerate(words[:-1]) if w in ("-t", "--target-directory")), None)
    target = target or next((w.split("=", 1)[1] for w in words if w.startswith("--target-directory=")), None)
    args = [w for w in _positionals(words, "tSb") if w != target]
    folder = target is not None
    if target is None:
        if len(args) < 2:
            return []
        target, args = args[-1], args[:-1]
        folder = len(args) > 1 or target.endswith("/") or target in (".", "..") or \
            os.path.isdir(os.path.join(cwd, os.path.expanduser(target)))
    return [target] + ([os.path.join(target, os.path.basename(a.rstrip("/"))) for a in args] if folder else [])
