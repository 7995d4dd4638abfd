"""Secrets recognised by their context: ``key = value`` assignments, ``.env``
lines, CLI password flags, ``user:pass@`` URLs, auth headers and prose
("the password is ...").

Only the value is replaced, so the memory still says *which* setting was
involved: ``DATABASE_URL=[REDACTED:env]``. No maintained detector does this
value-level work with the precision needed on prose and code (detect-secrets'
keyword plugin flags whole lines and has no notion of ``password=args.pw``),
so these rules are ours.

Precision over paranoia for ordinary prose and code: ``password reset flow``,
``password_hash``, ``max_tokens=100``, ``password=`` with nothing after it
and variable references (``token=$TOKEN``, ``password=args.password``,
``key=get_key()``) stay.
"""
from __future__ import annotations

import re

from .patterns import Handler, Rule, Span
from .values import (IDENT, MARKER_PREFIX, PATH_LIKE, code_reference, credential_like,  # noqa: F401  (MARKER_PREFIX re-exported)
                     is_placeholder, secret_looking)


def _line_prefix(text: str, pos: int) -> str:
    # Only the last 200 characters matter (and this stays O(1) on huge lines).
    lo = max(0, pos - 200)
    nl = text.rfind("\n", lo, pos)
    return text[nl + 1 if nl >= 0 else lo:pos]


def verb_pass(key: str, text: str, pos: int, value: str) -> bool:
    """"all 42 tests pass: test_x", "(pass: 12/12)": the English verb before a colon and a name or count, not a
    key; a ``pass:`` key starts its line, a list item or a mapping, or holds a random value (issue #27.6)."""
    from .entropy import written_by_a_person

    return key.lower() == "pass" and not _structured_context(text, pos) and written_by_a_person(value)


def _structured_context(text: str, pos: int) -> bool:
    """Is ``pos`` where a config key starts (line start, list item, dict/JSON)?"""
    prefix = _line_prefix(text, pos)
    if not prefix.strip(" \t>*#/-"):
        return True  # line start, YAML list item, markdown quote, comment
    return prefix.rstrip()[-1:] in ("{", "(", ",", "[")



_BEARER = re.compile(
    r"(?<![A-Za-z0-9_])(?i:bearer)[ \t]+(?P<v>(?!\[REDACTED:)[A-Za-z0-9\-._~+/]+=*)"
)
_AUTH_HEADER = re.compile(
    r"(?<![A-Za-z0-9_\-])(?i:(?:proxy-)?authorization)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
    r"(?:(?P<scheme>(?i:bearer|basic|token|bot|digest|negotiate|ntlm|apikey|sso-key))[ \t]+)?"
    r"(?P<v>(?!\[REDACTED:)[^\s\"'`,;()\\]+)"
)
# user may be empty (redis://:pw@host); a password may hold "@", "#", "?": the "@" before the host ends it.
_URL_CREDS = re.compile(r"(?<=://)[^\s:/@?#\[\]]*:(?P<v>(?!\[REDACTED:)[^\s/]+?)@(?=[^\s@/?#]*(?:[/?#\s:\"'`]|$))")
_ENV_LINE = re.compile(
    r"(?:(?P<ls>^)[ \t]*(?:-[ \t]+)?(?:(?:export|ENV|ARG)[ \t]+)?|(?<=[ \t;&|(]))"
    r"(?P<key>[A-Z_][A-Z0-9_]*)(?P<pre>[ \t]*)=(?P<post>[ \t]*)"
    r"(?:\\\"(?P<eq>(?:[^\"\\\n]|\\[^\"\n])*)(?:\\\")?"  # \"value\" inside JSON-escaped text
    r"|\"(?P<dq>(?:[^\"\\\n]|\\.)*)\"?|'(?P<sq>[^'\n]*)'?|(?P<bare>(?![\"'\\])[^\s\\]+))",
    re.M,
)
_ASSIGN_KEYWORDS = r"""(?:
      password|passwd|passphrase|(?<![A-Za-z])pass|(?<![A-Za-z])pwd
    | secret
    | (?:api|access|secret|private|auth|signing|encryption|master|client)[_\-]?key
    | token
    | credentials?
    | (?<![A-Za-z])dsn
)"""
_ASSIGN = re.compile(
    r"""
    (?<![A-Za-z0-9_.\-])
    (?P<kq>["']?)
    (?P<key>[A-Za-z0-9_.\-]*?""" + _ASSIGN_KEYWORDS + r""")
    \\?(?P=kq)
    (?:[ \t]*:[ \t]*[A-Za-z_][A-Za-z0-9_.\[\], |]{0,40}?(?=[ \t]*=[^=>]))?   # a: str = ...
    (?P<pre>[ \t]*)
    (?P<sep>=>|:=|=|:)
    (?P<post>[ \t]*)
    (?:
        \\"(?P<eq>(?:[^"\\\n]|\\[^"\n])*)(?:\\")?      # \"value\" inside JSON-escaped text
      | "(?P<dq>(?:[^"\\\n]|\\.)*)"?
      | '(?P<sq>(?:[^'\\\n]|\\.)*)'?
      | (?P<bare>(?![=>"'])(?:[^\s"'`,;&<>(){}\[\]\\-]|-(?!>)|->(?=[A-Za-z_$]))+)  # $req->token: one value
    )
    """,
    re.X | re.I,
)
_CLI_FLAG = re.compile(
    r"(?<![A-Za-z0-9_\-])--?(?i:password|passwd|pass|token|api-key|apikey|secret|"
    r"client-secret|auth-token|access-token)[ \t]+"
    r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>(?![-\"'\[<$])[^\s\"'`;&|<>]+))"
)
_CURL_USER = re.compile(
    r"(?<!\S)(?:-u|--user)[ \t]+[\"']?(?P<user>[^\s:\"']+):(?P<v>(?!\[REDACTED:)[^\s\"']+)"
)

def _env_key_is_secret(key: str) -> bool:
    """The one predicate (``names.name_says_secret``: the head of the name says secret), so
    ``TOKEN_ADDRESS`` or ``SECRET_NAMESPACE`` is a name like any other; plus a connection URL and a list of keys."""
    from .names import name_says_secret

    return "DATABASE_URL" in key or key.endswith("_KEYS") or name_says_secret(key) is not None


def _template_credentials(creds: re.Match[str], url: str) -> bool:
    """Is a URL's ``user:password`` the template of one (``user:pass``, ``USER:PASSWORD``, ``{0}:{1}``)?"""
    from .safe import known_safe

    password = creds.group("v")
    return is_placeholder(password) or known_safe("url_password", password, "", url[:creds.start("v")])


def _bearer(m: re.Match[str], text: str) -> Span | None:
    v = m.group("v")
    mixed = any(c.isupper() for c in v) and any(c.islower() for c in v)
    if len(v) >= 12 and (any(c.isdigit() for c in v) or (len(v) >= 20 and mixed)):
        return ("bearer", m.start("v"), m.end("v"))
    return None


_AUTH_SCHEMES = frozenset(
    "bearer basic token bot digest negotiate ntlm apikey sso-key".split()
)


def _auth_header(m: re.Match[str], text: str) -> Span | None:
    v = m.group("v")
    if v.lower() in _AUTH_SCHEMES or is_placeholder(v) or code_reference(v, text[m.end():m.end() + 1]):
        return None
    if not m.group("scheme") and not secret_looking(v):
        return None  # "authorization: the user must ..." in prose
    return ("auth_header", m.start("v"), m.end("v"))


def _real_value(m: re.Match[str]) -> tuple[str, str] | None:
    """The matched value and its group name, None when absent or a placeholder."""
    found = _value_group(m)
    return None if found is None or is_placeholder(found[1]) else found


def _value_group(m: re.Match[str]) -> tuple[str, str] | None:
    for name in ("eq", "dq", "sq", "bare"):
        if name in m.re.groupindex and m.group(name) is not None:
            return name, m.group(name)
    return None


def _env_line(m: re.Match[str], text: str) -> Span | None:
    if m.group("pre") or m.group("post"):
        return None  # "FOO_KEY = 'x'" is code; the assignment rule judges it
    if not _env_key_is_secret(m.group("key")):
        return None
    found = _real_value(m)
    if found is None:
        return None
    name, value = found
    creds = _URL_CREDS.search(value)
    if creds and _template_credentials(creds, value):
        return None  # DATABASE_URL=postgresql://user:password@localhost/app: the words that say where they go
    if name == "bare":
        if value.isdigit() and len(value) <= 5 or PATH_LIKE.match(value):
            return None
        if code_reference(value, text[m.end():m.end() + 1]):
            return None
        if value[0] in "([{" and (value[0] == "(" or len(value) == 1 or value.startswith("[^")):
            return None  # KEYS=("a" "b") / PRIMARY_KEY={: a literal in code; GH_PAT=[^"$]: a regex
    return ("env", m.start(name), m.end(name))


def _assign_kind(key: str) -> str:
    k = key.lower()
    if "pass" in k or "pwd" in k:
        return "password"
    if "token" in k:
        return "token"
    if "secret" in k:
        return "secret"
    if "key" in k:
        return "api_key"
    if "cred" in k:
        return "credential"
    return "dsn"


def _assignment(m: re.Match[str], text: str) -> Span | None:
    from .names import name_says_secret

    found = _real_value(m)
    if found is None:
        return None
    name, value = found
    key, sep = m.group("key"), m.group("sep")
    if name_says_secret(key) is None or verb_pass(key, text, m.start("key"), value):
        return None  # a test result ("PASS: bf16 …"), a name that merely holds a secret word
    quote = {"sq": "'", "dq": '"'}.get(name)
    if quote and not m.group("kq") and text[m.start("key") - 1:m.start("key")] == quote:
        return None  # prompt='Password: ' -- the literal's closing quote is not a value's opening one
    if name != "bare":
        if not any(c.isalnum() for c in value):
            return None
        if sep == ":" and not m.group("kq") and not m.group("post"):
            return None  # 'if not token:",' -- a colon glued to a quote is not YAML
    if name == "bare":
        if m.group("kq") and value.isdigit():
            return None  # "password": 1234 in JSON is a count or an id, not a secret
        after = text[m.end():m.end() + 1]
        if code_reference(value, after) or PATH_LIKE.match(value):
            return None
        if value.lower() == key.rsplit(".", 1)[-1].lower():
            return None  # password=password (a keyword argument)
        if IDENT.match(value):
            if after in (",", ")"):
                return None  # f(password=pw, ...)
        if sep in ("=", ":=") and bool(m.group("pre")) != bool(m.group("post")):
            return None  # "password= then": prose, not an assignment
        if sep == ":" and not m.group("kq") and not _structured_context(text, m.start()):
            if not secret_looking(value):
                return None  # "the token: it expires" in prose
    return (_assign_kind(key), m.start(name), m.end(name))


def _cli_flag(m: re.Match[str], text: str) -> Span | None:
    found = _value_group(m)
    if found is None:
        return None
    name, value = found
    if is_placeholder(value) or (name == "bare" and not secret_looking(value)):
        return None
    return ("password" if "pass" in m.group().lower() else "token", m.start(name), m.end(name))


def _curl_user(m: re.Match[str], text: str) -> Span | None:
    if m.group("user").isdigit() or is_placeholder(m.group("v")) or "[REDACTED" in m.group("user"):
        return None  # docker -u 1000:1000; -u 'bob,[REDACTED:arg]': already redacted
    return ("password", m.start("v"), m.end("v"))


# (needles, pattern, handler): a rule runs only when one needle occurs in the
# lowercased text. Order is priority when two spans start at the same place.


def _group_value(kind: str, name: str = "v") -> Handler:
    def handler(m: re.Match[str], text: str) -> Span | None:
        if is_placeholder(m.group(name)):
            return None
        return (kind, m.start(name), m.end(name))

    return handler


# --- command lines: mysql -pX, sshpass -p X, docker login -p X -------------------

_VALUE = r"""(?:'(?P<sq>[^'\n]*)'|"(?P<dq>[^"\n]*)"|(?P<bare>[^\s'"`;|&]+))"""
_CLI_P = re.compile(
    r"(?<![A-Za-z0-9_\-])(?P<cmd>mysql[a-z]*|mariadb[a-z\-]*|sshpass|login|upload)(?![A-Za-z0-9_\-])"
    r"[^\n;|&]{0,200}?(?<=[ \t])"
    r"(?:-p(?P<glued>(?=[^\s\-]))|(?:-p|--password|--passwd)(?:[ \t]+|=))" + _VALUE
)


def _cli_p(m: re.Match[str], text: str) -> Span | None:
    found = _value_group(m)
    if found is None:
        return None
    name, value = found
    cmd = m.group("cmd")
    if cmd.startswith(("mysql", "mariadb")) and m.group("glued") is None:
        return None  # mysql -p db_name: -p prompts, the next word is a database
    if is_placeholder(value) or (name == "bare" and value.startswith("-")):
        return None
    return ("password", m.start(name), m.end(name))


# --- prose: "the password is X", "log in with password X" ---------------------------

_PROSE = re.compile(
    r"(?<![A-Za-z0-9_\-.])(?P<key>(?i:pass(?:word|wd|phrase|code)?|pw|pwd"
    r"|(?:(?:aws|api|access|secret|private|auth|signing|master|client)[ _\-])?(?:secret(?:[ _\-]access)?(?:[ _\-]key)?|key|token)"
    r"|credentials?|creds))(?![A-Za-z0-9_\-])"
    r"(?P<phrase>[ \t]+(?i:for|of|on|to|from|in)(?:[ \t]+[\w.@/\-]+){1,4}?)?"
    r"(?P<sep>[ \t]*(?::|=|->|=>)|[ \t]+(?i:is|was|would be|should be|will be|becomes|now))?"
    r"(?:[ \t]+(?i:now|still|just|set to|changed to))?"
    r"[ \t]+[\"'`]?(?P<v>(?!\[REDACTED:)[^\s\"'`]{6,200})"
)
_STRONG_KEYS = re.compile(r"pass|pw|secret|private|signing|master|credential|auth", re.I)
_TRAILING = ".,;:)]}>"
def _prose(m: re.Match[str], text: str) -> Span | None:
    from .entropy import written_by_a_person
    from .names import names_an_id

    value = m.group("v").rstrip(_TRAILING)
    if value.strip("*_~`").rstrip(_TRAILING).isalpha():
        return None  # "**Credential Storage**": markdown emphasis around a word
    key = m.group("key")
    strong = bool(_STRONG_KEYS.search(key))
    # Key position (issue #27.6): a separator ("password: X", "the token is X") or the word right before
    # the value ("password X"). "pass X" is the English verb ("these should pass `user.role`"), and
    # "password from email using X" a sentence: neither is a key.
    if not m.group("sep") and (m.group("phrase") or key.lower() == "pass"):
        return None
    if verb_pass(key, text, m.start(), value):
        return None
    word_before = text[max(0, m.start() - 40):m.start()].split()[-1:]
    if word_before and names_an_id(word_before[0] + " " + key):
        return None  # "File key: `…`", "the cache key: …": an id
    if not m.group("sep") and not strong:
        # "key X" / "token X" with no "is"/":" -- only an unmistakable token counts
        if not credential_like(value) or not (any(c.isdigit() for c in value) and len(value) >= 16) \
                or written_by_a_person(value):
            return None  # "changing the key `Llama-2-7b-chat-hf`": a name
    if not credential_like(value, strong=strong):
        return None
    return ("password" if "pass" in key.lower() or key.lower() in ("pw", "pwd") else "secret",
            m.start("v"), m.start("v") + len(value))


# --- URLs whose user part is the secret: https://<key>@o1.ingest.sentry.io/2 --------

_URL_KEY_USER = re.compile(r"(?<=://)(?P<v>[A-Za-z0-9_\-]{16,})@")


def _url_key_user(m: re.Match[str], text: str) -> Span | None:
    v = m.group("v")
    if not (any(c.isdigit() for c in v) and any(c.isalpha() for c in v)):
        return None
    return ("url_secret", m.start("v"), m.end("v"))


_AWS_SECRET = re.compile(
    r"(?i:aws_?secret_?(?:access_?)?key)[\"']?[ \t]*(?:=>|:=|=|:)[ \t]*[\"']?"
    r"(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
)
_SLACK_WEBHOOK = re.compile(
    r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>(?!\[)[A-Za-z0-9_/\-]+)"
)

# Order is priority when two spans start at the same place.
CONTEXT_RULES: list[Rule] = [
    (("secret",), _AWS_SECRET, _group_value("aws_secret_key")),
    (("hooks.slack.com",), _SLACK_WEBHOOK, _group_value("slack_webhook")),
    (("bearer",), _BEARER, _bearer),
    (("authorization",), _AUTH_HEADER, _auth_header),
    (("://",), _URL_CREDS, _group_value("url_password")),
    (("://",), _URL_KEY_USER, _url_key_user),
    (("=",), _ENV_LINE, _env_line),
    (("=", ":"), _ASSIGN, _assignment),
    (("-pass", "-token", "-api", "-secret", "-client", "-auth", "-access"), _CLI_FLAG, _cli_flag),
    (("-u", "--user"), _CURL_USER, _curl_user),
    (("mysql", "mariadb", "sshpass", "login", "upload"), _CLI_P, _cli_p),
    (("pass", "pw", "secret", "key", "token", "cred"), _PROSE, _prose),
]


def value_start(m: re.Match[str]) -> int:
    """Where a rejected match's value starts: the next scan resumes there."""
    names = m.re.groupindex
    for name in ("v", "eq", "dq", "sq", "bare"):
        if name in names and m.start(name) >= 0:
            return m.start(name)
    return m.end()
