"""Config and key/value listings keep what is known to be safe (issue #27 item 4).

The rules of ``general``/``formats`` mask a value after a secret name when it *looks like* data, so
a password shaped like a file name or an attribute (``POSTGRES_PASSWORD=qvj2JwnPV.eu``,
``pass: Way93.ACgpl``) was kept. Where a text is recognizably a config (a line ``key = value``,
``key: value``, ``KEY=value``, ``- KEY=value``, ``"key": "value",`` beside another such line or a
``[section]`` / ``parent:`` header) the rule turns around, as for commands: a value under a key
that names a credential is masked unless it is a known-safe shape (``config_value_safe``):
empty, a placeholder or variable (``${VAR}``, ``changeme``, ``<password>``, ``****``), a number,
a boolean, a path, a URL without userinfo, words (``kube-system``, ``hashed``, ``String``), a
code reference of names (``self.password``, ``settings.DB_PASS``) or the key's own name.

Credential files by their format (``find_credential_pairs``): an OpenVPN ``auth-user-pass`` file
is a user-name line and a password line with nothing else on them, so two such one-word lines,
alone between prose, blank lines, comments or a fence, lose the second one unless it is a safe shape
(``commands``' judgement: word-like runs, paths, hex ids, versions). ``.pgpass``/netrc lines are
read by ``general``/``context``.

Line by line with anchored patterns (no backtracking across lines); lines over ``MAX_LINE`` are data.
"""
from __future__ import annotations

import re

from .names import name_says_secret
from .patterns import LazyPattern, Span
from .values import PATH_LIKE, code_reference, is_placeholder, name_like

MAX_LINE = 2000
KIND = "config"  # judged here already: find_secrets' known-safe filter leaves it alone
_KV = LazyPattern(
    r"""[ \t]*(?:-[ \t]+|export[ \t]+)?(?P<q>["']?)(?P<key>[A-Za-z_][\w.\-]{0,80})(?P=q)[ \t]*
    (?P<sep>=>|:=|=|:)[ \t]*(?:"(?P<dq>[^"\n]*)"|'(?P<sq>[^'\n]*)'|(?P<bare>(?:[^\s"'`](?:[^"'`\n]{0,300}?[^\s"'`])?)?))[ \t]*[,;]?[ \t]*\r?$""",
    re.X,
)
_HEADER = LazyPattern(r"[ \t]*(?:\[[^\]\n]{1,80}\]|[A-Za-z_][\w.\-]{0,80}:|[{}\[\]],?)[ \t]*\r?$")
_COMMENT = LazyPattern(r"[ \t]*(?:#|;|//|<!--)")
_NUMBER = LazyPattern(r"[-+]?\d+(?:\.\d+)?|[~^<>=v]{0,2}\d+(?:\.\d+)+(?:[-+][\w.]+)?")  # 8, 0.5, ^5.0.0
_WORDS = LazyPattern(r"[A-Za-z]+(?:[-_ ][A-Za-z]+)*[?!]?")
_OPENS = LazyPattern(r"[|>][-+]?|[A-Za-z_$][\w.$]*[{\[(]|[{\[(][ \t]*[}\])]?")  # `{`, `[]`, `fields.Char(`, `|`
_URL = LazyPattern(r"[a-z][a-z0-9+.\-]*://(?P<authority>[^/\s?#]*)")
_ONE_WORD = LazyPattern(r"[ \t]*(?P<word>[!-~]{2,200})[ \t]*\r?")
_USER = LazyPattern(r"[a-z][a-z0-9._@\-]{1,63}")
_NOT_PASSWORD = LazyPattern(r"[(){}\[\]<>;,:'\"`$\\]|^[A-Za-z_]\w*=|^[-./@]")  # code, an assignment, a flag
_FENCE = LazyPattern(r"[ \t]*(?:```|~~~)")
_EMAIL = LazyPattern(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+")


# Words that make a value with blanks a sentence or a message, not a passphrase (en, de, fr, es, it, pt, nl).
_FUNCTION_WORDS = frozenset(
    "a an the is are was be been to of for in on at by with and or not no your my our you we it this that if "
    "must should please enter use from as will can may here there when then than "
    "der die das und ist ein eine nicht le la les un une et est de du des pas el los y es il di che o em um uma "
    "het een en niet".split())
_MESSAGE_WORD = LazyPattern(
    r"(?i)\b(?:pass(?:word|phrase)?s?|secrets?|tokens?|keys?|credentials?|auth\w*|login|user(?:name)?s?)\b")


def _sentence(value: str) -> bool:
    """A value with blanks that reads as a sentence, a message or code (``Password is required``, ``Enter
    your password.``, ``get(a, b)``), not a passphrase (``correct horse battery staple``)."""
    words = value.split()
    if value[-1] in ".!?:" or len(words) > 6 or any(c in value for c in "(){}[]<>=;$%`\"'|\\"):
        return True
    return any(w.lower().strip(",;") in _FUNCTION_WORDS for w in words) or bool(_MESSAGE_WORD.search(value))


def config_value_safe(value: str, key: str, quoted: bool = False) -> bool:
    """Is ``value`` under a credential ``key`` in a config a shape that is known not to be a secret?
    ``quoted``: the value is a literal (a quoted string, or any value of a format without code: env,
    INI, YAML, a conf directive), so only an expansion (``${VAR}``) is a reference, never ``a.b`` or ``f(x)``."""
    from .values import mixed_like_generated

    v = value.strip()
    spaced = any(c.isspace() for c in v)
    if spaced and (_sentence(v) or all(is_placeholder(w) for w in v.split())):
        return True  # a message, code, or a placeholder in groups ("xxxx xxxx xxxx xxxx")
    if not v or _OPENS.fullmatch(v) or is_placeholder(v) or v.lower() == key.rsplit(".", 1)[-1].lower() or _NUMBER.fullmatch(v):
        return True
    if PATH_LIKE.match(v) or re.match(r"[A-Za-z]:\\", v):
        return not any(mixed_like_generated(p) for p in re.split(r"[/\\]", v))
    url = _URL.match(v)
    if url:
        return "@" not in url.group("authority")
    if _WORDS.fullmatch(v) and not spaced:  # kube-system, hashed: a name; words with blanks: a passphrase
        return all(name_like(w) for w in re.split(r"[-_]", v.rstrip("?!")))
    return code_reference(v, quoted=quoted)  # self.password, Config::Secret, savedRefresh, getpass(): code names it


def _kv(line: str) -> re.Match[str] | None:
    return _KV.match(line) if len(line) <= MAX_LINE else None


def _listing_line(line: str) -> bool:
    return bool(line.strip()) and (_kv(line) is not None or _HEADER.match(line) is not None)


def find_listing_values(text: str) -> list[Span]:
    """``("config", start, end)`` for each credential value of a key/value listing that is not a safe shape."""
    if "=" not in text and ":" not in text:
        return []
    lines = text.split("\n")
    spans: list[Span] = []
    pos = 0
    starts = []
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    for i, line in enumerate(lines):
        m = _kv(line)
        if m is None:
            continue
        value_group = next((g for g in ("dq", "sq", "bare") if m.group(g) is not None), None)
        if value_group is None or not m.group(value_group):
            continue
        strength = name_says_secret(m.group("key"))
        if strength is None or not _in_listing(lines, i):
            continue
        value = m.group(value_group)
        literal = value_group != "bare" or _literal_format(lines, i, m)
        if value.startswith("[REDACTED:") or config_value_safe(value, m.group("key"), literal):
            continue
        if strength == "weak" and _weak_value_safe(value):
            continue
        spans.append((KIND, starts[i] + m.start(value_group), starts[i] + m.end(value_group)))
    return spans


_CODE_END = (",", ";", "{", "(", "[")


def _literal_format(lines: list[str], i: int, m: re.Match[str]) -> bool:
    """Is the listing line ``i`` in a format without code, where a bare value is a literal (``DB_PASSWORD=a.b``,
    YAML ``pass: hunter.twotwo.prod``)? Code ends its lines with ``,``/``;``
    or opens blocks (``Password: reg.Password,``, ``password = self.pw`` among Python lines)."""
    line = lines[i]
    if line.rstrip().endswith((",", ";")):
        return False
    sep_start, sep_end = m.start("sep"), m.end("sep")
    if m.group("sep") == "=" and line[sep_start - 1:sep_start] not in (" ", "\t") and line[sep_end:sep_end + 1] not in (" ", "\t"):
        return True  # KEY=value: env, properties, shell
    if m.group("sep") != ":":  # ``key = value`` is Python as often as INI: its references stay references
        return False
    near = lines[max(0, i - 2):i + 3]
    return not any(n.rstrip().endswith(_CODE_END) or n.strip() in ("}", "};", "},") for n in near)  # YAML


def _weak_value_safe(value: str) -> bool:
    """A weak name (``key``, ``token``, ``auth``) keeps word-like values: ``sort_key: created_at``."""
    from .commands import safe_piece

    return " " in value or safe_piece(value)


def _in_listing(lines: list[str], i: int) -> bool:
    """The nearest line above or below (past blanks and comments, within three lines) is a listing line."""
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(lines) and abs(j - i) <= 3 and (not lines[j].strip() or _COMMENT.match(lines[j])):
            j += step
        if 0 <= j < len(lines) and abs(j - i) <= 3 and _listing_line(lines[j]):
            return True
    return False


def find_credential_pairs(text: str) -> list[Span]:
    """An ``auth-user-pass`` file: a user-name line, then a password line, alone in their block (the text's
    start or end, a blank line, a comment, a code fence, or a sentence ending in ``:`` around them)."""
    if "\n" not in text:
        return []
    lines = text.split("\n")
    spans: list[Span] = []
    pos = 0
    for i, line in enumerate(lines):
        start, pos = pos, pos + len(line) + 1
        if i == 0 or len(line) > 300 or not _boundary(lines, i - 2, before=True) or not _boundary(lines, i + 1):
            continue
        user, secret = _ONE_WORD.fullmatch(lines[i - 1]), _ONE_WORD.fullmatch(line)
        if user and secret and _USER.fullmatch(user.group("word")) and _bare_secret(secret.group("word")):
            spans.append((KIND, start + secret.start("word"), start + secret.end("word")))
    return spans


def _boundary(lines: list[str], j: int, before: bool = False) -> bool:
    if j < 0 or j >= len(lines) or not lines[j].strip() or _COMMENT.match(lines[j]) or _FENCE.match(lines[j]):
        return True
    return before and " " in lines[j].strip() and lines[j].rstrip().endswith(":")  # "here it is:"


def _bare_secret(word: str) -> bool:
    """A word alone on its line after a user name that is no known-safe shape."""
    from .commands import safe_piece
    from .entropy import written_by_a_person

    if _NOT_PASSWORD.search(word) or is_placeholder(word) or len(word) < 6:
        return False
    if PATH_LIKE.match(word) or _EMAIL.fullmatch(word) or "://" in word:
        return False
    mixed = any(c.isupper() for c in word) and any(c.islower() for c in word) and any(c.isdigit() for c in word)
    return mixed or not safe_piece(word) or not written_by_a_person(word) or any(c in word for c in "!#$%*+=@^&")


# --- credential-file records, also when a sentence quotes one ------------------------------------------

# A file that holds credentials by its name: .htpasswd, rsyncd.secrets, chap-secrets, ipsec.secrets, .netrc,
# .git-credentials, ~/.aws/credentials, a mosquitto passwd file.
_CRED_FILE = LazyPattern(
    r"(?i)(?:^|(?<=[\s/~'\"`(]))(?:\.?htpasswd|\.?pgpass|[._]?netrc|[\w.\-]*[.\-]secrets|\.?[\w\-]*credentials|[\w\-]*passwd)(?!\w)")
# ``user:secret`` on a line that names such a file (htpasswd, rsyncd.secrets, a plain user list).
_USER_SECRET = LazyPattern(r"(?<![\w.:/@\-~*$\[])(?P<user>[A-Za-z_][\w.\-]{0,63}(?:@[\w\-]+(?:\.[\w\-]+)+)?):(?P<v>[^\s:'\"`]{4,200})")
# chap-secrets/pap-secrets: ``client server secret addresses`` with ``*`` or an address around the secret.
_CHAP = LazyPattern(
    r"""(?:^|(?<=:[ \t]))[ \t]*(?:"[^"\n]{1,64}"|[\w.@\\\-]{1,64})[ \t]+(?:\*|"[^"\n]{1,64}"|[\w.\-]{1,64})[ \t]+"""
    r"""(?:"(?P<q>[^"\n]{1,200})"|(?P<v>[^\s"]{1,200}))[ \t]+(?:\*|\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?)[ \t]*\r?$""", re.M)
# ipsec.secrets: ``: PSK "secret"``, ``%any : XAUTH "pw"``, ``user : EAP "pw"``.
_IPSEC = LazyPattern(r""":[ \t]*(?:PSK|XAUTH|EAP|NTLM)[ \t]+(?:"(?P<q>[^"\n]{1,200})"|(?P<v>[^\s"]{1,200}))""")
_VALUE_END = ".,;)]}>"


def find_credential_file_lines(text: str) -> list[Span]:
    """The secret of a credential file's record, in the file or quoted in a sentence about it: ``user:secret`` on a
    line that names the file, a chap-secrets line, an ipsec.secrets ``: PSK "…"``; masked unless a known-safe shape."""
    spans: list[Span] = []
    low = text.lower()
    for pattern, needles in ((_CHAP, ("*", ".")), (_IPSEC, ("PSK", "XAUTH", "EAP", "NTLM"))):
        if any(n in text for n in needles):
            for m in pattern.finditer(text):
                group = "q" if m.group("q") is not None else "v"
                value = m.group(group)
                if len(value) >= 4 and any(c.isalnum() for c in value) and not config_value_safe(value, "password", group == "q"):
                    spans.append((KIND, m.start(group), m.end(group)))
    if ":" not in text or not any(w in low for w in ("htpasswd", "pgpass", "netrc", "secrets", "passwd", "credentials")):
        return spans
    pos = 0
    for line in text.split("\n"):
        start, pos = pos, pos + len(line) + 1
        if len(line) > MAX_LINE or ":" not in line or not _CRED_FILE.search(line):
            continue
        for m in _USER_SECRET.finditer(line):
            value = m.group("v").rstrip(_VALUE_END)
            if len(value) >= 4 and not value.startswith(("/", "\\", "[REDACTED")) and not config_value_safe(value, "password"):
                spans.append((KIND, start + m.start("v"), start + m.start("v") + len(value)))
    return spans
