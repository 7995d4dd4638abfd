"""Configuration files by their format (issue #27.4), and Read results with line numbers.

A recorded text is often a whole config file or a piece of one, and often a Read tool result whose
``     1\\t`` / ``  12→`` line numbers defeat rules anchored at the start of a line. Two mechanisms:

- ``find_numbered``: when most lines of a text carry a line number, the text is scanned a second
  time with the numbers stripped, and the findings are mapped back onto the original characters
  (as ``decode.py`` does for escapes);
- ``FORMAT_RULES``: the credential idioms of config formats where no ``name = value`` pair says it:
  a conf directive (``requirepass …``, ``masterauth …``: a secret name, a space, one value), a
  name/value pair of a list item (Kubernetes ``- name: DB_PASSWORD`` / ``value: …``, ECS,
  Hadoop ``<name>…password</name><value>…</value>``), an ``Authorization`` header with any scheme
  word (``Key …``, ``Custom …``), pgbouncer's ``"user" "password"`` lines and JDBC thin URLs
  (``jdbc:oracle:thin:scott/…@host``).
Recorded text is fragments, so the rules read one line or one pair at a time, no parser needed.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from .names import name_says_secret
from .patterns import LazyPattern, Rule, Span
from .values import credential_like, is_placeholder

_NUMBERED = LazyPattern(r"^ *\d{1,7}(?:\t|→)", re.M)


def find_numbered(text: str, finder: Callable[[str], list[Span]]) -> list[Span]:
    """Spans ``finder`` reports on ``text`` with its line numbers stripped, mapped back."""
    if "\t" not in text and "→" not in text:
        return []
    lines = text.split("\n")
    numbered = [_NUMBERED.match(line) for line in lines]
    if sum(1 for m in numbered if m) * 2 < sum(1 for line in lines if line.strip()):
        return []
    stripped_starts: list[int] = []
    orig_starts: list[int] = []
    pieces: list[str] = []
    orig = dec = 0
    for line, m in zip(lines, numbered):
        cut = m.end() if m else 0
        stripped_starts.append(dec)
        orig_starts.append(orig + cut)
        pieces.append(line[cut:])
        dec += len(line) - cut + 1
        orig += len(line) + 1
    view = "\n".join(pieces)

    def to_orig(i: int) -> int:
        k = bisect.bisect_right(stripped_starts, i) - 1
        return orig_starts[k] + (i - stripped_starts[k])

    return [(kind, to_orig(start), to_orig(end - 1) + 1) for kind, start, end in finder(view)]


# --- format idioms ------------------------------------------------------------------------------

_DIRECTIVES = frozenset({"masterauth", "requirepass", "masteruser", "psk", "wpa_psk", "auth_pass", "bindpw",
                         "rootpw", "rpcpassword", "smtp_pass", "secret"})
# A value may hold ``#`` (a comment starts at a blank: ``requirepass a#b # the old one``).
_DIRECTIVE = LazyPattern(
    r"^[ \t]*(?P<name>[A-Za-z][\w.\-]{1,40})[ \t]+(?P<value>[^\s#;][^\s;]{3,199})[ \t]*;?[ \t]*(?:#[^\n]*)?$", re.M)


def _directive(m: re.Match[str], text: str) -> Span | None:
    name = m.group("name")
    if name.lower() not in _DIRECTIVES and name_says_secret(name) != "strong":
        return None
    value = m.group("value").strip("\"'")
    from .listing import config_value_safe  # a directive's value is a literal: masked unless a known-safe shape

    if is_placeholder(value) or not any(c.isdigit() or not c.isalnum() for c in value) or \
            config_value_safe(value, name, quoted=True):
        return None
    start = m.start("value") + (1 if m.group("value")[0] in "\"'" else 0)
    return ("password", start, start + len(value))


_PAIR = LazyPattern(
    r"""(?i:\bname)["']?[ \t]*[:=][ \t]*["']?(?P<name>[A-Za-z_][\w.\-]{1,80})["']?[ \t]*,?[ \t]*\r?\n?[ \t]*
    (?:-[ \t]*)?["']?(?i:value)["']?[ \t]*[:=][ \t]*(?P<q>["']?)(?P<value>[^\s"',}]{4,300})""",
    re.X,
)
_XML_PAIR = LazyPattern(r"<name>[ \t]*(?P<name>[\w.\-]{1,80})[ \t]*</name>\s{0,40}<value>(?P<value>[^<\n]{4,300})</value>")


def _pair(m: re.Match[str], text: str) -> Span | None:
    strength = name_says_secret(m.group("name"))
    value = m.group("value")
    if strength is None or is_placeholder(value) or value.startswith("$"):
        return None
    if strength == "weak" and not credential_like(value):
        return None
    return ("password" if strength == "strong" else "secret", m.start("value"), m.end("value"))


_AUTH_HEADER = LazyPattern(
    r"""(?i:\b(?:proxy-)?authorization)["']?[ \t]*[:=,]?[ \t]*["']?(?P<scheme>[A-Za-z][\w\-]{1,20})[ \t]+
    (?P<value>[^\s"',;]{8,500})""",
    re.X,
)


def _auth_header(m: re.Match[str], text: str) -> Span | None:
    value = m.group("value")
    if is_placeholder(value) or value.startswith(("$", "[REDACTED")):
        return None
    from .listing import config_value_safe  # a header's credential is masked unless a known-safe shape

    mixed = any(c.isdigit() for c in value) or any(c.isupper() for c in value) and any(c.islower() for c in value)
    if not credential_like(value.split("=")[-1]) and (not mixed or config_value_safe(value, "authorization")):
        return None  # Bearer <token>, Basic base64(user:pass); not Key VR62.UjQkOtoDXq
    return ("auth_header", m.start("value"), m.end("value"))


_USERLIST = LazyPattern(r'(?:^|(?<=: ))[ \t]*"[^"\n]{1,64}"[ \t]+"(?P<value>[^"\n]{6,300})"[ \t]*$', re.M)  # also "…: "u" "pw"


def _userlist(m: re.Match[str], text: str) -> Span | None:
    value = m.group("value")
    from .listing import config_value_safe

    if " " in value or "/" in value or value.startswith("$") or \
            not credential_like(value, strong=True) and config_value_safe(value, "password"):
        return None  # "app" "md5…" stays a hash line's business; "QN15.VjHzbjHpLF" is no dotted name
    return ("password", m.start("value"), m.end("value"))


_JDBC_THIN = LazyPattern(r"jdbc:oracle:(?:thin|oci):(?P<user>[\w.$#]{1,64})/(?P<value>[^\s\"']{1,200})@[\w.\-]+[:/]")


def _jdbc_thin(m: re.Match[str], text: str) -> Span | None:
    if is_placeholder(m.group("value")):
        return None
    return ("password", m.start("value"), m.end("value"))


FORMAT_RULES: list[Rule] = [
    ((), _DIRECTIVE, _directive),
    (("value",), _PAIR, _pair),
    (("<value>",), _XML_PAIR, _pair),
    (("authorization",), _AUTH_HEADER, _auth_header),
    (('"',), _USERLIST, _userlist),
    (("jdbc:oracle",), _JDBC_THIN, _jdbc_thin),
]
