"""Recorded commands keep what is known to be safe (issue #27 item 1).

A command memdown records (a Bash tool input, a ``!`` bash-mode line, the command a failure echoes)
is read with the shell parser (``memdown.shellparse``, the guards' grammar), and each value in it is
judged by its *shape*, not by a list of secret formats:

- kept: the program, its subcommands and every flag name;
- kept: a value whose every letter-and-digit run is *word-like*: a lowercase, UPPER or Capitalized
  word, camelCase, a word with a trailing number (``python3``, ``v2``), a number, a short word with an
  inner number group of two or more digits (``i18n``, ``sha256sum``, ``x86``), a short git SHA (7-12
  hex) or a full one (40/64), a UUID; so paths, file names, refs (``origin/main``, ``HEAD~1``),
  versions, URLs without credentials, globs, prose and most code stay as they were;
- replaced by ``[REDACTED:arg]``: any other whitespace-separated piece of a value (``S3cr3t!``,
  ``Tr0ub4dor&3``, ``xK9mQ2pLr7``, a 32-hex key), whatever flag or position it sits in;
- replaced whole, even when word-like: the value of a flag whose name says secret (``--password``,
  ``-storepass``, ``--client-secret``…, ``redact.names``), of a program's own password flag
  (``mysql -p…``, ``sshpass -p``, ``sqlcmd -P``, ``unzip -P``, ``redis-cli -a``, ``ldapsearch -w``…),
  the part after ``:`` of ``curl -u user:pw`` / ``smbclient -U user%pw``, ``htpasswd -b``'s password,
  the credentials of a URL, and every value piped or here-string'ed into a command's stdin
  (``echo … | sudo -S``, ``printf … | docker login --password-stdin``, ``cmd <<< …``).

Variable references (``$PW``, ``${PW}``, ``$(cat f)``) are kept: they are not the secret. Only the
top-level words are rewritten in place; a script inside ``bash -c '…'`` is judged as one value.
"""
from __future__ import annotations

import re

from .names import name_parts, name_says_secret
from .values import mixed_like_generated, named_path, version_like
from .word_shape import HEX_LITERAL as _HEX_LITERAL, word_like

MARK = "[REDACTED:arg]"
_RUN = re.compile(r"[A-Za-z0-9]+")
_WORDLIKE = re.compile(r"[a-z]+\d{0,4}|[A-Z]+\d{0,4}|[A-Z]?[a-z]+(?:[A-Z]+[a-z]*)*\d{0,4}|\d+")
_INNER_DIGITS = re.compile(r"([a-z]+)(\d+)([a-z]+)\d*")
_HEX_LITERAL_WORD = re.compile(r"\b0x[0-9a-fA-F]{1,16}\b")  # gpg --recv-keys 0xABCDEF12
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_PLACEHOLDER = re.compile(r"(?:YOUR|MY|CHANGE|REPLACE|XXX|<)[A-Z_<>-]*|x{3,}|\*{3,}|\.{3}")  # YOUR_KEY, <token>
_REGEX = re.compile(r"\[\^?[A-Za-z0-9]-[A-Za-z0-9]|\{\d+,\d*\}|\\[dwsS]")  # REG_TOKEN=[A-Z0-9]{20,}: a pattern
_REFERENCE = re.compile(r"[a-z_]\w*(?:\.[A-Za-z_]\w*)+")  # api_key=settings.OPENAI_API_KEY: code names it
_MARKER = re.compile(r"\[REDACTED:\w+\]")  # already redacted: redaction stays idempotent
_PIECE = re.compile(r"[!-~]+")  # a piece: printable ASCII between spaces and other scripts' text
_NAME = re.compile(r"[A-Za-z_][\w.-]*")
_VARIABLE = re.compile(r"\$(?:\w+|\{[^}]*\}|\([^)]*\))|\{\w*\}|%s")  # $PW, ${PW}, $(cmd); {0}, %s templates
_URL_SEGMENT = re.compile(r"[^/?&=@:#]+")
_URL_CREDENTIALS = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:)([^@\s/]+)(@)")
from .usages import (CONNECT_STRING_PROGRAMS, GLUED_ONLY, PASSWORD_FLAG_NAMES, PASSWORD_FLAGS,  # noqa: F401
                     POSITIONAL_SECRETS, STDIN_READERS, USER_PASS_FLAGS)
# user/PW@db: an Oracle connect string (the password between the first "/" and the last "@").
_CONNECT = re.compile(r"^((?:\w+=)?[A-Za-z_][\w$#]*/)(.+)(@[\w.:/\-\[\]]+)$")


def _path_like(piece: str) -> bool:
    """A path (no scheme, no ``@``) from a named root (``values.named_path``) or with no generated segment."""
    return "/" in piece and "://" not in piece and "@" not in piece and (named_path(piece) or not mixed_like_generated(piece))


def safe_piece(piece: str) -> bool:
    if version_like(piece):
        return True  # curl 7.88.1-10+deb12u14: a version, whatever its Debian or pre-release tail
    piece = _VARIABLE.sub("", _UUID.sub("", _HEX_LITERAL_WORD.sub("", piece)))
    if mixed_like_generated(piece) and not named_path(piece):
        return False
    return all(word_like(run) for run in _RUN.findall(piece)) or _path_like(piece)


def generated_like(piece: str) -> bool:
    """A piece of 10 or more characters shaped like a generated password (``mixed_like_generated``)."""
    return len(piece) >= 10 and mixed_like_generated(piece)


def _pieces_masked(value: str) -> str:
    """``value`` with each whitespace-separated piece that is not a safe shape replaced."""
    if safe_piece(value) and not ("=" in value and _secret_assignment(value)):
        return value
    return _PIECE.sub(lambda m: _piece_masked(m.group(0)), value)


def _piece_masked(piece: str) -> str:
    """One piece: ``NAME=value`` keeps its name (the value judged, or masked when the name says secret)."""
    if safe_piece(piece) and not ("=" in piece and _secret_assignment(piece)):
        return piece
    if "://" in piece:  # a URL keeps its scheme, host and path names: only a segment of no safe shape goes
        return _URL_SEGMENT.sub(lambda m: m.group() if safe_piece(m.group()) else MARK, piece)
    name, eq, value = piece.partition("=")
    if eq and _NAME.fullmatch(name) and safe_piece(name):  # not xjqIT8K6QEXM=@YiF7: a password with an "="
        return f"{name}={_secret_value(value) if _names_secret(name.rsplit('.', 1)[-1]) else _piece_masked(value)}"
    return MARK


def _secret_assignment(piece: str) -> bool:
    name, eq, value = piece.partition("=")
    return bool(eq and value and _NAME.fullmatch(name) and _names_secret(name.rsplit(".", 1)[-1])
                and _secret_value(value) != value)


def _secret_value(value: str) -> str:
    """A value in a secret's place: kept only when it names a variable (``$PW``) or is empty."""
    keep = not value or _VARIABLE.fullmatch(value) or _MARKER.fullmatch(value) or _PLACEHOLDER.fullmatch(value) \
        or _REGEX.search(value) or _REFERENCE.fullmatch(value) and all(safe_piece(p) for p in value.split("."))
    return value if keep else MARK


def _names_secret(name: str) -> bool:
    """A flag or variable name that names a secret by its last word (``--db-password``, ``-storepass``,
    ``API_KEY``; not ``-PassThru``, ``--password-file``, ``StrictHostKeyChecking``)."""
    parts = name_parts(name)
    return bool(parts) and bool(name_says_secret(name)) and bool(name_says_secret(parts[-1]))


def _flag_says_secret(flag: str) -> bool:
    name = flag.lstrip("-")
    return len(name) > 1 and _NAME.fullmatch(name) is not None and (
        name.lower() in PASSWORD_FLAG_NAMES or _names_secret(name))


def mask_argv(argv: list[str], fed_stdin: bool = False) -> list[str]:  # long: one walk over a command's words
    """Each word of one simple command as it may be recorded (flags and safe values kept)."""
    from ..shellcmd import program, strip_wrappers

    out = list(argv)
    start = len(argv) - len(strip_wrappers(argv))
    for k in range(start):  # assignments before the program: NAME=value
        name, eq, value = argv[k].partition("=")
        if eq and _names_secret(name):
            out[k] = f"{name}={_secret_value(value)}"
        elif eq:
            out[k] = f"{name}={_pieces_masked(value)}"
    if start >= len(argv):
        return out
    prog = program(argv[start])
    letters = PASSWORD_FLAGS.get(prog, "")
    user_pass = USER_PASS_FLAGS.get(prog, ())
    secret_next = user_next = False
    positional = 0
    for k in range(start + 1, len(argv)):
        word = argv[k]
        if secret_next or user_next:
            out[k] = _after_colon(word) if user_next else word if _weak_flag_keeps(argv[k - 1], word) else _secret_value(word)
            secret_next = user_next = False
            continue
        if word.startswith("-") and len(word) > 1 and not word[1].isdigit():
            flag, eq, value = word.partition("=")
            if not word.startswith("--") and len(word) > 2 and word[1] not in letters and not safe_piece(flag[1:]) \
                    and not _flag_says_secret(flag):
                out[k] = word[:2] + MARK  # -pX9#k…, -hpX9#k…, -PX9=k…: a value glued to a one-letter flag, no safe shape
                continue
            if word.startswith("--") or not letters or len(flag) > 2 and flag.lstrip("-").isalpha() and _flag_says_secret(flag):
                if eq:
                    out[k] = f"{flag}={_secret_value(value) if _flag_says_secret(flag) else _after_colon(value) if flag in user_pass else _pieces_masked(value)}"
                elif _flag_says_secret(flag) and not flag.endswith(("-stdin", "-file", "-fd")):
                    secret_next = True
                elif flag in user_pass:
                    user_next = True
                continue
            letter = word[1]
            if letter in letters:
                if len(word) > 2:
                    out[k] = word[:2] + _secret_value(word[2:])
                elif prog not in GLUED_ONLY:
                    secret_next = True
            elif flag in user_pass:
                if len(word) > 2:
                    out[k] = word[:2] + _after_colon(word[2:])
                else:
                    user_next = True
            continue
        positional += 1
        slash_name, colon, slash_value = word[1:].partition(":") if word.startswith("/") else ("", "", "")
        if fed_stdin and prog in ("echo", "printf"):
            out[k] = _secret_value(word)
        elif prog in CONNECT_STRING_PROGRAMS and _CONNECT.match(word):
            connect = _CONNECT.match(word)
            out[k] = f"{connect[1]}{_secret_value(connect[2])}{connect[3]}"
        elif _secret_position(prog, argv[start + 1:], k - start - 1):
            out[k] = _secret_value(word)
        elif k > start + 1 and argv[k - 1][:1] == "/" and _flag_says_secret(argv[k - 1][1:].lower()) and \
                argv[k - 1][1:].isalpha():
            out[k] = _secret_value(word)  # schtasks /rp PW: a Windows-style flag, its value separate
        elif colon and slash_value and (slash_name.lower() in ("p", "pw", "pass") or _names_secret(slash_name)):
            out[k] = f"/{slash_name}:{_secret_value(slash_value)}"  # xfreerdp /p:PW, a Windows-style flag
        elif positional > 1 and key_says_secret(argv[k - 1]) and not _file_like(word):
            weak_word = name_says_secret(re.split(r"[/:.]", argv[k - 1])[-1]) != "strong" and word.isalpha() and word.islower()
            out[k] = word if weak_word else _secret_value(word)  # npm config set //h/:_authToken V; not …inboundAuth bearer
        else:
            out[k] = _pieces_masked(_URL_CREDENTIALS.sub(lambda m: m.group(1) + _secret_value(m.group(2)) + m.group(3), word))
    return out


def _weak_flag_keeps(flag: str, value: str) -> bool:
    """After a flag named by a weak word (``--recv-keys``, ``--key``; not ``--api-key``'s ``API``), a
    number, a hex literal or a file is no secret: ``gpg --recv-keys 0xABCDEF12``, ``sort --key 2``."""
    name = flag.lstrip("-")
    if not flag.startswith("-") or name_says_secret(name) != "weak":
        return False  # a program's password letter (ldappasswd -s 'a*b') keeps nothing, not even a "glob"
    return value.isdigit() or _HEX_LITERAL.fullmatch(value) is not None or _file_like(value)


def key_says_secret(word: str) -> bool:
    """A positional word that names a secret as a config key (``user_pw``, ``//host/:_authToken``,
    ``smtp.password``): a key of parts whose last names a secret, strongly unless the key is scoped
    (``//host/:`` or ``a.b``); not a plain word (``askpass``, ``auth`` in ``gh auth status``, ``api_key``
    in code) and not a file (``~/.pw``)."""
    key = re.split(r"[/:.]", word)[-1]
    if word.startswith("-") or not key or _NAME.fullmatch(key) is None or word.endswith("/." + key):
        return False
    scoped = len(key) < len(word)
    if not (scoped or "_" in key.strip("_") or key != key.lower()):
        return False  # one plain word: prose or a subcommand
    compound = "_" in key.strip("_") or key.lstrip("_") != key.lstrip("_").lower() or key.startswith("_")
    return _names_secret(key) and (name_says_secret(key) == "strong" or scoped and compound)


def _file_like(word: str) -> bool:
    """What follows a searched-for word in ``grep password src/`` or ``rg token *.py``: a path, a file or glob."""
    return "/" in word or "*" in word or re.fullmatch(r"[\w.-]+\.[a-z][a-z0-9]{0,4}", word) is not None


def _secret_position(prog: str, args: list[str], index: int) -> bool:
    """``args[index]`` sits where ``prog``'s usage puts a password (``htpasswd -b f user PW``,
    ``wpa_passphrase SSID PW``)."""
    for at, word in [(-1, None), *enumerate(args[:index])]:
        position = POSITIONAL_SECRETS.get((prog, word))
        if position is None:
            continue
        plain = [k for k in range(at + 1, len(args)) if not args[k].startswith("-")]
        if position == -1:
            return bool(plain) and index == plain[-1]
        return len(plain) >= position and index == plain[position - 1]
    return False


def _after_colon(value: str) -> str:
    if "[REDACTED:" in value:
        return value  # already redacted (bob%[REDACTED:arg]): idempotent
    at = min((i for i in map(value.find, ":%,") if i >= 0), default=-1)  # the first: pw may hold the others
    if at >= 0:  # curl -u user:pw, smbclient -U user%pw, lftp -u user,pw
        return f"{value[:at + 1]}{_secret_value(value[at + 1:])}"
    return _pieces_masked(value)


def _reads_secret_stdin(argv: list[str]) -> bool:
    from ..shellcmd import program, strip_wrappers

    words = strip_wrappers(argv) if argv and program(argv[0]) != "sudo" else argv
    if not words:
        return False
    inner = strip_wrappers(argv)  # sudo chpasswd: chpasswd reads user:password lines
    return program(words[0]) in STDIN_READERS and any(
        w in ("-S", "--stdin", "--password-stdin", "-") or w.endswith("-stdin") or w.startswith("--passphrase-fd")
        for w in words[1:]) or bool(inner) and program(inner[0]) in ("chpasswd", "chpass")


def redact_command(command: str) -> str:
    """``command`` with every value that is not a safe shape replaced (its text otherwise unchanged)."""
    edits = command_edits(command)
    if not edits:
        return command
    out, pos = [], 0
    for start, end, text in edits:
        out += [command[pos:start], text]
        pos = end
    out.append(command[pos:])
    return "".join(out)


def command_edits(command: str) -> list[tuple[int, int, str]]:  # long: one walk over a pipeline's commands
    """Where :func:`redact_command` changes ``command``: sorted, non-overlapping ``(start, end, text)``."""
    from ..shellparse import Word, tokens

    try:
        items = list(tokens(command))
    except Exception:  # noqa: BLE001 - a command the lexer cannot read is left to the text redactor
        return []
    commands: list[list[Word]] = [[]]
    here_strings: list[Word] = []
    stdin_piped: list[bool] = []
    redirect = ""
    for item in items:
        if isinstance(item, Word):
            if redirect == "<<<":
                here_strings.append(item)
            elif not redirect:
                commands[-1].append(item)
            redirect = ""
        elif item in ("<<<", ">", ">>", "<", "&>", "&>>", ">|", "<>", ">&", "<&"):
            redirect = item
        else:
            redirect = ""
            stdin_piped.append(item in ("|", "|&"))
            commands.append([])
    edits: list[tuple[int, int, str]] = []
    for n, words in enumerate(commands):
        if not words:
            continue
        argv = [w.value for w in words]
        feeds = n < len(stdin_piped) and stdin_piped[n] and n + 1 < len(commands) and \
            _reads_secret_stdin([w.value for w in commands[n + 1]])
        for word, shown in zip(words, mask_argv(argv, feeds)):
            if shown != word.value:
                raw = command[word.start:word.end]
                if "\\" in raw and _pieces_masked(raw) == raw and not _secret_place(word.value, shown):
                    continue  # C:\\Users\\x: judged as typed, not with the backslashes read as escapes
                edits.append((word.start, word.end, _in_place(raw, word, shown)))
    edits += [(w.start, w.end, MARK) for w in here_strings if _secret_value(w.value) != w.value]
    kept: list[tuple[int, int, str]] = []
    for start, end, text in sorted(edits):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end, text))
    return kept


def _secret_place(value: str, shown: str) -> bool:
    """The word was masked for where it sits (a password flag, stdin), not for its shape."""
    return _pieces_masked(value) == value


def _in_place(raw: str, word, shown: str) -> str:
    """The word's text as typed (its quoting kept) with only the masked pieces replaced."""
    before, after = _PIECE.findall(word.value), _PIECE.findall(shown)
    if len(before) == len(after):
        out = raw
        for old, new in zip(before, after):
            if old == new:
                continue
            if old not in out:
                return _requote(word, shown)
            out = out.replace(old, new)
        return out
    return _requote(word, shown)


def _requote(word, shown: str) -> str:
    if not (word.quoted and any(c.isspace() for c in shown)):
        return shown
    return f'"{shown}"' if '"' not in shown and "$" not in shown and "`" not in shown else f"'{shown}'"


def masked_values(command: str) -> list[str]:
    """The raw values that :func:`redact_command` replaces (to scrub where a failure echoes them)."""
    shown = redact_command(command)
    if shown == command:
        return []
    gone = [piece for piece in re.split(r"\s+", command) if piece and piece not in shown]
    return sorted({p.strip("'\"") for p in gone if len(p.strip("'\"")) >= 4}, key=len, reverse=True)


def redact_echoes(text: str, command: str) -> str:
    """``text`` (a failure's output, a summary) with the command's masked values replaced where it echoes them."""
    for value in masked_values(command) if command and text else ():
        for piece in (value, value.rsplit("=", 1)[-1], value.rsplit(":", 1)[-1]):
            if len(piece) >= 4 and piece in text:
                text = text.replace(piece, MARK)
    return text
