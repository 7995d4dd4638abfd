"""A shell command line as the shell reads it: simple commands, their words, redirections and nested scripts.

One parser for everything memdown judges or records about a command: the PreToolUse guards
(``shellguard``), the redaction of recorded commands (``redact.commands``) and the "is this fix
destructive" check of the learning loop. A small lexer of the POSIX/bash grammar, not a regex:

- words with their quoting removed (``'…'``, ``"…"``, ``$'…'`` with its escapes decoded, ``\\x``),
  and where each word sits in the text (``Word.start``/``end``, for redaction);
- operators split commands: ``&& || ; | |& & ;; ;& ;;& ( )`` and newlines; ``\\`` line continuations;
- redirections (``> >> >| &> &>> < <> <<< n>&m``) kept apart from the words, with their targets;
- heredoc bodies skipped whatever the delimiter's quoting (``<<EOF``, ``<<'EOF'``, ``<<\\EOF``,
  ``<<E"O"F``, ``<<-EOF``), several per line;
- compound commands and groups (``{ …; }``, ``if/then/elif/else/fi``, ``while/until/for/select …; do …;
  done``, ``case … esac``, ``! cmd``, ``function f``) yield the simple commands inside them;
- ``$(…)`` and backticks, anywhere in a word, are parsed as scripts of their own.

``bashlex`` was measured for this and not taken: importing it costs ~170 ms, four times the
PreToolUse hook's whole budget. Standard library only; nothing is compiled at import.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator

OPERATORS = ("&&", "||", ";;&", ";;", ";&", "|&", "&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<&", "<>",
             ";", "|", "&", "(", ")", "<", ">", "\n")
SEPARATORS = frozenset({"&&", "||", ";;&", ";;", ";&", "|&", ";", "|", "&", "(", ")", "\n"})
REDIRECTS = frozenset({"&>>", "&>", ">>", ">|", ">&", "<<<", "<&", "<>", "<", ">"})
WRITES = frozenset({"&>>", "&>", ">>", ">|", ">&", "<>", ">"})
# Reserved words that open or continue a compound command: the command after them is what runs.
LEADING = frozenset({"!", "{", "}", "if", "then", "elif", "else", "while", "until", "do", "coproc"})
# Reserved words that start something that is not a command (a loop's word list, a case subject, a definition).
NOT_COMMANDS = frozenset({"for", "select", "case", "function", "fi", "done", "esac", "in", "}"})
_WORD_END = frozenset(" \t\r\n;&|()<>")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "v": "\v",
            "\\": "\\", "'": "'", '"': '"', "?": "?"}
MAX_DEPTH = 4


class Word:
    """One word: its value after quote removal, its span in the text, the scripts it substitutes."""

    __slots__ = ("value", "start", "end", "quoted", "scripts")

    def __init__(self, value: str, start: int, end: int, quoted: bool, scripts: list[str]) -> None:
        self.value, self.start, self.end, self.quoted, self.scripts = value, start, end, quoted, scripts

    def __repr__(self) -> str:
        return f"Word({self.value!r})"


class Command:
    """A simple command: its words (assignments and wrappers included) and its redirections (op, target)."""

    __slots__ = ("words", "redirects", "depth")

    def __init__(self, words: list[Word], redirects: list[tuple[str, Word]], depth: int) -> None:
        self.words, self.redirects, self.depth = words, redirects, depth

    @property
    def argv(self) -> list[str]:
        return [w.value for w in self.words]

    def __repr__(self) -> str:
        return f"Command({self.argv!r}, redirects={[(op, w.value) for op, w in self.redirects]!r})"


def _balanced(text: str, i: int, opener: str, closer: str) -> int:
    """Index just past the ``closer`` matching the ``opener`` before ``i`` (quotes respected), or len(text)."""
    depth, n = 1, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if opener == "(" and text.startswith("<<", i) and not text.startswith("<<<", i):
            i = _past_heredoc(text, i + 2)
            continue
        if c == "'" and opener == "(":
            close = text.find("'", i + 1)
            i = n if close < 0 else close + 1
            continue
        if c == '"' and opener == "(":
            i = _double_quoted(text, i + 1)[1]
            continue
        if text.startswith("$(", i) or (c == "(" and opener == "("):
            depth += 1
            i += 2 if c == "$" else 1
            continue
        if c == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _past_heredoc(text: str, i: int) -> int:
    """Inside ``$(…)``: past a heredoc's delimiter word (at ``i``, after ``<<``) and its body, so a quote or a
    parenthesis in the body (a commit message's "don't") cannot unbalance the substitution."""
    strip_tabs = text.startswith("-", i)
    i += strip_tabs
    while i < len(text) and text[i] in " \t":
        i += 1
    word, end = _word(text, i)
    newline = text.find("\n", end)
    if not word.value or newline < 0:
        return end
    return _skip_heredocs(text, newline + 1, [(word.value, strip_tabs)])


def _double_quoted(text: str, i: int, scripts: list[str] | None = None) -> tuple[str, int]:
    """The value of a double-quoted string whose opening quote ends before ``i``, and the index past its end."""
    out: list[str] = []
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        if c == "$" and text.startswith("$(", i) and not text.startswith("$((", i):
            end = _balanced(text, i + 2, "(", ")")
            if scripts is not None:
                scripts.append(text[i + 2:end - 1])
            out.append(text[i:end])
            i = end
            continue
        if c == "`":
            end = text.find("`", i + 1)
            end = n if end < 0 else end
            if scripts is not None:
                scripts.append(text[i + 1:end])
            out.append(text[i:end + 1])
            i = end + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), n


def _ansi_c(text: str, i: int) -> tuple[str, int]:
    """``$'…'`` from just past its quote: escapes decoded (``\\x67`` is ``g``), the index past its end."""
    out: list[str] = []
    n = len(text)
    while i < n and text[i] != "'":
        c = text[i]
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in "xuU":
                size = {"x": 2, "u": 4, "U": 8}[nxt]
                digits = ""
                while len(digits) < size and i + 2 + len(digits) < n and text[i + 2 + len(digits)] in "0123456789abcdefABCDEF":
                    digits += text[i + 2 + len(digits)]
                if digits:
                    out.append(chr(min(int(digits, 16), 0x10FFFF)))
                    i += 2 + len(digits)
                    continue
            elif nxt in "01234567":
                digits = nxt
                while len(digits) < 3 and i + 1 + len(digits) < n and text[i + 1 + len(digits)] in "01234567":
                    digits += text[i + 1 + len(digits)]
                out.append(chr(int(digits, 8)))
                i += 1 + len(digits)
                continue
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out), i + 1


def _word(text: str, i: int) -> tuple[Word, int]:  # long: one pass over a word's quoting forms
    """The word starting at ``i`` (quotes removed, substitutions noted) and the index past it."""
    start, n = i, len(text)
    out: list[str] = []
    scripts: list[str] = []
    quoted = False
    while i < n and (text[i] not in _WORD_END or text[i] in "<>" and text.startswith("(", i + 1)):
        c = text[i]
        if c == "\\":
            if i + 1 < n and text[i + 1] != "\n":
                out.append(text[i + 1])
            quoted = True
            i += 2
        elif c == "'":
            close = text.find("'", i + 1)
            close = n if close < 0 else close
            out.append(text[i + 1:close])
            quoted, i = True, close + 1
        elif c == '"':
            value, i = _double_quoted(text, i + 1, scripts)
            out.append(value)
            quoted = True
        elif c == "$" and text.startswith("$'", i):
            value, i = _ansi_c(text, i + 2)
            out.append(value)
            quoted = True
        elif c == "$" and text.startswith("$(", i):
            end = _balanced(text, i + 2, "(", ")")
            if not text.startswith("$((", i):
                scripts.append(text[i + 2:end - 1])
            out.append(text[i:end])
            i = end
        elif c == "$" and text.startswith("${", i):
            end = _balanced(text, i + 2, "{", "}")
            out.append(text[i:end])
            i = end
        elif c == "`":
            end = text.find("`", i + 1)
            end = n if end < 0 else end
            scripts.append(text[i + 1:end])
            out.append(text[i:end + 1])
            i = end + 1
        elif c in "<>" and i + 1 < n and text[i + 1] == "(":  # process substitution <(cmd) / >(cmd)
            end = _balanced(text, i + 2, "(", ")")
            scripts.append(text[i + 2:end - 1])
            out.append(text[i:end])
            i = end
        else:
            out.append(c)
            i += 1
    return Word("".join(out), start, i, quoted, scripts), i


def tokens(text: str) -> Iterator[str | Word]:  # long: the lexer's one loop, heredocs included
    """Operators (as strings) and words (as :class:`Word`); heredoc bodies and comments are skipped."""
    i, n = 0, len(text)
    pending: list[tuple[str, bool]] = []  # heredoc delimiters waiting for the next newline
    expect_delimiter = ""
    at_word_start = True
    while i < n:
        c = text[i]
        if c in " \t\r":
            i += 1
            at_word_start = True
            continue
        if c == "\\" and text.startswith("\\\n", i):
            i += 2
            continue
        if c == "#" and at_word_start:
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
            continue
        if c == "\n" and pending:
            i = _skip_heredocs(text, i + 1, pending)
            pending = []
            yield "\n"
            continue
        op = next((o for o in OPERATORS if text.startswith(o, i)), None)
        if op is not None and not (op in "<>" and i + 1 < n and text[i + 1] == "("):
            i += len(op)
            at_word_start = True
            if op in ("<<", "<<-"):
                expect_delimiter = op
                continue
            yield op
            continue
        if c.isdigit():  # a file descriptor glued to a redirection: 2>&1, 2>/dev/null
            j = i
            while j < n and text[j].isdigit():
                j += 1
            if j < n and text[j] in "<>":
                i = j
                continue
        word, after = _word(text, i)
        i = after if after > i else i + 1  # always move on: a character no rule reads is skipped, never looped on
        at_word_start = False
        if expect_delimiter:
            pending.append((word.value, expect_delimiter == "<<-"))
            expect_delimiter = ""
            continue
        yield word


def _skip_heredocs(text: str, i: int, pending: list[tuple[str, bool]]) -> int:
    """Index past the bodies of the pending heredocs, which start at ``i``."""
    for delimiter, strip_tabs in pending:
        while i < len(text):
            newline = text.find("\n", i)
            line = text[i:] if newline < 0 else text[i:newline]
            i = len(text) if newline < 0 else newline + 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
    return i


def parse(text: str, depth: int = 0) -> list[Command]:
    """Every simple command in ``text``, those inside substitutions included (after their own command)."""
    found: list[Command] = []
    words: list[Word] = []
    redirects: list[tuple[str, Word]] = []
    target_of = ""
    for token in tokens(text):
        if isinstance(token, Word):
            if target_of:
                redirects.append((target_of, token))
                target_of = ""
            else:
                words.append(token)
            continue
        if token in REDIRECTS:
            target_of = token
            continue
        target_of = ""
        if token in SEPARATORS:
            _close(words, redirects, depth, found)
            words, redirects = [], []
    _close(words, redirects, depth, found)
    if depth < MAX_DEPTH:
        for command in list(found):
            for word in command.words + [w for _, w in command.redirects]:
                for script in word.scripts:
                    found.extend(parse(script, depth + 1))
    return found


def _close(words: list[Word], redirects: list[tuple[str, Word]], depth: int, found: list[Command]) -> None:
    while words and not words[0].quoted and words[0].value in LEADING:
        words = words[1:]
    if words and not words[0].quoted and words[0].value in NOT_COMMANDS:
        words = []
    if words and words[-1].value == "}" and not words[-1].quoted:
        words = words[:-1]
    if words or redirects:
        found.append(Command(words, redirects, depth))


def simple_commands(text: str) -> list[list[str]]:
    """Each simple command's words (values), substitutions included."""
    return [c.argv for c in parse(text) if c.words]


# shlex.quote's safe characters (``[\w@%+=:,./-]`` under re.ASCII), without importing shlex (and so re and enum:
# ~25 M instructions on the PreToolUse hook that stops a call and shows the command to run instead).
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def quote(word: str) -> str:
    """``shlex.quote``: the word as one shell word (tests/test_shellparse.py compares the two)."""
    if not word:
        return "''"
    if _SAFE.issuperset(word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def join(words: list[str]) -> str:
    """``shlex.join``: the words as a command line that the shell splits back into them."""
    return " ".join(quote(word) for word in words)
