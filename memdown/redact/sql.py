"""Credentials in SQL statements (issue #27.4): the value of a credential clause is masked.

A SQL statement that creates or changes a login carries its password in a clause the dialects share:
``IDENTIFIED [WITH plugin] BY v`` (Oracle, MySQL, MariaDB, ClickHouse, Vertica; also ``CONNECT TO u
IDENTIFIED BY v`` of a database link and ``GRANT … IDENTIFIED BY v``), ``[ENCRYPTED] PASSWORD [=] v``
(PostgreSQL, SQL Server ``WITH PASSWORD = N'v'``, ``ENCRYPTION BY PASSWORD = 'v'``, Snowflake, Cassandra,
Teradata ``AS PASSWORD = v``, Neo4j ``SET PASSWORD 'v'``, a foreign server's ``OPTIONS (password 'v')``),
``SET PASSWORD [FOR u] = [PASSWORD(]v`` (MySQL) and the password arguments of SQL Server's
``sp_addlogin``/``sp_password``. Redis ACLs say it with ``>v`` after ``ACL SETUSER``.

The statement is read by **sqlparse**'s lexer (a maintained tokenizer: string literals with their
quoting -- ``'it''s'``, ``N'…'``, ``$$…$$`` --, comments, keywords), and only when a SQL verb starts
the statement on the same line (``CREATE``, ``ALTER``, ``GRANT``, ``SET``, ``EXEC``, ``MODIFY``…), so
"identified by their e-mail" in a sentence is no clause. The value is a string literal's content or,
unquoted, the run of text up to the next blank (a password holds ``+ = @ #`` that the lexer splits).
Kept (known-safe): a bind variable or expansion (``?``, ``:pw``, ``@pw``, ``&pw``, ``$1``, ``%s``,
``${PW}``, ``{{ pw }}``), a placeholder (``'***'``, ``<password>``, ``password``), ``NULL``, a SQL
keyword (``PASSWORD EXPIRE``), and a function call other than ``PASSWORD(…)``.

sqlparse costs ~70 ms to import, so it is imported only when a line holds a clause word after a SQL
verb; a statement is read to at most ``MAX_STATEMENT`` characters (the lexer is linear but slow on
adversarial text: ~25 µs a character).
"""
from __future__ import annotations

import re

from .patterns import LazyPattern, Span
from .values import is_placeholder

KIND = "sql_password"
MAX_STATEMENT = 600
# A statement verb, then on the same line (within the statement) a clause word.
_CLAUSE = LazyPattern(
    r"(?i)(?<![\w.\-])(?P<verb>create|alter|grant|set|exec|execute|modify|connect|open|replace|call)\b"
    r"(?P<body>[^;\n]{0,300}?)\b(?:identified|password|passwd|sp_addlogin|sp_password)\b")
_REDIS_ACL = LazyPattern(r"(?i)\bacl[ \t]+setuser[ \t]+\S+(?P<rules>[^\n]{0,400})")
_ACL_PASSWORD = LazyPattern(r"(?<!\S)>(?P<v>\S+)")
_REFERENCE = LazyPattern(r"""[?]|:(?:'\w+'|"\w+")|[:@&]{1,2}[A-Za-z_]\w*|\$\d+|%\(?\w*\)?s|\$\{[^}]*\}|\{\{.*\}\}|\{\w+\}""")
_TRAILING = ";,)"
_NOT_VALUE_WORDS = frozenset(
    "null expire expired lock unlock default for from to is not and or where with by as on in set "
    "valid until never none externally globally value values".split())
_PROCS = {"sp_addlogin": (1,), "sp_password": (0, 1)}


def find_sql_credentials(text: str) -> list[Span]:
    """``(KIND, start, end)`` for each value of a SQL credential clause that is not a known-safe shape."""
    low = text.lower()
    spans: list[Span] = []
    if "setuser" in low:
        spans += _redis_acl(text)
    if "identified" not in low and "passw" not in low and "sp_" not in low:
        return spans
    pos = 0
    while True:
        m = _CLAUSE.search(text, pos)
        if m is None:
            break
        end = _statement_end(text, m.start())
        spans += _clause_values(text, m.start(), end)
        pos = max(end, m.end())
    return spans


def _statement_end(text: str, start: int) -> int:
    """The end of the line the statement starts on, at most ``MAX_STATEMENT`` characters on."""
    stop = text.find("\n", start, start + MAX_STATEMENT)
    return stop if stop >= 0 else min(len(text), start + MAX_STATEMENT)


# When sqlparse is not installed yet (an environment made before it became a dependency), a reading that
# still masks: string literals (``'it''s'``, ``"x"``, ``$tag$…$tag$``), words, single punctuation.
_FALLBACK = LazyPattern(r"""(?P<string>'(?:[^'\n]|'')*'|"[^"\n]*"|\$(?P<tag>\w{0,20})\$.*?\$(?P=tag)\$)|(?P<name>[\w@#$]+)|(?P<punct>\S)""")


def _tokens(segment: str) -> list[tuple[str, str, int]]:
    """``(type, value, offset)`` of each non-blank token of ``segment``."""
    try:
        from sqlparse import lexer, tokens  # ~70 ms: only for a line that holds a credential clause
    except ImportError:
        return [("string" if m.group("string") else m.lastgroup, m.group(), m.start())
                for m in _FALLBACK.finditer(segment)]
    out: list[tuple[str, str, int]] = []
    offset = 0
    for ttype, value in lexer.Lexer.get_default_instance().get_tokens(segment):
        if ttype not in tokens.Whitespace and ttype not in tokens.Newline and ttype not in tokens.Comment:
            kind = "string" if ttype in tokens.String or ttype in tokens.Literal and value.startswith("$") else \
                "keyword" if ttype in tokens.Keyword else "punct" if ttype in tokens.Punctuation or \
                ttype in tokens.Operator else "name"
            out.append((kind, value, offset))
        offset += len(value)
    return out


def _clause_values(text: str, start: int, end: int) -> list[Span]:
    segment = text[start:end]
    toks = _tokens(segment)
    words = [v.lower() if k != "string" else "" for k, v, _o in toks]
    spans: list[Span] = []
    for i, word in enumerate(words):
        value_at: list[int] = []
        if word == "identified":
            j = i + 1
            if j < len(words) and words[j] == "with":
                j += 2  # IDENTIFIED WITH mysql_native_password BY / AS
            if j < len(words) and words[j] in ("by", "as"):
                j += 1
                if j < len(words) and words[j] in ("password", "values"):
                    j += 1  # IDENTIFIED BY PASSWORD '*hash', BY VALUES 'hash'
                value_at.append(j)
        elif word in ("password", "passwd"):
            value_at += _after_password(toks, words, i)
        elif word in _PROCS:
            value_at += [j for n, j in enumerate(_literal_args(toks, i + 1)) if n in _PROCS[word]]
        for j in value_at:
            span = _value_span(segment, toks, j)
            if span is not None:
                spans.append((KIND, start + span[0], start + span[1]))
    return spans


def _after_password(toks: list[tuple[str, str, int]], words: list[str], i: int) -> list[int]:
    """The token index of the value a ``PASSWORD`` word sets, or none (a column named password)."""
    j = i + 1
    if j < len(words) and words[j] == "for":  # SET PASSWORD FOR 'u'@'h' = …
        k = j + 1
        while k < len(words) and k < j + 8 and words[k] != "=":
            k += 1
        j = k
    if j < len(words) and words[j] in ("=", "("):
        j += 1
        if j < len(words) and words[j] == "password":  # = PASSWORD('…')
            return _after_password(toks, words, j)
        return [j]
    if j < len(toks) and toks[j][0] == "string":
        return [j]  # PASSWORD 'x'
    previous = words[i - 1] if i else ""
    if previous in ("with", "encrypted", "unencrypted", "as", "by", "set", "login", ",") and j < len(toks) \
            and not toks[j][1].isalpha():
        return [j]  # WITH PASSWORD x, unquoted; a word after it is prose ("set password permanently")
    return []


def _literal_args(toks: list[tuple[str, str, int]], j: int) -> list[int]:
    """Token indexes of a procedure's arguments (``EXEC sp_addlogin 'u', 'pw'``; ``@name = v`` too)."""
    out: list[int] = []
    while j < len(toks) and len(out) < 4:
        kind, value, _o = toks[j]
        if value == "(":
            j += 1
            continue
        if kind == "name" and value.startswith("@") and j + 1 < len(toks) and toks[j + 1][1] == "=":
            j += 2
            continue
        out.append(j)
        j += 1
        if j >= len(toks) or toks[j][1] != ",":
            break
        j += 1
    return out


def _value_span(segment: str, toks: list[tuple[str, str, int]], j: int) -> tuple[int, int] | None:
    if j >= len(toks):
        return None
    kind, value, offset = toks[j]
    if kind == "name" and value.upper() in ("N", "E", "B", "X", "U&") and j + 1 < len(toks) and \
            toks[j + 1][0] == "string" and toks[j + 1][2] == offset + len(value):
        kind, value, offset = toks[j + 1]  # N'…', E'…'
    if kind == "string":
        quote = value[: value.index(value[-1], 1) + 1] if value.startswith("$") else value[0]
        inner_start, inner_end = offset + len(quote), offset + len(value) - len(quote)
        return _judged(segment, inner_start, inner_end)
    if kind == "punct" and value not in ("@", "&", ":", "?", "$", "#", "*", "!", "+", "-", "~", "^", "%"):
        return None
    stop = offset
    while stop < len(segment) and not segment[stop].isspace():
        stop += 1
    raw = segment[offset:stop]
    trimmed = raw.rstrip(_TRAILING)
    if "(" in trimmed:
        return None  # a function computes it: crypt('…', gen_salt('bf')), HMAC-SHA256(email) (a literal inside is its own business)
    if not any(c.isalnum() for c in trimmed) or trimmed.lower() in _NOT_VALUE_WORDS or \
            kind == "keyword" and trimmed.isalpha():
        return None
    return _judged(segment, offset, offset + len(trimmed))


def _judged(segment: str, start: int, end: int) -> tuple[int, int] | None:
    """The value's span unless it is a known-safe shape: empty, a reference, a placeholder."""
    value = segment[start:end]
    if not value.strip() or _REFERENCE.fullmatch(value) or is_placeholder(value) or value.lower() in (
            "password", "passwd", "pwd", "secret", "pass"):
        return None
    return start, end


def _redis_acl(text: str) -> list[Span]:
    """``ACL SETUSER app on >pw ~keys:* +@read``: each ``>pw`` rule adds a password (``#hash`` is a hash)."""
    spans: list[Span] = []
    for m in _REDIS_ACL.finditer(text):
        for rule in _ACL_PASSWORD.finditer(m.group("rules")):
            value = rule.group("v").rstrip(_TRAILING + "'\"`")
            if value and not _REFERENCE.fullmatch(value) and not is_placeholder(value):
                start = m.start("rules") + rule.start("v")
                spans.append((KIND, start, start + len(value)))
    return spans
