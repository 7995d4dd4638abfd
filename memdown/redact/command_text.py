"""Command lines inside text: the same rule as a recorded Bash command (issue #27 item 1).

A command is not only a Bash tool input: it is typed in a prompt, quoted in a code block, a
``<bash-input>`` line, a slash command's arguments, an MCP query, a Task prompt, a thinking
sentence ("the user gave ``mongodump -u backup -p …`` earlier"). Wherever it sits, the text from a
command's start to the end of its line is read with the shell parser and judged by
``commands.command_edits`` (program, subcommands and flags kept; a value kept only in a safe shape or
when its place is not a secret's).

Where a command starts, by shape and not by a list of programs:

- a lower-case program word (``mongodump``, ``./gradlew``, ``/usr/bin/x``) followed by a flag
  (``-p``, ``--host``, ``-hpX``) or a Windows-style ``/p:`` flag, anywhere in a line, or by one path
  and then a flag (``smbclient //srv/share -U …``);
- the line's first word when such a program and flag follow later on it (``echo … | sudo -S …``) or
  a shell operator does (``echo 'u:PW' | sudo chpasswd``, ``wpa_passphrase net PW >> f``), or when it is
  a program whose usage puts a password in its own place (``net user u PW``: ``commands``' tables), or
  a word on it names a secret as a config key (``npm config set //host/:_authToken V``);
- in a sentence with no flag or operator: such a program, or a config key that names a secret after a run
  of command-like words (``… gave pdftk a.pdf output b.pdf user_pw PW earlier``), when a value that is no
  safe shape follows it (``_secret_in_prose``).

One segment per line, at most ``MAX_LINE`` characters and ``MAX_WORDS`` words (longer lines are
data, left to the text rules): the lexer and the argument walk stay linear in the text.
"""
from __future__ import annotations

import re

from .patterns import LazyPattern, Span

MAX_LINE = 2000
MAX_WORDS = 120
# A program word followed by a flag: "-x", "--name", "/p:" (xfreerdp); not "- item" or "-1".
_PROGRAM_FLAG = re.compile(r"(?:^|(?<=[\s`(>:;|&]))((?:\.{0,2}/|~/)?[a-z0-9][a-z0-9_.+/-]{1,40})[ \t]+"
                           r"(?:[/~.][^\s`]{0,200}[ \t]+)?(?=-{1,2}[A-Za-z]|/[A-Za-z]{1,12}:)")
# What may come before a line's first word: indentation, a prompt, a list bullet, a numbered Read line, a tag.
_LINE_LEAD = re.compile(r"[ \t]*(?:\d+(?:\t|→))?[ \t]*(?:(?:[$#>*-]|\d+\.)[ \t]+|`|<[a-z-]+>)*")
_COMMAND_WORD = re.compile(r"(?:\.{0,2}/|~/)?[a-z0-9][\w./:-]*")
_CODE_PUNCTUATION = re.compile(r" = |\{ |\?: |=> ")  # a TypeScript union (x = y as {…} | undefined), not a pipe
_SETTING_VERBS = frozenset({"set", "config", "configure", "add", "put", "store", "create", "update", "output"})
_MARKER = re.compile(r"\[REDACTED:\w+\]")
_SHELL_OPERATOR = re.compile(r"[ \t](?:\||>>?|&&|<<<)[ \t]")  # a pipe, redirection or list: shell, not prose
_FIRST_WORD = re.compile(r"(?:\.{0,2}/|~/)?[a-z0-9][a-z0-9_.+/-]*(?=[ \t])")


def find_command_lines(text: str) -> list[Span]:
    """``("arg", start, end)`` for every value a command inside ``text`` must not keep."""
    from .commands import command_edits

    spans: list[Span] = []
    pos = 0
    for line in _logical_lines(text):
        start_of_line, pos = pos, pos + len(line) + 1
        if len(line) > MAX_LINE or len(line) < 6:
            continue
        begin = _command_start(line)
        if begin < 0:
            continue
        end = _segment_end(line, begin)
        segment = line[begin:end]
        if segment.count(" ") > MAX_WORDS:
            continue
        markers = [m.span() for m in _MARKER.finditer(segment)] if "[REDACTED:" in segment else []
        for s, e, shown in command_edits(segment):
            s, e = _changed_part(segment[s:e], shown, s, e)
            if any(s < m_end and m_start < e for m_start, m_end in markers):
                continue  # already redacted: never a marker's inside (idempotent)
            spans.append(("arg", start_of_line + begin + s, start_of_line + begin + e))
    return spans


def _logical_lines(text: str) -> list[str]:
    """``text``'s lines, a ``\\``-continued line joined with the next (``mysqldump \\`` / ``-p'PW' shop``
    is one command). The backslash and newline become two spaces: each logical line has the length of
    the text it stands for, so offsets into it are offsets into ``text``."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        while line.endswith("\\") and not line.endswith("\\\\") and i + 1 < len(lines) and len(line) <= MAX_LINE:
            i += 1
            line = line[:-1] + "  " + lines[i]
        out.append(line)
        i += 1
    return out


def _changed_part(raw: str, shown: str, start: int, end: int) -> tuple[int, int]:
    """The span of ``raw`` that ``shown`` replaced ('api:PW' -> 'api:[REDACTED:arg]': only PW), so the
    text rules' markers and the kept user name stay as they are."""
    head = 0
    while head < min(len(raw), len(shown)) and raw[head] == shown[head]:
        head += 1
    tail = 0
    while tail < min(len(raw), len(shown)) - head and raw[-1 - tail] == shown[-1 - tail]:
        tail += 1
    return start + head, end - tail


def _command_start(line: str) -> int:
    """Where a command starts on ``line``, or -1: the start of the line or of a clause (after ``: ``,
    a backtick, ``$ ``) when its first word leads a command, else a program that a flag follows."""
    anchor = _PROGRAM_FLAG.search(line)
    clauses = [_LINE_LEAD.match(line).end()]
    for sep in (": ", "`", "$ "):
        at = line.find(sep)
        if at >= 0 and (anchor is None or at < anchor.start(1)):
            clauses.append(at + len(sep))
    for clause in sorted(set(clauses)):
        first = _FIRST_WORD.match(line, clause)
        if first is None or (anchor is not None and "`" in line[clause:anchor.start(1)]):
            continue
        piped = _SHELL_OPERATOR.search(line, first.end()) is not None and _CODE_PUNCTUATION.search(line) is None
        if anchor is not None or piped or \
                _usage_takes_secret(first.group()) or _names_a_secret_key(line[clause:]):
            return clause  # echo … | sudo -S, wpa_passphrase n PW >> f, net user u PW: from the first word
    if anchor is not None:
        return _pipeline_start(line, anchor.start(1))
    prose = _secret_in_prose(line)
    return prose if prose >= 0 else _flagless_command(line, clauses[0])


def _flagless_command(line: str, lead: int) -> int:
    """A line that is a command with no flag (``sqlplus hr/PW@db``, ``schtasks /create … /rp PW``, a
    ``     1\t``-numbered line of a script): its first word program-shaped, two or more words after it, one
    of them no safe shape (``commands.safe_piece``). Its values are judged as a command's; the words a
    sentence is made of are safe shapes and stay."""
    from .commands import safe_piece

    first = _FLAGLESS_PROGRAM.match(line, lead)
    if first is None or not line.isascii() or _CODE_CHARACTERS.search(line, lead) or _FILE_MODE.match(first.group()):
        return -1  # code (x = f(y);), an ls -l row, a log line, text in another script: not a command
    words = line[first.end():].split()
    if len(words) < 2 or len(words) > MAX_WORDS:
        return -1
    return lead if any(len(w) >= 6 and "[REDACTED:" not in w and "/" not in w and not safe_piece(w.strip("'\"`"))
                       for w in words) else -1


# A flagless command's program: lower-case letters (a trailing digit: db2, python3), no number or date first.
_FLAGLESS_PROGRAM = re.compile(r"(?:\.{0,2}/|~/)?[a-z][a-z_.+/-]*[0-9]?(?=[ \t])")
_CODE_CHARACTERS = re.compile(r"[(){};,]| =|==|=>|\\[uxUe0-9]")  # \uE0B0, \033: escapes in code; C:\ops\x.bat is a path
_FILE_MODE = re.compile(r"[-dlcbps][-rwxsStT]{9}")


_WORDS = LazyPattern(r"\S+")


def _secret_in_prose(line: str) -> int:
    """A command with no flag or operator in a sentence: a program whose usage takes a password
    (``… then vault login PW``) or a config key that names a secret (``pdftk a.pdf output b.pdf user_pw
    PW``), each followed on the line by a value that is no safe shape (``commands.safe_piece``), so
    "use net user to list accounts" or "put DB_PASSWORD here" stay prose. The command starts at the
    program, or at the run of command-like words before the key."""
    from .commands import key_says_secret, safe_piece

    words = [(m.start(), m.group().strip("`'\"(),.;")) for m in _WORDS.finditer(line)]
    unsafe = [not safe_piece(w) and len(w) >= 6 and not w.startswith("[REDACTED") for _s, w in words]
    for i, (start, word) in enumerate(words):
        if _usage_takes_secret(word) and any(unsafe[i + 1:i + 6]):
            return start
        if i + 1 < len(words) and unsafe[i + 1] and any(c in word for c in ":._") and key_says_secret(word):
            first = i
            while first > 0 and i - first < 10 and _COMMAND_WORD.fullmatch(words[first - 1][1]):
                first -= 1
            return words[first][0] if first < i else -1
    return -1


def _usage_takes_secret(word: str) -> bool:
    """A program whose usage puts a password in a place of its own (``net user u PW``, ``vault login PW``)."""
    from .usages import CONNECT_STRING_PROGRAMS, PASSWORD_FLAGS, POSITIONAL_SECRETS, USER_PASS_FLAGS

    name = word.rsplit("/", 1)[-1]
    return name in PASSWORD_FLAGS or name in USER_PASS_FLAGS or name in CONNECT_STRING_PROGRAMS or \
        any(p == name for p, _s in POSITIONAL_SECRETS)


def _names_a_secret_key(line: str) -> bool:
    """A word that names a secret as a config key (``smtp.password``, ``//host/:_authToken``, ``user_pw``;
    not the prose word ``password``): ``… config set KEY VALUE`` puts the value after it."""
    from .commands import key_says_secret

    words = line.split()
    for i, word in enumerate(words):
        if any(c in word for c in ":._") and key_says_secret(word):  # not key/secret in prose
            # after a program and a subcommand (npm config set K, git config K), not in code or prose
            return i >= 2 and all(_COMMAND_WORD.fullmatch(w) for w in words[:i]) and \
                any(w in _SETTING_VERBS for w in words[:i])  # "read from X_SECRET in …" is prose
    return False


def _pipeline_start(line: str, begin: int) -> int:
    """Mid-sentence, a command starts at its flag's program, or earlier at the clause start when a pipe
    leads into it ("works: echo PW | sudo -S …")."""
    cut = max(line.rfind(": ", 0, begin), line.rfind(". ", 0, begin))
    clause = cut + 2 if cut >= 0 else 0
    if _SHELL_OPERATOR.search(line[clause:begin]) and _FIRST_WORD.match(line, clause):
        return clause
    return begin


def _segment_end(line: str, begin: int) -> int:
    """A command ends at its line's end, at a closing tag (``</bash-input>``) or at the backtick that
    closes an inline code span it started in."""
    end = len(line)
    tag = line.find("</", begin)
    if tag >= 0:
        end = tag
    if begin and line[begin - 1] == "`":
        tick = line.find("`", begin)
        if tick >= 0:
            end = min(end, tick)
    return end
